import { useState } from 'react';
import type { ChoiceOption, HumanDecision, InterruptData } from '../../../src/protocol/index.ts';
import { useT } from '../i18n.ts';
import { ApprovalCard } from './ApprovalCard.tsx';

/** What each kind of card is given: its interrupt, whether a decision is on its way, and where decisions go. */
interface CardProps<K extends InterruptData['kind']> {
  interrupt: Extract<InterruptData, { kind: K }>;
  busy: boolean;
  onDecide: (decision: HumanDecision) => void;
}

/** The human decision a paused run waits for: approval of a write, a choice, or missing order fields. */
export function InterruptCard({
  interrupt,
  busy,
  onDecide,
  onAlwaysAllow,
}: {
  interrupt: InterruptData;
  busy: boolean;
  onDecide: (decision: HumanDecision) => void;
  /** Approves this call and every later call of the same tool in the session. */
  onAlwaysAllow?: () => void;
}) {
  if (interrupt.kind === 'approval')
    return <ApprovalCard interrupt={interrupt} busy={busy} onDecide={onDecide} onAlwaysAllow={onAlwaysAllow} />;
  if (interrupt.kind === 'ask_user') return <AskUserCard interrupt={interrupt} busy={busy} onDecide={onDecide} />;
  if (interrupt.kind === 'order_info') return <OrderInfoCard interrupt={interrupt} busy={busy} onDecide={onDecide} />;
  return null;
}

function AskUserCard({ interrupt, busy, onDecide }: CardProps<'ask_user'>) {
  const t = useT();
  const [chosen, setChosen] = useState<string[]>([]);
  const options: ChoiceOption[] = (interrupt.options ?? []).slice(0, 8);
  return (
    <section className="card interrupt-card" data-testid="ask-card" data-interrupt={interrupt.interrupt_id}>
      <header className="card-head">
        <span className="badge badge-info">{t('askTitle')}</span>
        <strong>{interrupt.question}</strong>
      </header>
      <div className="options">
        {options.map((o) =>
          interrupt.multiple ? (
            <label key={o.value} className={`option ${chosen.includes(o.value) ? 'selected' : ''}`}>
              <input
                type="checkbox"
                checked={chosen.includes(o.value)}
                onChange={(e) =>
                  setChosen((c) => (e.target.checked ? [...c, o.value] : c.filter((v) => v !== o.value)))
                }
              />
              {o.label}
            </label>
          ) : (
            <button
              key={o.value}
              type="button"
              className="btn option"
              disabled={busy}
              onClick={() => onDecide({ type: 'answer', answer: o.value })}
            >
              {o.label}
            </button>
          ),
        )}
      </div>
      {interrupt.multiple && (
        <footer className="card-actions">
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy || chosen.length === 0}
            onClick={() => onDecide({ type: 'answer', answer: chosen })}
          >
            {t('submit')}
          </button>
        </footer>
      )}
    </section>
  );
}

const FIELD_INPUT: Record<string, string> = { quantity: 'number', unitPrice: 'number', expectedDate: 'date' };

function OrderInfoCard({ interrupt, busy, onDecide }: CardProps<'order_info'>) {
  const t = useT();
  const [values, setValues] = useState<Record<string, string>>({});
  const fields = interrupt.fields ?? [];
  const complete = fields.every((f) => f === 'note' || (values[f] ?? '').trim());
  return (
    <form
      className="card interrupt-card"
      data-testid="order-info-card"
      data-interrupt={interrupt.interrupt_id}
      onSubmit={(e) => {
        e.preventDefault();
        const answer = Object.fromEntries(
          Object.entries(values)
            .filter(([, v]) => v.trim())
            .map(([k, v]) => [k, FIELD_INPUT[k] === 'number' ? Number(v) : v.trim()]),
        );
        onDecide({ type: 'answer', answer });
      }}
    >
      <header className="card-head">
        <span className="badge badge-info">{t('orderInfoTitle')}</span>
        {interrupt.reason && <span className="muted">{interrupt.reason}</span>}
      </header>
      <div className="form-grid">
        {fields.map((field) => (
          <label key={field}>
            <span>{t(field)}</span>
            <input
              type={FIELD_INPUT[field] ?? 'text'}
              value={values[field] ?? ''}
              onChange={(e) => setValues((v) => ({ ...v, [field]: e.target.value }))}
            />
          </label>
        ))}
      </div>
      <footer className="card-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !complete}>
          {t('submit')}
        </button>
      </footer>
    </form>
  );
}
