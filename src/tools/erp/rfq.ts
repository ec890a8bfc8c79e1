import { z } from 'zod';
import {
  contract,
  type ErpConnection,
  erpExchange,
  type Order,
  type Page,
  type Rfq,
  type RfqAwardPreview,
  type RfqProposal,
} from '../../erp/index.ts';
import { Tool, type ToolControl, type ToolSpec } from '../registry.ts';
import { writeKey } from './client.ts';

const { Id, traced, pagedViewOf } = contract;
const IdempotencyKey = contract.IdempotencyKey.optional().describe(
  '幂等键：同一个键重试返回第一次的结果 / retry with the same key: the first result again',
);
const Version = z.number().int().positive().describe('询价单当前版本号（先用 rfq_get 读取）/ current version');
const RfqCreateInput = contract.CreateRfqInputSchema.extend({
  supplierIds: contract.CreateRfqInputSchema.shape.supplierIds.describe(
    '受邀供应商 id（先用 supplier_query 查）/ invited suppliers, from supplier_query',
  ),
  replyDeadline: contract.CreateRfqInputSchema.shape.replyDeadline.describe(
    '报价截止时间 ISO 8601（含时区）/ reply deadline, ISO date-time with offset',
  ),
  idempotencyKey: IdempotencyKey,
});
const RfqActionInput = z.object({ rfqId: Id, version: Version, idempotencyKey: IdempotencyKey });
const RfqAwardInput = contract.AwardRfqInputSchema.extend({
  rfqId: Id,
  version: Version,
  idempotencyKey: IdempotencyKey,
});

const RfqResult = traced(z.object({ rfq: contract.RfqSchema }));
const RfqWriteResult = traced(
  z.object({ success: z.literal(true), stateChanged: z.boolean(), rfq: contract.RfqSchema }),
);
/** What suppliers and buyers wrote into an RFQ reaches the model fenced, as data. */
const UNTRUSTED = ['remarks', 'flag', 'note', 'title', 'item'] as const;
/** What every status move of an RFQ (send, close) declares alike: a write by id and version, safe to repeat. */
const STATUS_MOVE = {
  schema: RfqActionInput,
  safety: 'write',
  idempotent: true,
  group: 'rfq',
  output: RfqWriteResult,
  untrusted: UNTRUSTED,
} as const satisfies Omit<ToolSpec<typeof RfqActionInput>, 'name' | 'label' | 'description'>;

/**
 * The ERP's requests for quotation as tools, bound to one user's token like `ErpClient`: list, read, draft, send
 * (mail to outside parties: a write that needs approval), close and award (a purchase order draft).
 */
export class RfqTools {
  constructor(readonly connection: ErpConnection) {}

  private async write(method: string, path: string, body: unknown, key: string | undefined, control: ToolControl) {
    const answer = await erpExchange<Rfq | { rfq: Rfq; order: Order }>(this.connection, method, path, {
      body,
      headers: writeKey(key, control) ? { 'idempotency-key': writeKey(key, control) as string } : undefined,
      signal: control.signal,
    });
    return answer;
  }

  private async action(
    action: 'send' | 'close' | 'cancel',
    input: z.infer<typeof RfqActionInput>,
    control: ToolControl,
  ) {
    const { body, traceId, replayed } = await this.write(
      'POST',
      `/rfqs/${input.rfqId}/${action}`,
      { version: input.version },
      input.idempotencyKey,
      control,
    );
    return { success: true as const, stateChanged: !replayed, rfq: body as Rfq, traceId };
  }

  @Tool({
    name: 'rfq_list',
    label: '询价单列表',
    description:
      '列出本项目的询价单（RFQ），可按状态筛选：编号、标题、状态、截止时间、受邀与已回复供应商数。/ The project’s requests for quotation with reply counts.',
    schema: z.object({
      status: contract.RfqStatusSchema.optional(),
      page: z.number().int().min(1).max(10_000).default(1),
      size: z.number().int().min(1).max(50).default(20),
    }),
    safety: 'read-only',
    group: 'rfq',
    output: traced(pagedViewOf(contract.RfqSummarySchema)),
    untrusted: ['title'],
  })
  async rfqList(input: { status?: string; page: number; size: number }, control: ToolControl) {
    const { body, traceId } = await erpExchange<Page<z.infer<typeof contract.RfqSummarySchema>>>(
      this.connection,
      'GET',
      '/rfqs',
      { query: input, signal: control.signal },
    );
    return { items: body.items, total: body.total, page: body.page, size: body.size, traceId };
  }

  @Tool({
    name: 'rfq_get',
    label: '询价单详情',
    description:
      '读取一张询价单：行、受邀供应商（邮件是否已发、是否回复）、每家每行的报价（原币单价、阶梯价、MOQ、交期、有效期、运费、来源邮件/附件）及按询价数量折算的人民币单价与总额；无法确认的内容标为 flagged。/ One RFQ with invitations and quotes, each in CNY at the asked quantity.',
    schema: z.object({ rfqId: Id }),
    safety: 'read-only',
    group: 'rfq',
    output: RfqResult,
    untrusted: UNTRUSTED,
  })
  async rfqGet(input: { rfqId: number }, control: ToolControl) {
    const { body, traceId } = await erpExchange<Rfq>(this.connection, 'GET', `/rfqs/${input.rfqId}`, {
      signal: control.signal,
    });
    return { rfq: body, traceId };
  }

