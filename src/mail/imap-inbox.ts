import { ImapFlow } from 'imapflow';
import type { RfqBook } from '../erp/index.ts';
import type { Logger } from '../shared/index.ts';
import { MAX_MESSAGE_BYTES, receiveReply } from './inbound.ts';

/** Where an IMAP URL (`imaps://user:pass@host:993/INBOX`, `imap://…:143/…`) reads from. */
export function imapMailbox(url: string) {
  const u = new URL(url);
  const secure = u.protocol === 'imaps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port) || (secure ? 993 : 143),
    secure,
    user: decodeURIComponent(u.username),
    pass: decodeURIComponent(u.password),
    mailbox: decodeURIComponent(u.pathname.replace(/^\/+/, '')) || 'INBOX',
  };
}

/** The IMAP URL as it may be shown and logged: without its password. */
export function shownImapUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

export interface ImapInboxOptions {
  /** `imaps://user:pass@host:993/INBOX` or `imap://user:pass@host:143/INBOX`. */
  url: string;
  /** How often the mailbox is read besides what IDLE announces (ms). */
  pollMs?: number;
  log?: Logger;
}

/**
 * Supplier replies read from an IMAP mailbox: every unseen message goes through the same `receiveReply` as the SMTP
 * listener's (registered sender, size and type limits, each Message-ID once), and is marked \Seen only after the
 * reply is stored. A crash before that leaves it unseen, so the next start reads it again and the Message-ID check
 * keeps it from counting twice. New mail is read as IDLE announces it, and on a timer besides.
 */
export class ImapInbox {
  private client?: ImapFlow;
  private connecting?: Promise<ImapFlow>;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private closed = false;
  private readonly mailbox;

  constructor(
    private readonly rfqs: RfqBook,
    private readonly options: ImapInboxOptions,
  ) {
    this.mailbox = imapMailbox(options.url);
  }

  /** Where replies are read from, without the password. */
  get address(): string {
    return shownImapUrl(this.options.url);
  }

  /** Connects (a mailbox that cannot be read fails the start, naming it) and reads what is already there. */
  async start(): Promise<this> {
    try {
      await this.connection();
    } catch (error) {
      throw new Error(`IMAP 邮箱无法读取 / cannot read the IMAP mailbox ${this.address}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? 30_000);
    this.timer.unref();
    await this.tick();
    return this;
  }

  /** One read of the mailbox; a call during a read asks for another right after it, so no announced mail waits. */
  tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.round();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round() {
    try {
      const client = await this.connection();
      // Sizes first, then each message on its own: no other command may run while a fetch is being read.
      const unseen: Array<{ uid: number; size: number }> = [];
      for await (const m of client.fetch({ seen: false }, { uid: true, size: true }, { uid: true }))
        unseen.push({ uid: m.uid, size: m.size ?? 0 });
      for (const { uid, size } of unseen) {
        if (this.closed) return;
        try {
          // Too large to be a reply (the listener refuses it too): not downloaded, marked as handled.
          if (size > MAX_MESSAGE_BYTES) this.options.log?.warn({ uid, size }, 'rfq mail over the size limit: not read');
          else {
            // `false` when the message went away meanwhile: nothing to read, nothing to mark.
            const fetched = (await client.fetchOne(String(uid), { source: true }, { uid: true })) || undefined;
            if (!fetched?.source) continue;
            const result = await receiveReply(this.rfqs, fetched.source);
            this.options.log?.info({ result, uid }, 'rfq reply');
          }
          await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
        } catch (error) {
          // Left unseen: the next read tries it again.
          this.options.log?.warn({ err: error, uid }, 'rfq reply failed');
          if (!client.usable) return;
        }
      }
    } catch (error) {
      this.options.log?.warn({ err: error, mailbox: this.address }, 'rfq mailbox read failed');
    }
  }

  /** The open connection, or a new one with the mailbox selected (a lost connection is opened again on the next read). */
  private connection(): Promise<ImapFlow> {
    if (this.client?.usable) return Promise.resolve(this.client);
    // One connection at a time, even when IDLE's news and the timer ask together.
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<ImapFlow> {
    const { host, port, secure, user, pass, mailbox } = this.mailbox;
    // IDLE from a second after each read (imapflow waits 15 s by default), so a reply is noticed as it arrives; a
    // read's own commands follow one another without such a pause.
    const client = new ImapFlow({ host, port, secure, auth: { user, pass }, logger: false, autoIdleDelay: 1_000 });
    client.on('error', (error: Error) => this.options.log?.warn({ err: error }, 'rfq mailbox connection error'));
    client.on('close', () => {
      if (this.client === client) this.client = undefined;
    });
    // IDLE announces new mail as it arrives.
    client.on('exists', () => void this.tick());
    await client.connect();
    try {
      await client.mailboxOpen(mailbox);
    } catch (error) {
      await client.logout().catch(() => client.close());
      throw error;
    }
    this.client = client;
    return client;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
    const client = this.client;
    this.client = undefined;
    await client?.logout().catch(() => client.close());
  }
}
