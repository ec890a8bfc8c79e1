import type { Command } from 'commander';
import {
  quoteRows,
  RFQ_STATUS_LABELS,
  type RfqDetailView,
  type RfqProposalView,
  type RfqQuoteView,
} from '../../protocol/index.ts';
import { bold, dim } from '../chat/render.ts';
import { chatApiClient, withApiOptions } from '../options.ts';

const status = (s: string) => (RFQ_STATUS_LABELS[s] ? `${RFQ_STATUS_LABELS[s].zh} / ${RFQ_STATUS_LABELS[s].en}` : s);
const when = (iso: string | null) => (iso ? `${iso.replace('T', ' ').slice(0, 16)} UTC` : '—');
const money = (n: number) => n.toFixed(2);

/** Columns as a terminal shows them: a CJK character takes two cells. */
function width(text: string): number {
  let n = 0;
  for (const ch of text)
    n += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch)
      ? 2
      : 1;
  return n;
}

/** A table of text cells, each column as wide as its widest cell; `right` columns align right (numbers). */
export function table(header: string[], rows: string[][], right: number[] = []): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => {
        const pad = ' '.repeat(widths[i] - width(c));
        return right.includes(i) ? pad + c : c + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '─'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The normalised quote table: as quoted, then the ERP's effective CNY figures at the asked quantity, and the source. */
export function quoteTable(rfq: RfqDetailView): string {
  const stated = (q: RfqQuoteView) =>
    q.status === 'quoted'
      ? `${q.unitPrice} ${q.currency}${q.freight ? ` +运费 freight ${q.freight}` : ''}${q.late ? ' (逾期 late)' : ''}`
      : q.status === 'declined'
        ? '谢绝 declined'
        : '无法确认 unreadable';
  const rows = quoteRows(rfq).map((q) => [
    String(q.lineNo),
    q.supplier.nameZh,
    stated(q),
    q.effective ? money(q.effective.unitPriceCny) : '—',
    q.effective ? money(q.effective.totalCny) : '—',
    q.effective?.priceBreakMinQty != null ? `≥${q.effective.priceBreakMinQty}` : '',
    q.leadTimeDays === null ? '—' : String(q.leadTimeDays),
    [q.source.kind, q.source.attachment].filter(Boolean).join(' · '),
  ]);
  return table(
    [
      '行 Line',
      '供应商 Supplier',
      '报价 Quoted',
      '单价 ¥ Unit',
      '总价 ¥ Total',
      '阶梯 Break',
      '交期 Days',
      '来源 Source',
    ],
    rows,
    [3, 4, 6],
  );
}

/** The proposal's ranking with its reasons, the recommendation, and each quote left out with why. */
export function proposalText(p: RfqProposalView): string {
  const out = [bold('授标建议 / award proposal')];
  if (!p.ranking.length) out.push('还没有可以授标的报价 / no quote can be awarded yet');
  for (const r of p.ranking) {
    const mark = p.recommended?.id === r.supplier.id ? '  ★ 推荐 / recommended' : '';
    out.push(
      `${r.rank}. ${r.supplier.nameZh} / ${r.supplier.nameEn}  得分 score ${r.score.toFixed(3)}  到岸 landed ¥${money(r.landedCostCny)}${mark}`,
    );
    for (const why of r.why) out.push(dim(`   - ${why}`));
  }
  if (p.excluded.length) {
    out.push(bold('未参与排名 / left out'));
    for (const e of p.excluded)
      out.push(`- ${e.supplier.nameZh}${e.lineNo === null ? '' : ` 行 line ${e.lineNo}`}: ${e.reason} — ${e.detail}`);
  }
  return out.join('\n');
}

export function registerRfqCommands(program: Command): void {
  const rfq = program
    .command('rfq')
    .description('requests for quotation: list them, show one with its quotes and proposal / 询价单');
  withApiOptions(rfq.command('list').description('the project’s RFQs: number, status, deadline, replies'))
    .option('--status <status>', `only RFQs in this status (${Object.keys(RFQ_STATUS_LABELS).join(', ')})`)
    .option('--json', 'print the API’s answer as JSON')
    .action(async (opts) => {
      const { client } = chatApiClient(opts);
      const page = await client.rfqs(opts.status, 1, 100);
      if (opts.json) return console.log(JSON.stringify(page));
      if (!page.items.length) return console.log('还没有询价单 / no RFQs');
      console.log(
        table(
          ['编号 Number', '状态 Status', '截止 Deadline', '回复 Replied', '标题 Title'],
          page.items.map((r) => [
            r.rfqNo,
            status(r.status),
            when(r.replyDeadline),
            `${r.replied}/${r.invited}`,
            r.title,
          ]),
          [3],
        ),
      );
      if (page.total > page.items.length) console.log(dim(`（共 ${page.total} 张 / ${page.total} in all）`));
    });
  withApiOptions(
    rfq
      .command('show <rfq>')
      .description('one RFQ by id or number: lines, invitations, quotes in CNY at the asked quantity, proposal'),
  )
    .option('--json', 'print the RFQ and its proposal as JSON')
    .action(async (ref: string, opts) => {
      if (!/^(\d{1,10}|RFQ-\d{6}-\d{6,})$/i.test(ref))
        throw new Error(`需要询价单 id 或编号 / an RFQ id or number such as RFQ-202612-000001, not “${ref}”`);
      const { client } = chatApiClient(opts);
      const [detail, proposal] = await Promise.all([client.rfq(ref), client.rfqProposal(ref)]);
      if (opts.json) return console.log(JSON.stringify({ rfq: detail, proposal }));
      console.log(bold(`${detail.rfqNo} · ${detail.title} · ${status(detail.status)}`));
      console.log(
        dim(
          `截止 deadline ${when(detail.replyDeadline)} · ${detail.currency} · ${detail.incoterm} · ${detail.createdBy.username}`,
        ),
      );
      if (detail.award) console.log(`已授标 / awarded: 订单 order ${detail.award.orderNo}`);
      console.log(`\n${bold('询价行 / lines')}`);
      console.log(
        table(
          ['行 Line', '物料 Item', '数量 Qty', '需求日期 Required'],
          detail.lines.map((l) => [String(l.lineNo), l.item, `${l.quantity} ${l.unit}`, l.requiredDate]),
          [2],
        ),
      );
      console.log(`\n${bold('受邀供应商 / invitations')}`);
      console.log(
        table(
          ['供应商 Supplier', '邀请 Mail', '催办 Reminded', '回复 Reply'],
          detail.invitations.map((i) => [
            i.supplier.nameZh,
            `${i.mail.status} ${i.mail.sentAt ? when(i.mail.sentAt) : ''}`.trim(),
            when(i.mail.remindedAt),
            `${i.status} ${i.repliedAt ? when(i.repliedAt) : ''}`.trim(),
          ]),
        ),
      );
      console.log(`\n${bold('报价（人民币，按询价数量，ERP 折算）/ quotes in CNY at the asked quantity')}`);
      console.log(detail.quotes.length ? quoteTable(detail) : '还没有报价 / no quotes yet');
      console.log(`\n${proposalText(proposal)}`);
    });
}
