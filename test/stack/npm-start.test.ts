import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCall } from '../http-call.ts';
import { draftRfq, type ErpCall, supplierIds, until } from '../mail/rfq-judges.ts';
import { type RunningProcura, startProcura } from '../ui/procura.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

/**
 * Supplier mail read by Procura as a user starts it: `node bin/procura.js start`, the compiled build in dist/ that
 * `npm start` runs, in a process of its own, the simulated suppliers answering by SMTP.
 */
describe('procura start, as npm start runs it', () => {
  let procura: RunningProcura;
  let call: ErpCall;

  beforeAll(async () => {
    procura = await startProcura();
    call = jsonCall(new URL(procura.erpUrl).origin, procura.tokens.laoxiao);
  }, 180_000);
  afterAll(() => procura?.close());

  // pdf.js must find its worker from the build: once it did not, and under `npm start` every PDF quote was unreadable.
  it("reads a supplier's quotation PDF sent by mail", async () => {
    const suppliers = await supplierIds(call);
    const rfq = await draftRfq(call, {
      suppliers,
      invite: ['brembo'],
      quantity: 200,
      adminToken: procura.tokens.admin,
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
});