  @Tool({
    name: 'rfq_proposal',
    label: '授标建议',
    description:
      '询价单的授标建议：每家对所有行都有可用报价的供应商，按到岸总价（人民币，含运费）、交期与需求日期、供应商评分卡、与近 12 个月成交价的比较加权排序（权重为项目寻源设置），附理由；并列出被排除的报价及原因（未回复、谢绝、无法确认、逾期到达、报价过期、MOQ 高于询价数量、交期晚于需求日期、缺汇率）。/ The award proposal: suppliers ranked by weighted landed cost, lead time, scorecard and price history, with reasons and every exclusion.',
    schema: z.object({ rfqId: Id }),
    safety: 'read-only',
    group: 'rfq',
    output: traced(z.object({ proposal: contract.RfqProposalSchema })),
    untrusted: ['detail'],
  })
  async rfqProposal(input: { rfqId: number }, control: ToolControl) {
    const { body, traceId } = await erpExchange<RfqProposal>(this.connection, 'GET', `/rfqs/${input.rfqId}/proposal`, {
      signal: control.signal,
    });
    return { proposal: body, traceId };
  }

  @Tool({
    name: 'rfq_create',
    label: '创建询价单',
    description:
      '在 ERP 中创建询价单草稿（不发邮件）：行（partId 或自由文本 item、数量、单位、需求日期）、受邀供应商、报价截止时间、币种与贸易术语。调用前须得到用户同意。/ Drafts an RFQ in the ERP (no mail yet). Get the user’s consent first.',
    schema: RfqCreateInput,
    safety: 'write',
    destructive: false,
    group: 'rfq',
    output: RfqWriteResult,
    untrusted: UNTRUSTED,
  })
  async rfqCreate(input: z.infer<typeof RfqCreateInput>, control: ToolControl) {
    const { idempotencyKey, ...body } = input;
    const answer = await this.write('POST', '/rfqs', body, idempotencyKey, control);
    return { success: true as const, stateChanged: !answer.replayed, rfq: answer.body as Rfq, traceId: answer.traceId };
  }

  @Tool({
    name: 'rfq_send',
    label: '发出询价邮件',
    description:
      '发出询价：向每家受邀供应商发送一封询价邮件（中英双语、附报价模板与报价链接），每家只发一次。这是对外发送，须得到用户批准。/ Mails the RFQ to each invited supplier, once. Mail to outside parties: needs the user’s approval.',
    ...STATUS_MOVE,
  })
  rfqSend(input: z.infer<typeof RfqActionInput>, control: ToolControl) {
    return this.action('send', input, control);
  }

  @Tool({
    name: 'rfq_close',
    label: '截止询价',
    description:
      '提前截止询价（截止时间到时会自动截止）；之后到达的报价仍保存并标为逾期。/ Closes the RFQ before its deadline; later replies are kept, marked late.',
    ...STATUS_MOVE,
  })
  rfqClose(input: z.infer<typeof RfqActionInput>, control: ToolControl) {
    return this.action('close', input, control);
  }

  @Tool({
    name: 'rfq_award_preview',
    label: '预览授标',
    description:
      '预览授标（不写入）：ERP 按授标的同一规则给出将生成的采购订单（供应商、行、人民币单价与价格检查、合计、提交后审批策略的结果）、是否先截止询价，以及授标建议中该供应商的排名和理由。/ What awarding the RFQ to this supplier would write, without writing: the order, its policy decision, and the supplier’s rank with reasons.',
    schema: RfqAwardInput,
    safety: 'read-only',
    group: 'rfq',
    output: traced(contract.RfqAwardPreviewSchema),
  })
  async rfqAwardPreview(input: z.infer<typeof RfqAwardInput>, control: ToolControl) {
    const { rfqId, idempotencyKey: _key, ...body } = input;
    const { body: preview, traceId } = await erpExchange<RfqAwardPreview>(
      this.connection,
      'POST',
      `/rfqs/${rfqId}/award/preview`,
      { body, signal: control.signal },
    );
    return { ...preview, traceId };
  }

  @Tool({
    name: 'rfq_award',
    label: '询价授标',
    description:
      '授标：按所选供应商在询价数量下的人民币单价生成一张采购订单草稿（submit=true 则提交审批策略），与询价单关联，只写一次。仍在收集报价的询价单须先截止：close=true 在同一次写入中先截止再授标（一次审批）。须得到用户批准。/ Awards the RFQ to one supplier: drafts one purchase order at its CNY prices, linked to the RFQ, written once; close=true closes an RFQ still taking replies first, in the same write (one approval). Needs approval.',
    schema: RfqAwardInput,
    safety: 'write',
    group: 'rfq',
    output: traced(
      z.object({
        success: z.literal(true),
        stateChanged: z.boolean(),
        rfq: contract.RfqSchema,
        order: contract.OrderSchema,
      }),
    ),
    untrusted: UNTRUSTED,
  })
  async rfqAward(input: z.infer<typeof RfqAwardInput>, control: ToolControl) {
    const { rfqId, idempotencyKey, ...body } = input;
    const answer = await this.write('POST', `/rfqs/${rfqId}/award`, body, idempotencyKey, control);
    const { rfq, order } = answer.body as { rfq: Rfq; order: Order };
    return { success: true as const, stateChanged: !answer.replayed, rfq, order, traceId: answer.traceId };
  }
}
