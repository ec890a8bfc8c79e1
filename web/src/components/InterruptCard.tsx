import { useContext, useState } from 'react';
import {
  type ChoiceOption,
  FREE_TEXT_CHOICE,
  type HumanDecision,
  type InterruptData,
} from '../../../src/protocol/index.ts';
import { LangContext, useT } from '../i18n.ts';
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

/** "Other (type it)" in the page's language: the half of the shared label (Chinese first, then English). */
function useOtherLabel(): string {
  const lang = useContext(LangContext);
  const [zh, en] = FREE_TEXT_CHOICE.label.split(' / ');
  return lang === 'en' ? (en ?? zh) : zh;
}

/** The box a typed answer goes in once "Other (type it)" is chosen; it takes the focus. */
function TypedInput({
  label,
  value,
  type = 'text',
  onChange,
}: {
  label: string;
  value: string;
  type?: string;
  onChange: (text: string) => void;
}) {
  return (
    <input
      className="typed-answer"
      data-testid="free-text-input"
      type={type}
      aria-label={label}
      maxLength={FREE_TEXT_CHOICE.maxLength}
      value={value}
      // biome-ignore lint/a11y/noAutofocus: the person just chose to type; the box they asked for takes the focus.
      autoFocus
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** The last choice of every option list: "Other (type it)", pressed while its box is open. */
function OtherChoice({
  label,
  typing,
  busy,
  onClick,
}: {
  label: string;
  typing: boolean;
  busy: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className={`btn option option-other ${typing ? 'selected' : ''}`}
      data-testid="free-text-choice"
      aria-pressed={typing}
      disabled={busy}
      onClick={onClick}
    >
      {label}
    </button>
  );
}

function AskUserCard({ interrupt, busy, onDecide }: CardProps<'ask_user'>) {
  const t = useT();
  const other = useOtherLabel();
  const [chosen, setChosen] = useState<string[]>([]);
  const [typing, setTyping] = useState(false);
  const [typed, setTyped] = useState('');
  const options: ChoiceOption[] = (interrupt.options ?? []).slice(0, 8);
  const typedAnswer = typed.trim();
  return (
    <form
      className="card interrupt-card"
      data-testid="ask-card"
      data-interrupt={interrupt.interrupt_id}
      onSubmit={(e) => {
        e.preventDefault();
        if (typing && typedAnswer) onDecide({ type: 'answer', answer: { free_text: typedAnswer } });
        else if (interrupt.multiple && chosen.length) onDecide({ type: 'answer', answer: chosen });
      }}
    >
      <header className="card-head">
        <span className="badge badge-info">{t('askTitle')}</span>
        <strong>{interrupt.question}</strong>
      </header>
      <div className="options" data-testid="ask-options">
        {options.map((o) =>
          interrupt.multiple ? (
            <label key={o.value} className={`option ${chosen.includes(o.value) ? 'selected' : ''}`}>
              <input
                type="checkbox"
                checked={chosen.includes(o.value)}
                disabled={typing}
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
        {interrupt.free_text && (
          <OtherChoice label={other} typing={typing} busy={busy} onClick={() => setTyping((v) => !v)} />
        )}
      </div>
      {typing && <TypedInput label={other} value={typed} onChange={setTyped} />}
      {(interrupt.multiple || typing) && (
        <footer className="card-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={busy || (typing ? !typedAnswer : chosen.length === 0)}
          >
            {t('submit')}
          </button>
        </footer>
      )}
    </form>
  );
}

const FIELD_INPUT: Record<string, string> = { quantity: 'number', unitPrice: 'number', expectedDate: 'date' };

/** One field's choice on the order card: an offered value, or "Other" with what was typed. */
type FieldChoice = { value: string } | { typed: string };

/** A field the ERP offered candidates for: one button per option (pressed when chosen), then "Other (type it)". */
function ChoiceField({
  field,
  options,
  choice,
  busy,
  onChange,
}: {
  field: string;
  options: ChoiceOption[];
  choice?: FieldChoice;
  busy: boolean;
  onChange: (choice: FieldChoice) => void;
}) {
  const t = useT();
  const other = useOtherLabel();
  const typing = choice !== undefined && 'typed' in choice;
  return (
    <fieldset className="choice-field" data-testid={`choice-${field}`}>
      <legend>{t(field)}</legend>
      <div className="options">
        {options.slice(0, 8).map((o) => (
          <button
            key={o.value}
            type="button"
            className={`btn option ${choice && 'value' in choice && choice.value === o.value ? 'selected' : ''}`}
            aria-pressed={choice !== undefined && 'value' in choice && choice.value === o.value}
            disabled={busy}
            onClick={() => onChange({ value: o.value })}
          >
            {o.label}
          </button>
        ))}
        <OtherChoice
          label={other}
          typing={typing}
          busy={busy}
          onClick={() => onChange({ typed: typing ? choice.typed : '' })}
        />
      </div>
      {typing && (
        <TypedInput
          label={`${t(field)} — ${other}`}
          type={FIELD_INPUT[field] === 'number' ? 'number' : 'text'}
          value={choice.typed}
          onChange={(typed) => onChange({ typed })}
        />
      )}
    </fieldset>
  );
}

function OrderInfoCard({ interrupt, busy, onDecide }: CardProps<'order_info'>) {
  const t = useT();
  const [values, setValues] = useState<Record<string, string>>({});
  const [choices, setChoices] = useState<Record<string, FieldChoice>>({});
  const fields = interrupt.fields ?? [];
  const optionsOf = (field: string) => interrupt.options?.[field] ?? [];
  const given = (field: string) => {
    if (!optionsOf(field).length) return Boolean((values[field] ?? '').trim());
    const c = choices[field];
    return c !== undefined && ('value' in c || Boolean(c.typed.trim()));
  };
  const complete = fields.every((f) => f === 'note' || given(f));
  return (
    <form
      className="card interrupt-card"
      data-testid="order-info-card"
      data-interrupt={interrupt.interrupt_id}
      onSubmit={(e) => {
        e.preventDefault();
        const answer: Record<string, unknown> = {};
        for (const field of fields) {
          const c = choices[field];
          if (optionsOf(field).length && c) {
            if ('value' in c) answer[field] = c.value;
            else if (c.typed.trim()) answer[field] = { free_text: c.typed.trim() };
            continue;
          }
          const v = (values[field] ?? '').trim();
          if (v) answer[field] = FIELD_INPUT[field] === 'number' ? Number(v) : v;
        }
        onDecide({ type: 'answer', answer });
      }}
    >
      <header className="card-head">
        <span className="badge badge-info">{t('orderInfoTitle')}</span>
        {interrupt.question && <strong>{interrupt.question}</strong>}
        {interrupt.reason && <span className="muted">{interrupt.reason}</span>}
      </header>
      {fields
        .filter((f) => optionsOf(f).length)
        .map((field) => (
          <ChoiceField
            key={field}
            field={field}
            options={optionsOf(field)}
            choice={choices[field]}
            busy={busy}
            onChange={(c) => setChoices((all) => ({ ...all, [field]: c }))}
          />
        ))}
      <div className="form-grid">
        {fields
          .filter((f) => !optionsOf(f).length)
          .map((field) => (
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
