import { checkbox, input, select } from '@inquirer/prompts';
import {
  type ChatClient,
  type ChatEvent,
  type ChoiceOption,
  coversCall,
  describeScope,
  FREE_TEXT_CHOICE,
  type FreeText,
  formatYuan,
  type HumanDecision,
  type InterruptData,
  NUMBER_FIELDS,
  type StandingScope,
  type StreamResult,
  standingScope,
} from '../../protocol/index.ts';
import { discardTypeAhead, isPromptExit } from './keys.ts';
import { bold, decisionLine, dim, green, red, TerminalRenderer, yellow } from './render.ts';

export interface TerminalChatOptions {
  /** Print every event as one JSON line instead of rendering it. */
  json: boolean;
  /** Approve every approval without asking (scripts that already decided, e.g. `--once … --yes`). */
  yes: boolean;
  /** Whether a human is there to answer prompts. */
  interactive: boolean;
}

/** How a turn ended, for the exit code: finished, failed, stopped, or left waiting for a decision. */
export type TurnOutcome = 'done' | 'error' | 'cancelled' | 'waiting';

type Choice = 'once' | 'always' | 'edit' | 'deny';

/** Ctrl-C at a prompt: no decision is made, and the waiting run is stopped. */
const CANCELLED = Symbol('cancelled');

/**
 * How long keys are still dropped once a prompt is on screen, so a key meant for the text before it (an Enter
 * typed while the run was working) cannot answer it: a person reads the card before deciding.
 */
const PROMPT_GUARD_MS = 400;

/**
 * One terminal conversation with the chat API: streams each turn, answers interrupts (approve once / always for
 * this session / edit / deny; `ask_user` as a list; missing order fields as questions) and resumes the run.
 * "Always allow" is remembered per session by this client only: it sends an ordinary approve for later interrupts
 * of the same tool, method, path template and target resource (`src/protocol/standing.ts`), so the server still
 * records a human decision for every write.
 */
export class TerminalChat {
  sessionId?: string;
  /** Standing permissions of this session: each covers the same tool, method, path template and target only. */
  private readonly alwaysAllowed: StandingScope[] = [];
  private readonly renderer = new TerminalRenderer();
  private active?: AbortController;
  private cancelling = false;
  /** The configured agents, read once before the first run is followed. */
  private agentsRead?: Promise<void>;

  constructor(
    private readonly client: ChatClient,
    private readonly options: TerminalChatOptions,
    sessionId?: string,
  ) {
    this.sessionId = sessionId;
  }

  /** Sends a message and follows the run through every interrupt to its end. */
  async turn(message: string): Promise<TurnOutcome> {
    return this.follow((onEvent, signal) => this.client.start(message, this.sessionId, onEvent, signal));
  }

  /** Picks up a saved session: answers what it waits for, or re-attaches to its running run. */
  async reattach(): Promise<TurnOutcome | undefined> {
    if (!this.sessionId) return undefined;
    const saved = await this.client.session(this.sessionId);
    if (!this.options.json) {
      this.renderer.line(dim(`会话 / session ${this.sessionId} · ${saved.title}`));
      // What the admin decided on the orders this conversation drafted.
      for (const m of saved.messages) if (m.role === 'notice') this.renderer.line(decisionLine(m));
    }
    const pending = saved.pending_interrupts.map((p): InterruptData => ({ ...p.value, interrupt_id: p.interrupt_id }));
    if (pending.length) return this.answer(pending);
    if (saved.active_run) return this.follow((onEvent, signal) => this.client.attach(this.sessionId!, onEvent, signal));
    return undefined;
  }

  /** Ctrl-C: the first stops the run on the server; the caller exits on the second. Returns whether a run was stopped. */
  interrupt(): boolean {
    if (!this.active || this.cancelling || !this.sessionId) return false;
    this.cancelling = true;
    this.renderer.line(yellow('正在停止… 再按 Ctrl-C 退出 / stopping… press Ctrl-C again to quit'));
    this.client.cancel(this.sessionId).catch((error: Error) => this.renderer.line(error.message));
    return true;
  }

