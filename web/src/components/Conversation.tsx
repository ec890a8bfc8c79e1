import { useEffect, useRef, useState } from 'react';
import type {
  AgentSuggestions,
  DecisionRecord,
  HumanDecision,
  OrderDecisionData,
} from '../../../src/protocol/index.ts';
import { useT } from '../i18n.ts';
import { type Message, type SessionView, type TableItem, withChartRefs } from '../session.ts';
import type { useStandingPermissions } from '../useStanding.ts';
import { ChartGallery, chartLabel } from './Charts.tsx';
import { InterruptCard } from './InterruptCard.tsx';
import { Markdown } from './Markdown.tsx';
import { Suggestions } from './Suggestions.tsx';
import { formatUsage } from './UsagePanel.tsx';

function Table({ table }: { table: TableItem }) {
  return (
    <div className="table-wrap">
      {table.title && <h4>{table.title}</h4>}
      <table className="table">
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are shown as given
            <tr key={i}>
              {row.map((cell, j) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: cells are positional
                <td key={j}>{cell === null ? '—' : String(cell)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An admin's decision on the order this conversation drafted: who, when, and their comment. */
function OrderDecisionNotice({ decision }: { decision: OrderDecisionData }) {
  const t = useT();
  const approved = decision.decision === 'approved';
  const title = t(approved ? 'orderApprovedBy' : 'orderRejectedBy')
    .replace('{order}', decision.order_no)
    .replace('{by}', decision.decided_by);
  return (
    <div
      className={`decision-notice ${approved ? 'decision-approved' : 'decision-rejected'}`}
      data-testid="order-decision"
      data-decision={decision.decision}
      data-order-no={decision.order_no}
      role="status"
    >
      <strong>
        {approved ? '✓' : '↩'} {title}
        {decision.comment ? `${t('colon')}${decision.comment}` : ''}
      </strong>
      <time className="muted" dateTime={decision.decided_at}>
        {new Date(decision.decided_at).toLocaleString()}
      </time>
    </div>
  );
}

/** A changed field as a person reads it: `lines[1].quantity` is the quantity of line 1. */
function fieldLabel(field: string, t: (key: string) => string): string {
  const line = /^lines\[(\d+)\]\.(\w+)$/.exec(field);
  if (line) return `${t('lineN').replace('{n}', line[1])} ${t(line[2])}`;
  return t(field);
}

const shownValue = (v: unknown) =>
  v === null || v === undefined || v === '' ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** A decided card, collapsed into a line of the transcript: approved, edited (what changed), rejected, answered. */
function DecisionRecordLine({ record }: { record: DecisionRecord }) {
  const t = useT();
  const mark = { approved: '✓', edited: '✎', rejected: '✕', answered: '↳' }[record.outcome];
  return (
    <div
      className={`decision-record decision-record-${record.outcome}`}
      data-testid="decision-record"
      data-outcome={record.outcome}
      role="note"
    >
      <strong>
        {mark} {t(`outcome_${record.outcome}`)}
        {t('colon')}
      </strong>
      <span>{record.subject}</span>
      {record.changes?.map((c) => (
        <span key={c.field} className="decision-change" data-field={c.field}>
          {fieldLabel(c.field, t)} {shownValue(c.from)} → {shownValue(c.to)}
        </span>
      ))}
      {record.comment && (
        <span className="decision-comment">
          {t('rejectReasonShort')}
          {t('colon')}
          {record.comment}
        </span>
      )}
      {record.answer && <span className="decision-answer">{record.answer}</span>}
    </div>
  );
}

/** A message worth a bubble: an assistant turn that said nothing and drew nothing is left out. */
const shown = (m: Message) =>
  m.role !== 'assistant' || m.content.trim() !== '' || m.charts.length > 0 || m.tables.length > 0;

/** Messages, the pending decision card, and the composer with Send / Stop. */
export function Conversation({
  view,
  busy,
  stopping,
  suggestions,
  onSend,
  onResend,
  onStop,
  onDecide,
  standing,
  onRetry,
  refused,
}: {
  view: SessionView;
  busy: boolean;
  /** A message the server refused because another tab's run was active: back in the composer, and said why. */
  refused?: { message: string };
  /** Requests built from the user's catalogue: on an empty conversation, and always while the model is offline. */
  suggestions?: AgentSuggestions;
  stopping: boolean;
  onSend: (message: string) => void;
  /** Sends a message that never reached the server again. */
  onResend: (messageId: string) => void;
  onStop: () => void;
  onDecide: (interruptId: string, decision: HumanDecision) => void;
  /** The session's standing permissions: granted from an approval card, listed and revocable here. */
  standing: ReturnType<typeof useStandingPermissions>;
  /** Takes a stopped run up again where it stopped. */
  onRetry: () => void;
}) {
  const t = useT();
  const [draft, setDraft] = useState('');
  const bottom = useRef<HTMLDivElement>(null);
  const lastLength = view.messages.at(-1)?.content.length ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow the stream as it grows
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [view.messages.length, lastLength, view.pending.length]);
  /** Why the last Enter sent nothing (a run works, or a card waits): said next to the composer, the draft kept. */
  const [unsendable, setUnsendable] = useState<'sendWhileRunning' | 'sendWhileWaiting'>();
  const send = () => {
    const text = draft.trim();
    if (!text) return;
    if (busy || view.running || view.pending.length > 0) {
      setUnsendable(view.pending.length > 0 ? 'sendWhileWaiting' : 'sendWhileRunning');
      return;
    }
    setUnsendable(undefined);
    onSend(text);
    setDraft('');
  };
  const idle = !busy && !view.running && view.pending.length === 0;
  useEffect(() => {
    if (idle) setUnsendable(undefined);
  }, [idle]);
  // The refused message comes back to the composer (unless something new was typed since).
  useEffect(() => {
    if (refused) setDraft((d) => d || refused.message);
  }, [refused]);
  // A card that appears takes the focus, so keyboard and screen-reader users land on the decision it asks for.
  const firstPending = view.pending[0]?.interrupt_id;
  useEffect(() => {
    if (!firstPending) return;
    document.querySelector<HTMLElement>(`[data-pending="${CSS.escape(firstPending)}"]`)?.focus();
  }, [firstPending]);
  const last = view.messages.at(-1);
  const waiting = view.running && (last?.role === 'user' || !last?.content);
  return (
    <div className="conversation">
      {/* A log: screen readers announce answers and notices as they are added. */}
      <div className="messages" data-testid="messages" role="log" aria-label={t('conversation')}>
        {view.messages.length === 0 && (
          <div className="empty">
            <h2>{t('emptyTitle')}</h2>
            <p className="muted">{t('emptyHint')}</p>
            <Suggestions items={suggestions?.suggestions ?? []} disabled={busy} onSend={onSend} />
          </div>
        )}
        {view.messages.filter(shown).map((m) =>
          m.role === 'notice' && m.decision ? (
            <OrderDecisionNotice key={m.id} decision={m.decision} />
          ) : m.role === 'decision' && m.record ? (
            <DecisionRecordLine key={m.id} record={m.record} />
          ) : (
            <article key={m.id} className={`message message-${m.role}`} data-testid={`message-${m.role}`}>
              {m.role === 'user' ? (
                <p className="user-text">{m.content}</p>
              ) : (
                <Markdown text={withChartRefs(m.content, m.charts, (n) => chartLabel(t, n))} />
              )}
              {m.unsent && (
                <p className="unsent" data-testid="unsent">
                  ⚠ {t('unsent')}
                  <button
                    type="button"
                    className="link"
                    data-testid="resend"
                    disabled={busy}
                    onClick={() => onResend(m.id)}
                  >
                    ↻ {t('resend')}
                  </button>
                </p>
              )}
              {m.tables.map((table, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: tables arrive in order and never move
                <Table key={i} table={table} />
              ))}
              <ChartGallery charts={m.charts} />
              {m.usage && m.usage.input_tokens + m.usage.output_tokens > 0 && (
                <p className="usage-line" data-testid="answer-usage" title={t('answerCost')}>
                  {formatUsage(m.usage, t)}
                </p>
              )}
            </article>
          ),
        )}
        {waiting && (
          <div className="message message-assistant typing" aria-live="polite">
            <span className="spinner" /> {t('running')}…
          </div>
        )}
        {view.stopped && (
          <p className="stopped" data-testid="stopped">
            ■ {t('stopped')}
            {view.retryable && !view.running && (
              <button type="button" className="link" data-testid="retry-stopped" onClick={onRetry}>
                ↻ {t('retry')}
              </button>
            )}
          </p>
        )}
        <div className="pending-cards" aria-live="assertive">
          {view.pending.map((interrupt) => (
            <section
              key={interrupt.interrupt_id}
              className="pending-card"
              data-pending={interrupt.interrupt_id}
              tabIndex={-1}
              aria-label={t('decisionNeeded')}
            >
              <InterruptCard
                interrupt={interrupt}
                busy={busy}
                onDecide={(decision) => onDecide(interrupt.interrupt_id, decision)}
                onAlwaysAllow={interrupt.kind === 'approval' ? () => standing.allowAlways(interrupt) : undefined}
              />
            </section>
          ))}
        </div>
        <div ref={bottom} />
      </div>
      {view.messages.length > 0 && suggestions?.offline && (
        <Suggestions
          items={suggestions.suggestions}
          disabled={busy || view.running || view.pending.length > 0}
          onSend={onSend}
          compact
        />
      )}
      {standing.permissions.length > 0 && (
        <div className="standing" data-testid="standing-permissions">
          <span className="muted">{t('standingPermissions')}</span>
          {standing.permissions.map((p) => (
            <span key={p.key} className="chip standing-chip" data-tool={p.scope.tool} title={p.text}>
              {p.label} · {p.text}
              <button
                type="button"
                className="link"
                aria-label={`${t('revoke')} ${p.label}`}
                data-testid="revoke-permission"
                onClick={() => standing.revoke(p.key)}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      {(unsendable || refused) && (
        <p className="composer-hint" role="alert" data-testid="composer-hint">
          ⚠ {t(unsendable ?? 'runningElsewhere')}
        </p>
      )}
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <textarea
          data-testid="composer"
          value={draft}
          rows={2}
          maxLength={8000}
          placeholder={t('composerPlaceholder')}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        {view.running ? (
          <button type="button" className="btn btn-danger" data-testid="stop" disabled={stopping} onClick={onStop}>
            {stopping ? t('stopping') : `■ ${t('stop')}`}
          </button>
        ) : (
          <button
            type="submit"
            className="btn btn-primary"
            data-testid="send"
            disabled={busy || !draft.trim() || view.pending.length > 0}
          >
            {t('send')}
          </button>
        )}
      </form>
    </div>
  );
}
