import { useState } from 'react';
import type { SessionSummary } from '../../../src/protocol/index.ts';
import { useT } from '../i18n.ts';

function when(iso?: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: '2-digit', day: '2-digit' });
}

function Icon({ path }: { path: string }) {
  return (
    <svg width="15" height="15" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden>
      <path d={path} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** History: sessions newest first, those a schedule started marked (bold while unread); rename inline, delete after a confirmation. */
export function Sidebar({
  open,
  inert,
  onClose,
  sessions,
  currentId,
  onOpen,
  onNew,
  onRename,
  onDelete,
}: {
  /** Shown as a drawer (narrow screens only; wider ones always show the history). */
  open: boolean;
  /** Behind the other drawer: out of reach until that one closes. */
  inert: boolean;
  onClose: () => void;
  sessions: SessionSummary[];
  currentId?: string;
  onOpen: (id: string) => void;
  onNew: () => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
}) {
  const t = useT();
  const [editing, setEditing] = useState<{ id: string; title: string }>();
  const sorted = [...sessions].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  return (
    <aside className={`sidebar ${open ? 'drawer-open' : ''}`} aria-label={t('history')} inert={inert}>
      <div className="sidebar-head">
        <button type="button" className="btn btn-primary btn-block" onClick={onNew} data-testid="new-chat">
          + {t('newChat')}
        </button>
        <button
          type="button"
          className="icon-btn tool-close"
          data-testid="close-history"
          title={t('close')}
          aria-label={t('close')}
          onClick={onClose}
        >
          ×
        </button>
      </div>
      <h3 className="sidebar-title">{t('history')}</h3>
      {sorted.length === 0 && <p className="empty-small">{t('noSessions')}</p>}
      <ul className="session-list" data-testid="session-list">
        {sorted.map((s) => (
          <li
            key={s.id}
            className={`session-item ${s.id === currentId ? 'active' : ''} ${s.unseen ? 'session-unseen' : ''}`}
            data-session={s.id}
            data-testid="session-item"
            data-scheduled={s.scheduleName !== undefined || undefined}
            data-unseen={s.unseen || undefined}
          >
            {editing?.id === s.id ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  if (editing.title.trim()) onRename(s.id, editing.title.trim());
                  setEditing(undefined);
                }}
              >
                <input
                  // biome-ignore lint/a11y/noAutofocus: the user just asked to rename this row
                  autoFocus
                  aria-label={t('rename')}
                  value={editing.title}
                  maxLength={200}
                  onChange={(e) => setEditing({ id: s.id, title: e.target.value })}
                  onBlur={() => setEditing(undefined)}
                  onKeyDown={(e) => e.key === 'Escape' && setEditing(undefined)}
                />
              </form>
            ) : (
              <button type="button" className="session-open" onClick={() => onOpen(s.id)}>
                <span className="session-title">
                  {s.scheduleName !== undefined && (
                    <span
                      className="session-scheduled"
                      data-testid="scheduled-mark"
                      title={`${t('scheduledMark')}: ${s.scheduleName}`}
                      role="img"
                      aria-label={t('scheduledMark')}
                    >
                      ⏰
                    </span>
                  )}
                  {s.title || t('untitled')}
                </span>
                {s.state && (
                  <span className={`session-state state-${s.state}`} data-testid="session-state" data-state={s.state}>
                    {t(`state_${s.state}`)}
                  </span>
                )}
                <span className="session-time">{when(s.updatedAt)}</span>
              </button>
            )}
            <span className="session-actions">
              <button
                type="button"
                className="icon-btn"
                title={t('rename')}
                aria-label={t('rename')}
                onClick={() => setEditing({ id: s.id, title: s.title })}
              >
                <Icon path="M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4" />
              </button>
              <button
                type="button"
                className="icon-btn"
                title={t('delete')}
                aria-label={t('delete')}
                data-testid="delete-session"
                onClick={() => window.confirm(t('confirmDelete')) && onDelete(s.id)}
              >
                <Icon path="M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6" />
              </button>
            </span>
          </li>
        ))}
      </ul>
    </aside>
  );
}
