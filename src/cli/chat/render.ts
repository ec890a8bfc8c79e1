import type { ChatEvent, OrderDecisionData, ProgressData } from '../../protocol/index.ts';

const AGENT_SHORT: Record<string, string> = {
  orchestrator: '主',
  'procurement-analyst': '分析',
  'procurement-order': '下单',
  'procurement-sourcing': '询价',
};

const color = (code: number) => (text: string) => (process.stdout.isTTY ? `\x1b[${code}m${text}\x1b[0m` : text);
export const dim = color(2);
export const green = color(32);
export const red = color(31);
export const yellow = color(33);
export const bold = color(1);

/**
 * Writes a run to the terminal: answer tokens as they stream, and a compact step list — one line per finished
 * step (✓/✕, agent, title, duration) plus, on a TTY, a live status line naming the steps still running.
 */
export class TerminalRenderer {
  private readonly started = new Map<string, number>();
  private readonly running = new Map<string, ProgressData>();
  private statusShown = false;
  private midLine = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {}

  event(event: ChatEvent): void {
    const data = event.data as Record<string, unknown>;
    switch (event.event) {
      case 'token':
        this.clearStatus();
        this.write(String(data.content ?? ''));
        break;
      case 'progress':
        this.progress(data as unknown as ProgressData);
        break;
      case 'tool_call':
        this.line(dim(`  ▸ ${String(data.tool)} ${String((data.params as { title?: string })?.title ?? '')}`));
        break;
      case 'order_decision':
        this.line(decisionLine(data as unknown as OrderDecisionData));
        break;
      case 'error':
        this.line(red(`✕ ${String(data.message ?? 'error')}${data.detail ? ` — ${String(data.detail)}` : ''}`));
        break;
      case 'done':
        this.running.clear();
        this.clearStatus();
        if (this.midLine) this.write('\n');
        if (data.status === 'cancelled') this.line(yellow('■ 已停止 / stopped'));
        break;
    }
  }

  private progress(step: ProgressData): void {
    if (step.phase === 'run' || !step.id) return;
    if (step.status === 'running') {
      if (!this.started.has(step.id)) this.started.set(step.id, Date.now());
      this.running.set(step.id, step);
      this.showStatus();
      return;
    }
    this.running.delete(step.id);
    const ms = Date.now() - (this.started.get(step.id) ?? Date.now());
    const mark = step.status === 'completed' ? green('✓') : red('✕');
    const agent = AGENT_SHORT[step.agent ?? ''] ?? step.agent ?? '';
    this.line(`  ${mark} ${dim(`[${agent}]`)} ${step.title} ${dim(seconds(ms))}`);
    this.showStatus();
  }

  /** Prints a full line, keeping streamed text and the status line intact. */
  line(text: string): void {
    this.clearStatus();
    if (this.midLine) this.write('\n');
    this.write(`${text}\n`);
  }

  private write(text: string): void {
    if (!text) return;
    this.out.write(text);
    this.midLine = !text.endsWith('\n');
  }

  private showStatus(): void {
    if (!this.out.isTTY || this.midLine) return;
    this.clearStatus();
    const steps = [...this.running.values()];
    if (!steps.length) return;
    const names = steps.map((s) => s.title).join(' · ');
    // Chinese takes two columns: cutting at half the width keeps the line from wrapping (which \r cannot clear).
    const width = Math.max(20, Math.floor(((this.out.columns || 80) - 4) / 2));
    this.out.write(dim(`  … ${names}`.slice(0, width)));
    this.statusShown = true;
  }

  clearStatus(): void {
    if (!this.statusShown) return;
    this.out.write('\r\x1b[2K');
    this.statusShown = false;
  }
}

/** An admin's decision on the conversation's order, in one line: who, which order, their comment, when. */
export function decisionLine(d: OrderDecisionData): string {
  const head =
    d.decision === 'approved'
      ? green(`✓ 管理员 ${d.decided_by} 已批准订单 ${d.order_no} / Order ${d.order_no} approved by ${d.decided_by}`)
      : yellow(`↩ 管理员 ${d.decided_by} 已退回订单 ${d.order_no} / Order ${d.order_no} returned by ${d.decided_by}`);
  return `${head}${d.comment ? `: ${d.comment}` : ''} ${dim(d.decided_at)}`;
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}
