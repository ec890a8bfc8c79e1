import net from 'node:net';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RfqMail, receiveReply, TEMPLATE_HEADER } from '../../src/mail/index.ts';
import { quotationPdf } from '../../src/suppliers/quotation-pdf.ts';
import { freePort } from '../../src/tools/index.ts';
import { type ErpHarness, startHarness } from '../erp/harness.ts';
import { draftRfq, invitationToken, supplierIds } from './rfq-judges.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Any = any;

const DOMAIN = 'procura.test';

/** A raw MIME mail from `from` to an invitation's reply address, with a body and attachments. */
async function mailOf(
  from: string,
  token: string,
  text: string,
  attachments: Array<{ filename: string; content: Buffer }> = [],
): Promise<Buffer> {
  return new MailComposer({
    from,
    to: `rfq+${token}@${DOMAIN}`,
    subject: 'RE: 询价 / RFQ',
    messageId: `<${Math.random().toString(36).slice(2)}@supplier.example>`,
    text,
    attachments,
  })
    .compile()
    .build();
}

async function xlsx(rows: unknown[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Quote');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** Ways a price is written in another currency than the RFQ's CNY: its text and the ISO codes it may mean. */
const FOREIGN = [
  ['$1.60', ['USD', 'HKD', 'SGD', 'AUD', 'CAD', 'NZD', 'TWD']],
  ['1.60 USD', ['USD']],
  ['US$ 1.60', ['USD']],
  ['€1.60', ['EUR']],
  ['1.60 EUR', ['EUR']],
  ['HK$1.60', ['HKD']],
  ['JPY 160', ['JPY']],
  ['160円', ['JPY']],
  ['£1.60', ['GBP']],
  ['1.60 美元', ['USD']],
] as const;

describe('supplier replies fail closed: currencies, units, formulas, bombs and size', () => {
  let h: ErpHarness;
  let rfq: Any;
  let suppliers: Record<string, number>;
  let token: string;
  let from: string;

  beforeAll(async () => {
    h = await startHarness({ name: 'sqlite', enabled: true });
    suppliers = await supplierIds(h.call);
    rfq = await draftRfq(h.call, {
      suppliers,
      invite: ['ngk'],
      quantity: 200,
      adminToken: h.tokens.admin,
      usdRate: 7.1,
    });
    const sent = await h.call('POST', `/api/rfqs/${rfq.id}/send`, { body: { version: rfq.version } });
    expect(sent.status).toBe(200);
    rfq = sent.body;
    token = await invitationToken(h.erp.database.db, rfq.id, suppliers.ngk);
    from = (await h.call('GET', `/api/suppliers/${suppliers.ngk}`)).body.contact.email;
  });
  afterAll(() => h?.close());

  const line1 = async () =>
    ((await h.call('GET', `/api/rfqs/${rfq.id}`)).body.quotes as Any[]).find(
      (q) => q.supplier.id === suppliers.ngk && q.lineNo === 1,
    );
  const template = (cells: Record<number, unknown>) => {
    const row: unknown[] = [1, 'F7TC', 200, rfq.lines[0].unit, rfq.lines[0].requiredDate, '', 'CNY'];
    for (const [i, v] of Object.entries(cells)) row[Number(i)] = v;
    return [TEMPLATE_HEADER, row];
  };

  it('never records a price written in another currency as CNY: body, XLSX, CSV and PDF', async () => {
    for (const [written, means] of FOREIGN) {
      const carriers: Array<[string, () => Promise<Buffer>, boolean]> = [
        // A body table without a currency column: the sign alone says the currency, if it says one.
        ['body', () => mailOf(from, token, `报价如下\n\n行号 Line | 单价 Unit price\n1 | ${written}\n`), false],
        // The template keeps the RFQ's CNY in its currency column: the sign disagrees with it.
        [
          'xlsx',
          async () =>
            mailOf(from, token, '见附件', [{ filename: 'q.xlsx', content: await xlsx(template({ 5: written })) }]),
          true,
        ],
        [
          'csv',
          async () =>
            mailOf(from, token, '见附件', [
              { filename: 'q.csv', content: Buffer.from(`Line,Unit price,Currency\n1,"${written}",CNY\n`) },
            ]),
          true,
        ],
        [
          'pdf',
          async () =>
            mailOf(from, token, 'see PDF', [
              {
                filename: 'q.pdf',
                content: quotationPdf('Quotation', [
                  ['Line', 'Unit price', 'Currency'],
                  [1, written, 'CNY'],
                ]),
              },
            ]),
          true,
        ],
      ];
      for (const [carrier, build, conflicting] of carriers) {
        const result = await receiveReply(h.erp.services.rfqs, await build());
        const quote = await line1();
        const what = `${written} in ${carrier}: ${JSON.stringify(result)} ${JSON.stringify(quote)}`;
        expect(['recorded', 'flagged'], what).toContain(result.outcome);
        if (conflicting || means.length > 1) {
          expect(quote.status, what).toBe('flagged');
          // (The test's PDF writer prints a sign it has no glyph for as `?`: unreadable, flagged all the same.)
          expect(quote.flag, what).toMatch(carrier === 'pdf' ? /币种|无法识别/ : /币种/);
        } else {
          expect(quote.status, what).toBe('quoted');
          expect(quote.currency, what).toBe(means[0]);
        }
        // Never the same figure taken as yuan.
        expect(quote.status === 'quoted' && quote.currency === 'CNY', what).toBe(false);
      }
    }
  }, 300_000);

  it('flags a unit or quantity changed in the template, and a formula instead of its cached value', async () => {
    const cases: Array<[Record<number, unknown>, RegExp]> = [
      [{ 3: `千${rfq.lines[0].unit}`, 5: 1.6 }, /单位/],
      [{ 2: 2000, 5: 1.6 }, /数量 2000/],
      [{ 5: { formula: 'C2*0.001', result: 0.2 } }, /公式/],
      [{ 5: `1.6/千${rfq.lines[0].unit}` }, /单位/],
    ];
    for (const [cells, reason] of cases) {
      const raw = await mailOf(from, token, '见附件', [{ filename: 'q.xlsx', content: await xlsx(template(cells)) }]);
      const result = await receiveReply(h.erp.services.rfqs, raw);
      expect(result.outcome).toBe('flagged');
      const quote = await line1();
      expect(quote.status, JSON.stringify(cells)).toBe('flagged');
      expect(quote.flag).toMatch(reason);
    }
    // The same template with the RFQ's own unit and quantity and a plain price is read.
    await receiveReply(
      h.erp.services.rfqs,
      await mailOf(from, token, '见附件', [{ filename: 'q.xlsx', content: await xlsx(template({ 5: 14.2 })) }]),
    );
    expect(await line1()).toMatchObject({ status: 'quoted', unitPrice: 14.2, currency: 'CNY' });
  }, 120_000);

  /** Runs `work` while timing the ERP's health answers; the slowest one in milliseconds. */
  async function slowestHealthWhile(work: Promise<unknown>): Promise<number> {
    let done = false;
    let slowest = 0;
    const probe = (async () => {
      while (!done) {
        const started = performance.now();
        expect((await h.call('GET', '/api/health')).status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await work.finally(() => {
      done = true;
    });
    await probe;
    return slowest;
  }

  it('refuses a cell bomb and a shared-string bomb with a flag on the reply, while the ERP keeps answering', async () => {
    // Thirty thousand cells in a 1 MiB sheet.
    const cells = Array.from({ length: 3_000 }, (_, i) => [i + 10, 'x', 1, 'y', 2, 'z', 3, 'w', 4, 'v']);
    const cellBomb = await xlsx([...template({ 5: 1.6 }), ...cells]);
    // A workbook whose shared-string table inflates to hundreds of MiB from a few hundred KiB.
    const zip = await JSZip.loadAsync(await xlsx(template({ 5: 1.6 })));
    const huge = `<si><t>${'A'.repeat(1024 * 1024)}</t></si>`.repeat(300);
    zip.file(
      'xl/sharedStrings.xml',
      `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${huge}</sst>`,
    );
    const stringBomb = await zip.generateAsync({
      type: 'nodebuffer',
      compression: 'DEFLATE',
      compressionOptions: { level: 9 },
    });
    expect(stringBomb.length).toBeLessThan(1024 * 1024);
    for (const [bomb, why] of [
      [cellBomb, /单元格/],
      [stringBomb, /解压后超过/],
    ] as const) {
      const raw = await mailOf(from, token, '见附件', [
        { filename: 'a.xlsx', content: bomb },
        { filename: 'b.xlsx', content: bomb },
      ]);
      let result: Any;
      const slowest = await slowestHealthWhile(
        receiveReply(h.erp.services.rfqs, raw).then((r) => {
          result = r;
        }),
      );
      expect(result.outcome).toBe('flagged');
      expect(result.reason).toMatch(why);
      const quote = await line1();
      expect(quote.status).toBe('flagged');
      expect(quote.flag).toMatch(/读取限制/);
      expect(slowest, 'the ERP answered within a few seconds throughout').toBeLessThan(3_000);
    }
  }, 180_000);

  it('closes an SMTP connection once the message passes the size limit, before the rest is read', async () => {
    const port = await freePort('127.0.0.1');
    const mail = await new RfqMail(h.erp.services.rfqs, {
      smtpUrl: 'smtp://127.0.0.1:9',
      replyDomain: DOMAIN,
      from: 'buyer@procura.test',
      inbound: { host: '127.0.0.1', port },
      intervalMs: 60_000,
      quoteFormUrl: () => 'https://procura.example/quote',
    }).start();
    try {
      const total = 120 * 1024 * 1024;
      const outcome = await new Promise<{ sent: number; replies: string }>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        let replies = '';
        let sent = 0;
        let step = 0;
        const script = ['EHLO supplier.example', `MAIL FROM:<${from}>`, `RCPT TO:<rfq+${token}@${DOMAIN}>`, 'DATA'];
        const chunk = Buffer.alloc(1024 * 1024, 'x\r\n'.repeat(1));
        const pump = () => {
          while (sent < total && !socket.destroyed) {
            sent += chunk.length;
            if (!socket.write(chunk)) return socket.once('drain', pump);
          }
        };
        socket.on('data', (data) => {
          replies += data.toString();
          if (step < script.length && /^\d{3} /m.test(data.toString())) {
            socket.write(`${script[step++]}\r\n`);
            if (step === script.length) socket.once('data', () => pump());
          }
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve({ sent, replies }));
        setTimeout(() => reject(new Error('the listener kept reading')), 120_000).unref();
      });
      expect(outcome.replies, outcome.replies).toMatch(/^552 /m);
      expect(outcome.sent).toBeLessThan(total / 2);
    } finally {
      await mail.close();
    }
  }, 180_000);
});
