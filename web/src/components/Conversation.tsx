import { useEffect, useRef, useState } from 'react';
import { useT } from '../i18n.ts';
import type { Decision } from '../protocol.ts';
import type { SessionView, TableItem } from '../session.ts';
import { ChartGallery } from './Charts.tsx';
import { InterruptCard } from './InterruptCard.tsx';
import { Markdown } from './Markdown.tsx';
import { formatUsage } from './UsagePanel.tsx';

const EXAMPLES = [
  '帮我对摩托车火花塞做供应商比价分析',
  '查看低于安全库存的零部件',
  '给博世下 200 个 F7TC 火花塞的采购单',
];

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

/** Messages, the pending decision card, and the composer with Send / Stop. */
export function Conversation({
  view,
  busy,
  stopping,
  onSend,
  onStop,
  onDecide,
  onRetry,
}: {
  view: SessionView;
  busy: boolean;
  stopping: boolean;
  onSend: (message: string) => void;
  onStop: () => void;
  onDecide: (interruptId: string, decision: Decision) => void;
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
  const send = () => {
    const text = draft.trim();
    if (!text || busy) return;
    onSend(text);
    setDraft('');
  };
  const last = view.messages.at(-1);
  const waiting = view.running && (last?.role === 'user' || !last?.content);
  return (
    <div className="conversation">
      <div className="messages" data-testid="messages">
        {view.messages.length === 0 && (
          <div className="empty">
            <h2>{t('emptyTitle')}</h2>
            <p className="muted">{t('emptyHint')}</p>
            <div className="examples">
              {EXAMPLES.map((e) => (
                <button key={e} type="button" className="chip" onClick={() => setDraft(e)}>
                  {e}
                </button>
              ))}
            </div>
          </div>
        )}
        {view.messages.map((m) => (
          <article key={m.id} className={`message message-${m.role}`} data-testid={`message-${m.role}`}>
            {m.role === 'user' ? <p className="user-text">{m.content}</p> : <Markdown text={m.content} />}
            {m.tables.map((table, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: tables arrive in order and never move
              <Table key={i} table={table} />
            ))}
            <ChartGallery charts={m.charts} />
            {m.usage && (
              <p className="usage-line" data-testid="answer-usage" title={t('answerCost')}>
                {formatUsage(m.usage, t)}
              </p>
            )}
          </article>
        ))}
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
        {view.pending.map((interrupt) => (
          <InterruptCard
            key={interrupt.interrupt_id}
            interrupt={interrupt}
            busy={busy}
            onDecide={(decision) => onDecide(interrupt.interrupt_id, decision)}
          />
        ))}
        <div ref={bottom} />
      </div>
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