  private async follow(
    run: (onEvent: (event: ChatEvent) => void, signal: AbortSignal) => Promise<StreamResult>,
  ): Promise<TurnOutcome> {
    // Steps name their agent by its label; an API that cannot list its agents leaves the raw names.
    this.agentsRead ??= this.client.agents().then(
      (agents) => {
        this.renderer.agents = agents;
      },
      () => undefined,
    );
    await this.agentsRead;
    const interrupts: InterruptData[] = [];
    let outcome: TurnOutcome = 'done';
    const onEvent = (event: ChatEvent) => {
      const data = event.data as Record<string, unknown>;
      if (typeof data.session_id === 'string') this.sessionId ??= data.session_id;
      if (this.options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
      else this.renderer.event(event);
      if (event.event === 'interrupt') interrupts.push(event.data as InterruptData);
      if (event.event === 'error') outcome = 'error';
      if (event.event === 'done' && data.status === 'cancelled') outcome = 'cancelled';
    };
    this.active = new AbortController();
    this.cancelling = false;
    try {
      const result = await run(onEvent, this.active.signal);
      this.sessionId ??= result.sessionId;
      if (result.end === 'cut') outcome = 'error';
    } finally {
      this.active = undefined;
    }
    return interrupts.length ? this.answer(interrupts) : outcome;
  }

  /** Decides each interrupt (prompting the user, or by `--yes` / "always allow"), then resumes the run. */
  private async answer(interrupts: InterruptData[]): Promise<TurnOutcome> {
    let outcome: TurnOutcome = 'waiting';
    for (const interrupt of interrupts) {
      const decision = await this.decide(interrupt).catch((error: unknown): typeof CANCELLED => {
        if (isPromptExit(error)) return CANCELLED;
        throw error;
      });
      if (decision === CANCELLED) return this.cancelDecision();
      if (!decision) return 'waiting';
      if (this.options.json)
        process.stdout.write(
          `${JSON.stringify({ event: 'decision', data: { interrupt_id: interrupt.interrupt_id, decision } })}\n`,
        );
      outcome = await this.follow((onEvent, signal) =>
        this.client.resume(this.sessionId!, interrupt.interrupt_id, decision, onEvent, signal),
      );
    }
    return outcome;
  }

  /** Ctrl-C at a prompt: stops the waiting run on the server, so nothing is written and the session is free again. */
  private async cancelDecision(): Promise<TurnOutcome> {
    await this.client.cancel(this.sessionId!);
    this.renderer.line(
      yellow('■ 已取消，未做决定，没有写入任何内容 / cancelled: no decision was made and nothing was written'),
    );
    return 'cancelled';
  }

  private async decide(interrupt: InterruptData): Promise<HumanDecision | undefined | typeof CANCELLED> {
    if (interrupt.kind === 'approval') {
      if (
        this.options.yes ||
        this.alwaysAllowed.some((s) => coversCall(s, interrupt.tool, interrupt.args, interrupt.details))
      ) {
        // What was confirmed is this person's step only: the card says what the ERP's approval policy will do.
        if (!this.options.json) {
          const why = this.options.yes ? '--yes' : '本会话总是允许 / always allowed in this session';
          this.renderer.line(dim(`  已代你确认（${why}）/ confirmed for you: ${interrupt.label ?? interrupt.tool}`));
          this.renderer.line(describeApproval(interrupt));
        }
        return { type: 'approve' };
      }
      if (!this.options.interactive) return this.leaveWaiting(interrupt);
      return this.askApproval(interrupt);
    }
    if (!this.options.interactive) return this.leaveWaiting(interrupt);
    if (await discardTypeAhead(process.stdin, PROMPT_GUARD_MS)) return CANCELLED;
    if (interrupt.kind === 'ask_user') {
      const answer = interrupt.multiple
        ? await pickSeveral(interrupt.question, interrupt.options, interrupt.free_text === true)
        : await pickOrType(interrupt.question, interrupt.options, interrupt.free_text === true);
      return { type: 'answer', answer };
    }
    if (interrupt.kind === 'order_info') {
      if (interrupt.question) this.renderer.line(bold(interrupt.question));
      if (interrupt.reason) this.renderer.line(yellow(interrupt.reason));
      const answer: Record<string, unknown> = {};
      for (const field of interrupt.fields) {
        const options = interrupt.options?.[field] ?? [];
        const message = FIELD_NAMES[field] ?? field;
        if (options.length) {
          answer[field] = await pickOrType(message, options, true);
          continue;
        }
        const number = NUMBER_FIELDS.includes(field);
        const value = await input({
          message,
          required: field !== 'note',
          validate: (v) => !number || !v.trim() || Number(v) > 0 || '请输入正数 / a positive number',
        });
        if (value.trim()) answer[field] = number ? Number(value) : value.trim();
      }
      return { type: 'answer', answer };
    }
    return undefined;
  }

  private leaveWaiting(interrupt: InterruptData): undefined {
    if (!this.options.json)
      this.renderer.line(
        yellow(
          `等待决定 / waiting for a decision (${interrupt.kind}); 继续 / continue: procura chat --session ${this.sessionId}`,
        ),
      );
    return undefined;
  }

  private async askApproval(
    interrupt: Extract<InterruptData, { kind: 'approval' }>,
  ): Promise<HumanDecision | typeof CANCELLED> {
    this.renderer.line(
      bold(yellow(`需要审批 / approval needed: ${interrupt.label ?? interrupt.tool} (${interrupt.tool})`)),
    );
    this.renderer.line(describeApproval(interrupt));
    // Keys typed before the card was drawn (and just after) were not meant for it.
    if (await discardTypeAhead(process.stdin, PROMPT_GUARD_MS)) return CANCELLED;
    const allowed = new Set(interrupt.allowed ?? ['approve', 'edit', 'reject']);
    const choice = await select<Choice>({
      message: '如何处理？/ Decide',
      choices: [
        { name: '允许一次 / allow once', value: 'once', disabled: !allowed.has('approve') },
        {
          name: `本会话内总是允许 / always allow in this session: ${describeScope(standingScope(interrupt.tool, interrupt.args, interrupt.details), interrupt.details)}`,
          value: 'always',
          disabled: !allowed.has('approve'),
        },
        { name: '修改后允许 / edit', value: 'edit', disabled: !allowed.has('edit') },
        { name: '拒绝 / deny', value: 'deny', disabled: !allowed.has('reject') },
      ],
    });
    if (choice === 'always') this.alwaysAllowed.push(standingScope(interrupt.tool, interrupt.args, interrupt.details));
    if (choice === 'once' || choice === 'always') return { type: 'approve' };
    if (choice === 'deny') {
      const reason = await input({ message: '拒绝原因（可空）/ reason (optional)' });
      return { type: 'reject', ...(reason.trim() ? { reason: reason.trim() } : {}) };
    }
    return { type: 'edit', args: await editArgs(interrupt.args) };
  }
}

/**
 * The approval card as a person reads it, from what the browser's card shows: the supplier, each line's part,
 * quantity, unit price, amount and price check, the total, the ERP approval policy's decision (or why the ERP would
 * refuse the order), then the call's other fields.
 */
function describeApproval(interrupt: Extract<InterruptData, { kind: 'approval' }>): string {
  const args = interrupt.args ?? {};
  const details = interrupt.details;
  // A write whose arguments name no lines (an RFQ award) shows the lines of the ERP's preview.
  const lines: Array<Record<string, unknown>> = Array.isArray(args.lines)
    ? (args.lines as Array<Record<string, unknown>>)
    : (details?.lines ?? [])
        .filter((l) => typeof l.quantity === 'number')
        .map((l) => ({ partId: l.partId, quantity: l.quantity, unitPrice: l.listPrice }));
  const award = details?.award;
  // The supplier is named by the ERP, not by its id.
  const rest = Object.entries(args).filter(([k]) => k !== 'lines' && !(k === 'supplierId' && details?.supplier));
  let sum = 0;
  const shown = lines.map((l, i) => {
    const part = details?.lines?.find((d) => d.partId === l.partId);
    const price = typeof l.unitPrice === 'number' ? l.unitPrice : part?.listPrice;
    const check = part?.priceCheck && part.priceCheck.unitPrice === price ? part.priceCheck : undefined;
    const amount = price !== undefined && typeof l.quantity === 'number' ? price * l.quantity : undefined;
    sum += amount ?? 0;
    return [
      `  ${i + 1}. ${part ? `${part.code} ${bothNames(part.name, part.nameEn)}` : `part ${String(l.partId ?? l.code ?? '?')}`}`,
      ` × ${String(l.quantity ?? '?')}${part?.unit ?? ''}`,
      price !== undefined ? ` @ ¥${price}` : '',
      amount !== undefined ? ` = ${formatYuan(amount)}` : '',
      check ? `  [${priceCheckText(check)}]` : '',
    ].join('');
  });
  const preview = details?.preview;
  const total = preview && 'totalAmount' in preview ? preview.totalAmount : sum;
  return [
    ...(details?.supplier ? [`  供应商 / supplier: ${bothNames(details.supplier, details.supplierEn)}`] : []),
    ...(details?.order ? [`  订单 / order: ${details.order.orderNo} (${details.order.status})`] : []),
    ...(award
      ? [
          `  询价单 / RFQ: ${award.rfqNo}${award.closes ? '（先截止 / closes it first）' : ''} · ${
            award.rank === null ? '未排名 / not ranked' : `排名 / rank ${award.rank}/${award.ranked}`
          }`,
          ...award.why.map((why) => `    - ${why}`),
        ]
      : []),
    ...shown,
    ...(lines.length ? [bold(`  合计 / total: ${formatYuan(total)}`)] : []),
    ...(preview ? [`  审批策略 / approval policy: ${policyText(preview, args.submit === true)}`] : []),
    ...rest.map(([k, v]) => `  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`),
  ].join('\n');
}

/** A name from the ERP in Chinese, then in English when the ERP has another one: the terminal shows both languages. */
const bothNames = (zh: string, en?: string) => (en && en !== zh ? `${zh} / ${en}` : zh);

/** The order fields as the card names them. */
const FIELD_NAMES: Record<string, string> = {
  supplier: '供应商 / supplier',
  part: '零部件 / part',
  quantity: '数量 / quantity',
  unitPrice: '单价 / unit price',
  expectedDate: '到货日期 YYYY-MM-DD / delivery date',
  note: '备注（可空）/ note (optional)',
};

/** The value of the "Other (type it)" choice: no option's value looks like it. */
const TYPE_IT: unique symbol = Symbol('type it');

/** Asks for the typed answer once "Other (type it)" is chosen: not empty, within the card's length. */
async function typedAnswer(): Promise<FreeText> {
  const text = await input({
    message: FREE_TEXT_CHOICE.label,
    required: true,
    validate: (v) =>
      (v.trim().length > 0 && v.trim().length <= FREE_TEXT_CHOICE.maxLength) ||
      `1–${FREE_TEXT_CHOICE.maxLength} 个字 / characters`,
  });
  return { free_text: text.trim() };
}

/** The options numbered (a digit key moves to one, Enter takes it), "Other (type it)" last when typing is allowed. */
function numbered(options: ChoiceOption[], freeText: boolean) {
  const shown = options.slice(0, 8);
  return [
    ...shown.map((o, i): { name: string; value: string | typeof TYPE_IT } => ({
      name: `${i + 1}. ${o.label}`,
      value: o.value,
    })),
    ...(freeText
      ? [{ name: `${shown.length + 1}. ${FREE_TEXT_CHOICE.label}`, value: TYPE_IT as string | typeof TYPE_IT }]
      : []),
  ];
}

/** One option's value, or what was typed in place of one. */
async function pickOrType(message: string, options: ChoiceOption[], freeText: boolean): Promise<string | FreeText> {
  const picked = await select({ message, choices: numbered(options, freeText) });
  return picked === TYPE_IT ? typedAnswer() : picked;
}

/** Several options' values, or — when "Other (type it)" is among them — what was typed instead. */
async function pickSeveral(message: string, options: ChoiceOption[], freeText: boolean): Promise<string[] | FreeText> {
  const picked = await checkbox({ message, choices: numbered(options, freeText), required: true });
  return picked.includes(TYPE_IT) ? typedAnswer() : (picked as string[]);
}

/** The ERP policy's decision on the previewed order: what happens on submission, or why the ERP would refuse it. */
function policyText(preview: NonNullable<NonNullable<Approval['details']>['preview']>, submit: boolean): string {
  if ('refused' in preview) return red(`ERP 将拒绝 / the ERP would refuse: ${preview.refused}`);
  const { rule, reason } = preview.approval;
  const decided = rule === 'auto-approved' ? green(reason) : yellow(reason);
  return submit ? decided : `草稿，不提交审批；提交时 / a draft, not submitted; on submission: ${decided}`;
}

type Approval = Extract<InterruptData, { kind: 'approval' }>;
type PriceCheckOf = NonNullable<NonNullable<NonNullable<Approval['details']>['lines']>[number]['priceCheck']>;
const SEVERITY_TEXT: Record<PriceCheckOf['severity'], string> = {
  ok: '价格正常 / ok',
  info: '略高 / info',
  warn: '偏高 / warn',
  critical: '严重偏高 / critical',
  unknown: '历史不足 / unknown',
};

function priceCheckText(check: PriceCheckOf): string {
  const text = SEVERITY_TEXT[check.severity];
  if (check.deviationPct === null || check.median12m === null) return text;
  const sign = check.deviationPct > 0 ? '+' : '';
  const line = `${text} ${sign}${check.deviationPct}% vs 12 个月中位价 / 12-month median ¥${check.median12m}`;
  return check.severity === 'warn' || check.severity === 'critical' ? red(line) : line;
}

/** Edits an order's quantities, prices and date field by field; other tools' arguments as JSON. */
async function editArgs(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!Array.isArray(args.lines)) {
    const text = await input({
      message: '参数 JSON / arguments JSON',
      default: JSON.stringify(args),
      validate: (v) => {
        try {
          return typeof JSON.parse(v) === 'object' || 'JSON object';
        } catch {
          return '不是有效的 JSON / not valid JSON';
        }
      },
    });
    return JSON.parse(text);
  }
  const lines = [];
  for (const [i, line] of (args.lines as Array<Record<string, unknown>>).entries()) {
    const quantity = await input({
      message: `第 ${i + 1} 行数量 / line ${i + 1} quantity`,
      default: String(line.quantity ?? ''),
      validate: (v) => /^\d+$/.test(v.trim()) || '请输入正整数 / a positive integer',
    });
    const price = await input({
      message: `第 ${i + 1} 行单价（空 = ERP 价）/ unit price (empty = ERP price)`,
      default: line.unitPrice === undefined ? '' : String(line.unitPrice),
      validate: (v) => v.trim() === '' || Number(v) >= 0 || '请输入数字 / a number',
    });
    const { unitPrice: _previous, ...kept } = line;
    lines.push({ ...kept, quantity: Number(quantity), ...(price.trim() ? { unitPrice: Number(price) } : {}) });
  }
  const date = await input({
    message: '到货日期 YYYY-MM-DD（可空）/ delivery date (optional)',
    default: typeof args.expectedDate === 'string' ? args.expectedDate : '',
    validate: (v) => v.trim() === '' || /^\d{4}-\d{2}-\d{2}$/.test(v.trim()) || 'YYYY-MM-DD',
  });
  const { expectedDate: _date, ...rest } = args;
  return { ...rest, lines, ...(date.trim() ? { expectedDate: date.trim() } : {}) };
}
