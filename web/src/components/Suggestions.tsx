import { useContext } from 'react';
import type { AgentSuggestions } from '../../../src/protocol/index.ts';
import { LangContext } from '../i18n.ts';

/** Example requests as buttons: one click sends the request and starts the flow it names. */
export function Suggestions({
  items,
  disabled,
  onSend,
  compact = false,
}: {
  items: AgentSuggestions['suggestions'];
  disabled: boolean;
  onSend: (message: string) => void;
  compact?: boolean;
}) {
  const lang = useContext(LangContext);
  if (!items.length) return null;
  return (
    <div className={`examples ${compact ? 'examples-compact' : ''}`} data-testid="suggestions">
      {items.map((s) => {
        const text = lang === 'en' ? s.textEn : s.text;
        return (
          <button
            key={s.text}
            type="button"
            className="chip"
            data-testid="suggestion"
            data-flow={s.flow}
            disabled={disabled}
            onClick={() => onSend(text)}
          >
            {text}
          </button>
        );
      })}
    </div>
  );
}
