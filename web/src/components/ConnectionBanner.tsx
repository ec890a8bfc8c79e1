import { useEffect, useState } from 'react';
import { useT } from '../i18n.ts';
import type { Reconnecting } from '../useChat.ts';

/**
 * The one banner of a run whose stream was lost: it says that Procura reconnects by itself, which attempt comes
 * next and in how many seconds, and offers to try at once.
 */
export function ConnectionBanner({ state, onRetry }: { state: Reconnecting; onRetry: () => void }) {
  const t = useT();
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.ceil((state.at - now) / 1000));
  return (
    <div className="banner banner-warn banner-connection" role="status" data-testid="connection-banner">
      <span>
        {t('connectionLost')}{' '}
        <span className="muted" data-testid="reconnect-attempt">
          {(seconds > 0 ? t('reconnectIn') : t('reconnectNowTrying'))
            .replace('{n}', String(state.attempt))
            .replace('{s}', String(seconds))}
        </span>
      </span>
      <button type="button" className="btn btn-small" data-testid="reconnect-now" onClick={onRetry}>
        ↻ {t('retry')}
      </button>
    </div>
  );
}
