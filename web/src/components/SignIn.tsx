import { useEffect, useState } from 'react';
import { useT } from '../i18n.ts';

interface DemoUser {
  username: string;
  role?: string;
  token: string;
  name?: string;
}

/** Sign-in with an API token; in embedded mode the API lists its demo users, one click each. */
export function SignIn({
  onSignIn,
  error,
  busy,
}: {
  onSignIn: (token: string) => void;
  error?: string;
  busy: boolean;
}) {
  const t = useT();
  const [token, setToken] = useState('');
  const [demo, setDemo] = useState<DemoUser[]>([]);
  useEffect(() => {
    fetch('/api/v1/demo-users')
      .then((r) => (r.ok ? r.json() : []))
      .then((body: unknown) => {
        const rows = Array.isArray(body) ? body : ((body as { items?: unknown[] })?.items ?? []);
        setDemo(
          (rows as Array<Record<string, unknown>>)
            .filter((u) => typeof u.token === 'string')
            .map((u) => ({
              username: String(u.username ?? u.user ?? u.name ?? ''),
              role: typeof u.role === 'string' ? u.role : undefined,
              name: typeof u.displayName === 'string' ? u.displayName : typeof u.name === 'string' ? u.name : undefined,
              token: String(u.token),
            })),
        );
      })
      .catch(() => setDemo([]));
  }, []);
  return (
    <div className="signin-page">
      <form
        className="signin-card"
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) onSignIn(token.trim());
        }}
      >
        <div className="brand brand-large">
          <span className="logo">P</span>
          <div>
            <h1>{t('appName')}</h1>
            <p className="muted">{t('tagline')}</p>
          </div>
        </div>
        <label className="field">
          <span>{t('tokenLabel')}</span>
          <input
            name="token"
            type="password"
            autoComplete="off"
            placeholder={t('tokenPlaceholder')}
            value={token}
            onChange={(e) => setToken(e.target.value)}
          />
        </label>
        {error && <p className="banner banner-error">{error}</p>}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy || !token.trim()}>
          {busy ? t('signingIn') : t('signIn')}
        </button>
        {demo.length > 0 && (
          <div className="demo-users" data-testid="demo-users">
            <h3>{t('demoUsers')}</h3>
            <ul>
              {demo.map((u) => (
                <li key={u.username}>
                  <span>
                    <strong>{u.username}</strong>
                    {u.role && <span className="badge">{u.role}</span>}
                    {u.name && <span className="muted"> {u.name}</span>}
                  </span>
                  <button
                    type="button"
                    className="btn btn-small"
                    data-user={u.username}
                    disabled={busy}
                    onClick={() => onSignIn(u.token)}
                  >
                    {t('useUser')}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
      </form>
    </div>
  );
}
