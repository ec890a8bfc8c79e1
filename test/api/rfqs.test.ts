import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveReply } from '../../src/mail/index.ts';
import { type ApiHarness, startApiHarness } from './harness.ts';
import { answerText, collect, openSse } from './sse.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

/**
 * Requests for quotation through the chat API: the read routes the browser and `procura rfq` use (as the signed-in
 * user of the RFQ's project only), the supplier's quote form reached by its invitation's token, and a digest of the
 * open RFQs.
 */
describe('RFQs through the chat API', () => {
  let h: ApiHarness;
  let rfq: Any;
  const tokens: Record<string, string> = {};
  const erp = async (method: string, path: string, body?: unknown, token = h.tokens.laoxiao) => {
    const res = await fetch(`${h.erpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as Any;
  };
  const form = (token: string, fields: Record<string, string>) =>
    fetch(`${h.url}/quote/${token}`, { method: 'POST', body: new URLSearchParams(fields) });

  beforeAll(async () => {
    h = await startApiHarness({ scheduler: { timer: false } });
    const suppliers = (await erp('GET', '/suppliers')).items as Any[];
    const part = (await erp('GET', '/parts/search?name=F7TC')).items[0];
    const draft = await erp('POST', '/rfqs', {
      title: 'F7TC 300 个',
      lines: [
        {
          partId: part.id,
          quantity: 300,
          requiredDate: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
        },
      ],
      supplierIds: ['bosch', 'denso', 'ngk'].map((key) => suppliers.find((s) => s.key === key).id),
      replyDeadline: new Date(Date.now() + 2 * 86_400_000).toISOString(),
    });
    rfq = await erp('POST', `/rfqs/${draft.id}/send`, { version: draft.version });
    const rows = await h.agent.erp.database.db
      .selectFrom('rfq_invitations')
      .innerJoin('suppliers', 'suppliers.id', 'rfq_invitations.supplier_id')
      .select(['rfq_invitations.token', 'suppliers.key'])
      .where('rfq_id', '=', rfq.id)
      .execute();
    for (const row of rows) tokens[row.key] = row.token;
  }, 120_000);
  afterAll(() => h?.close());

  it('the quote form shows the invitation alone, reads typed figures like a mail reply, and records them once', async () => {
    const page = await fetch(`${h.url}/quote/${tokens.bosch}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain(rfq.rfqNo);
    expect(html).toContain('博世');
    // Nothing of the other invited suppliers.
    for (const other of ['电装', 'Denso', 'NGK']) expect(html).not.toContain(other);
    const submission = /name="submission" value="([\w-]+)"/.exec(html)?.[1] ?? '';
    expect(submission).not.toBe('');

    // A cell it cannot read is shown back to the supplier; nothing is recorded.
    const unreadable = await form(tokens.bosch, { submission, price_1: 'about fourteen', currency_1: 'CNY' });
    expect(unreadable.status).toBe(422);
    expect(await unreadable.text()).toContain('unit price not readable');
    expect((await erp('GET', `/rfqs/${rfq.id}`)).quotes).toEqual([]);
    // A price in another currency than the one chosen, or a unit other than the RFQ's, is shown back, never recorded.
    for (const [price, why] of [
      ['$1.60', '币种'],
      ['1.60 USD', '币种'],
      ['€1.60', '币种'],
      ['HK$1.60', '币种'],
      ['1.60/千只', '单位'],
    ]) {
      const foreign = await form(tokens.bosch, { submission, price_1: price, currency_1: 'CNY' });
      expect(foreign.status, price).toBe(422);
      expect(await foreign.text(), price).toContain(why);
    }
    expect((await erp('GET', `/rfqs/${rfq.id}`)).quotes).toEqual([]);

    const fields = {
      submission,
      price_1: '14.80',
      currency_1: 'CNY',
      breaks_1: '100:14.2; 500:13.5',
      lead_1: '10',
      freight_1: '60',
    };
    const sent = await form(tokens.bosch, fields);
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('报价已收到 / your quote is recorded');
    // The same submission again (a double click, a reload): recognised, nothing changes.
    const again = await form(tokens.bosch, fields);
    expect(await again.text()).toContain('nothing changed');
    const now = await erp('GET', `/rfqs/${rfq.id}`);
    expect(now.quotes).toHaveLength(1);
    // 300 pieces take the 100-piece break: 14.2 × 300 + 60 freight, as a mail reply would read.
    expect(now.quotes[0]).toMatchObject({
      supplier: { nameEn: expect.stringMatching(/Bosch/) },
      source: { kind: 'form' },
      effective: { unitPriceCny: 14.2, totalCny: 4320, priceBreakMinQty: 100 },
    });
    const audit = await erp('GET', `/audit?entity=rfq&entityId=${rfq.id}`, undefined, h.tokens.admin);
    expect(audit.items.filter((e: Any) => e.action === 'quote')).toHaveLength(1);

    // Declining through the form counts like a declining mail.
    const ngkPage = await (await fetch(`${h.url}/quote/${tokens.ngk}`)).text();
    const ngkSubmission = /name="submission" value="([\w-]+)"/.exec(ngkPage)?.[1] ?? '';
    expect((await form(tokens.ngk, { submission: ngkSubmission, decline: 'yes', note: '产能已满' })).status).toBe(200);
    expect((await erp('GET', `/rfqs/${rfq.id}`)).invitations.map((i: Any) => i.status).sort()).toEqual([
      'declined',
      'invited',
      'replied',
    ]);

    // A body over the API's limit is refused before it is read.
    const huge = await form(tokens.denso, { submission, note: 'x'.repeat(70 * 1024) });
    expect(huge.status).toBe(413);
    for (const bad of ['0123456789abcdef01234567', 'not-a-token']) {
      const missing = await fetch(`${h.url}/quote/${bad}`);
      expect(missing.status).toBe(404);
      expect(await missing.text()).not.toContain(rfq.rfqNo);
    }
  });

  it('lists and shows the project’s RFQs with the ERP’s CNY figures and each quote’s source, by id or number', async () => {
    const list = await h.call('GET', '/api/v1/rfqs');
    expect(list.status).toBe(200);
    expect(list.body.items.find((r: Any) => r.id === rfq.id)).toMatchObject({
      rfqNo: rfq.rfqNo,
      status: 'collecting',
      invited: 3,
      replied: 2,
    });
    const byId = await h.call('GET', `/api/v1/rfqs/${rfq.id}`);
    const byNumber = await h.call('GET', `/api/v1/rfqs/${rfq.rfqNo.toLowerCase()}`);
    expect(byNumber.body.id).toBe(rfq.id);
    expect(byId.body.quotes).toEqual((await erp('GET', `/rfqs/${rfq.id}`)).quotes);
    expect(byId.body.permissions).toEqual({ award: true, reason: null });
    // The quote's source is the form submission, kept as the RFQ's message with what was sent.
    const quote = byId.body.quotes.find((q: Any) => q.status === 'quoted');
    const source = byId.body.messages.find((m: Any) => m.messageId === quote.source.messageId);
    expect(source).toMatchObject({ direction: 'in', sender: 'quote-form' });
    expect(source.body).toBeUndefined();
    const message = await h.call('GET', `/api/v1/rfqs/${rfq.id}/messages/${source.id}`);
    expect(message.body.body).toContain('100:14.2');
    expect((await h.call('GET', `/api/v1/rfqs/${rfq.id}/messages/999999`)).status).toBe(404);
    const proposal = await h.call('GET', `/api/v1/rfqs/${rfq.rfqNo}/proposal`);
    expect(proposal.body).toEqual(await erp('GET', `/rfqs/${rfq.id}/proposal`));
    expect((await h.call('GET', '/api/v1/rfqs/RFQ-209901-999999')).status).toBe(404);
    expect((await h.call('GET', '/api/v1/rfqs/abc')).status).toBe(422);
  });

  it('a mailed reply’s attachment is kept and downloads as it came, for the RFQ’s project only', async () => {
    const csv = 'line,unit price,currency,lead time\n1,1.95,USD,20\n';
    const denso = (await erp('GET', '/suppliers')).items.find((s: Any) => s.key === 'denso');
    // From the supplier's registered address, so it counts.
    const registered = Buffer.from(
      [
        `From: ${denso.contact.email}`,
        `To: rfq+${tokens.denso}@procura.local`,
        `Subject: Re: ${rfq.rfqNo}`,
        `Message-ID: <denso-attachment-${rfq.id}@denso.example>`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Our quote is attached.',
        '--b1',
        'Content-Type: text/csv; name="denso-quote.csv"',
        'Content-Disposition: attachment; filename="denso-quote.csv"',
        '',
        csv,
        '--b1--',
        '',
      ].join('\r\n'),
    );
    expect((await receiveReply(h.agent.erp.services.rfqs, registered)).outcome).toBe('recorded');
    const detail = (await h.call('GET', `/api/v1/rfqs/${rfq.id}`)).body;
    const mail = detail.messages.find((m: Any) => m.attachments.some((a: Any) => a.name === 'denso-quote.csv'));
    expect(mail.attachments[0]).toMatchObject({ name: 'denso-quote.csv', stored: true });
    const path = `/api/v1/rfqs/${rfq.id}/messages/${mail.id}/attachments/0`;
    const file = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${h.tokens.laoxiao}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain('attachment');
    expect(await file.text()).toBe(csv);
    expect((await h.call('GET', path, { token: h.tokens.zhangwei })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/rfqs/${rfq.id}/messages/${mail.id}/attachments/1`)).status).toBe(404);
  });

  it('another project’s user gets 404, a viewer reads but may not award, no token is 401', async () => {
    for (const path of [`/api/v1/rfqs/${rfq.id}`, `/api/v1/rfqs/${rfq.id}/proposal`, `/api/v1/rfqs/${rfq.rfqNo}`]) {
      const other = await h.call('GET', path, { token: h.tokens.zhangwei });
      expect(other.status, path).toBe(404);
      expect(JSON.stringify(other.body)).not.toContain('F7TC 300');
    }
    const message = (await h.call('GET', `/api/v1/rfqs/${rfq.id}`)).body.messages[0];
    expect(
      (await h.call('GET', `/api/v1/rfqs/${rfq.id}/messages/${message.id}`, { token: h.tokens.zhangwei })).status,
    ).toBe(404);
    expect(
      (await h.call('GET', '/api/v1/rfqs', { token: h.tokens.zhangwei })).body.items.map((r: Any) => r.id),
    ).not.toContain(rfq.id);
    const viewer = await h.call('GET', `/api/v1/rfqs/${rfq.id}`, { token: h.tokens.viewer });
    expect(viewer.status).toBe(200);
    expect(viewer.body.permissions).toEqual({ award: false, reason: expect.stringContaining('viewer') });
    expect((await h.call('GET', '/api/v1/rfqs', { token: null })).status).toBe(401);
  });

  it('a digest of the open RFQs lists each with its replies against invitations and its deadline, and no closed one', async () => {
    const suppliers = (await erp('GET', '/suppliers')).items as Any[];
    const part = (await erp('GET', '/parts/search?name=F7TC')).items[0];
    const other = await erp('POST', '/rfqs', {
      title: 'closed one',
      lines: [
        {
          partId: part.id,
          quantity: 50,
          requiredDate: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
        },
      ],
      supplierIds: [suppliers[0].id],
      replyDeadline: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const sent = await erp('POST', `/rfqs/${other.id}/send`, { version: other.version });
    await erp('POST', `/rfqs/${other.id}/close`, { version: sent.version });

    const created = await h.call('POST', '/api/v1/schedules', {
      body: { name: '询价进展', cron: '0 9 * * 1-5', kind: 'rfq_digest' },
    });
    expect(created.status).toBe(201);
    expect(created.body.kind).toBe('rfq_digest');
    const started = await h.call('POST', `/api/v1/schedules/${created.body.id}/run`);
    expect(started.status).toBe(202);
    const res = await openSse(`${h.url}/api/v1/agent/chat/stream/${started.body.session_id}`, {
      token: h.tokens.laoxiao,
      lastEventId: 0,
    });
    const answer = answerText(await collect(res.events));
    expect(answer).toContain(rfq.rfqNo);
    // Bosch and NGK by the form, Denso by mail.
    expect(answer).toContain('3/3');
    expect(answer).toContain(rfq.replyDeadline.slice(0, 16));
    expect(answer).not.toContain(other.rfqNo);
    // Nothing was changed by the digest.
    expect((await erp('GET', `/rfqs/${rfq.id}`)).status).toBe('collecting');
  }, 120_000);
});
