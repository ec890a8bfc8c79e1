import { useEffect, useState } from 'react';
import { useT } from '../i18n.ts';

interface DemoUser {
  username: string;
  role?: string;
  name?: string;
}

/** The demo users the API offers this browser (names and roles only; empty outside embedded demo mode). */
async function demoUsers(): Promise<DemoUser[]> {
  const response = await fetch('/api/v1/demo-users');
  const rows: unknown = response.ok ? await response.json() : [];
  if (!Array.isArray(rows)) return [];
  return (rows as Array<Record<string, unknown>>)
    .filter((u) => typeof u.username === 'string')
    .map((u) => ({
      username: String(u.username),
      role: typeof u.role === 'string' ? u.role : undefined,
      name: typeof u.displayName === 'string' ? u.displayName : undefined,
    }));
}

/** A short-lived session token for a demo user, issued by the API. */
async function demoSignIn(username: string): Promise<string> {
  const response = await fetch('/api/v1/demo-sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username }),
  });
  const body = (await response.json().catch(() => ({}))) as { token?: string; detail?: string; title?: string };
  if (!response.ok || typeof body.token !== 'string')
    throw new Error(body.detail ?? body.title ?? `HTTP ${response.status}`);
  return body.token;
}

/** Sign-in with an API token; in embedded demo mode, one click signs in as a demo user for a short session. */
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
  const [demoError, setDemoError] = useState<string>();
  useEffect(() => {
    demoUsers()
      .then(setDemo)
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
        {(error ?? demoError) && <p className="banner banner-error">{error ?? demoError}</p>}
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
                    onClick={() => demoSignIn(u.username).then(onSignIn, (e: Error) => setDemoError(e.message))}
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
