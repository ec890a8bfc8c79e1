import type { ReactNode } from 'react';
import { useT } from '../i18n.ts';

/** A panel over the conversation (usage, schedules): its title, a close link, and the error of its last action. */
export function Panel({
  title,
  testId,
  error,
  onClose,
  children,
}: {
  title: string;
  testId: string;
  error?: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const t = useT();
  return (
    <div className="usage-panel" data-testid={testId}>
      <div className="usage-head">
        <h3>{title}</h3>
        <button type="button" className="link" onClick={onClose}>
          {t('close')}
        </button>
      </div>
      {error && <p className="banner banner-error">{error}</p>}
      {children}
    </div>
  );
}
