import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Seals credentials kept at rest (AES-256-GCM), so a database or file alone does not hand them out. The key is a
 * configured secret (every process of a deployment needs the same one) or, when none is set, a random key kept in a
 * file of the data dir (readable by its owner only).
 */
export class CredentialSealer {
  private constructor(private readonly key: Buffer) {}

  /**
   * The sealer of one kind of credential: `secret` from the setting named `setting` when given, else the key in
   * `<dataDir>/<keyFile>` (created on first use).
   */
  static open(options: { dataDir: string; secret?: string; setting: string; keyFile: string }): CredentialSealer {
    const secret = options.secret?.trim();
    if (secret) {
      if (secret.length < 16)
        throw new Error(`${options.setting} 至少 16 个字符 / ${options.setting} needs at least 16 characters`);
      return new CredentialSealer(createHash('sha256').update(secret).digest());
    }
    const file = path.join(options.dataDir, options.keyFile);
    fs.mkdirSync(options.dataDir, { recursive: true });
    try {
      // `wx`: of two processes sharing the data folder, one writes the key and both read it.
      fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return new CredentialSealer(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex'));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The sealed text, or undefined when it was sealed under another key (or altered). */
  unseal(sealed: string): string | undefined {
    try {
      const raw = Buffer.from(sealed.replace(/^v1\./, ''), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
