import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCall } from '../http-call.ts';
import { draftRfq, type ErpCall, supplierIds, until } from '../mail/rfq-judges.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Procura as a user starts it: `npm start` runs `node bin/procura.js start`, the compiled build in dist/, in a
 * process of its own (here on a temp data dir and free ports, the offline model), and is reached only by the
 * addresses it prints and the demo tokens it writes.
 */
describe('procura start, as npm start runs it', () => {
  let child: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  let call: ErpCall;
  let apiUrl: string;
  let tokens: Record<string, string>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-npm-start-'));

  beforeAll(async () => {
    const ports = [
      'ERP_PORT',
      'SUPPLIERS_PORT',
      'CHARTS_PORT',
      'CHART_MCP_PORT',
      'ERP_MCP_PORT',
      'OAUTH_PORT',
      'API_PORT',
    ];
    child = spawn(process.execPath, [path.join(ROOT, 'bin/procura.js'), 'start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...Object.fromEntries(ports.map((name) => [name, '0'])),
        PROCURA_DATA_DIR: dataDir,
        PROCURA_TOOLSET_CHECK: 'fail',
        DATABASE_URL: '',
        REDIS_URL: '',
        DEEPSEEK_API_KEY: '',
        OPENAI_API_KEY: '',
        OPENAI_BASE_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    exited = new Promise((resolve) => child.once('exit', resolve));
    await Promise.race([
      until('procura start to say it is running', async () => output.includes('Ctrl-C'), 180_000),
      exited.then((code) => {
        throw new Error(`procura start exited with ${code}:\n${output}`);
      }),
    ]);
    // Each part on a line of its own: two spaces, its name, its address.
    const address = (part: string) => output.match(new RegExp(`^  ${part}\\s+(\\S+)`, 'm'))?.[1] ?? '';
    apiUrl = address('Chat API \\+ UI').replace(/\/$/, '');
    tokens = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-tokens.json'), 'utf8'));
    call = jsonCall(new URL(address('ERP')).origin, tokens.laoxiao);
  }, 200_000);

  afterAll(async () => {
    if (child?.exitCode === null) {
      child.kill('SIGINT');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers at the addresses it printed, with the demo tokens it wrote', async () => {
    expect((await call('GET', '/api/suppliers')).body.items.length).toBeGreaterThan(0);
    const ready = await fetch(`${apiUrl}/api/v1/ready`);
    expect(ready.status, await ready.clone().text()).toBe(200);
  });

  // Fails until pdf.js finds its worker in dist/: under `npm start` a PDF quote reads as unreadable.
  it.fails("reads a supplier's quotation PDF sent by mail", async () => {
    const suppliers = await supplierIds(call);
    const rfq = await draftRfq(call, {
      suppliers,
      invite: ['brembo'],
      quantity: 200,
      adminToken: tokens.admin,
      usdRate: 7.1,
    });
    expect((await call('POST', `/api/rfqs/${rfq.id}/send`, { body: { version: rfq.version } })).status).toBe(200);
    let now: Any;
    await until(
      "Brembo's reply",
      async () => {
        now = (await call('GET', `/api/rfqs/${rfq.id}`)).body;
        return now.invitations.every((i: Any) => i.status !== 'invited');
      },
      60_000,
    );
    expect(now.quotes.map((q: Any) => [q.source.attachment, q.status])).toEqual(
      rfq.lines.map(() => ['quotation.pdf', 'quoted']),
    );
  }, 120_000);

  it('stops every part on Ctrl-C and exits 0', async () => {
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 60_000);
});
