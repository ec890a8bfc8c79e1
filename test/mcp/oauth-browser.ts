/**
 * The user's browser at Procura's authorization server, as plain HTTP requests: it follows the authorization URL to
 * the sign-in and consent form (keeping the server's cookies), fills it in, submits it and follows the redirects
 * until the client's redirect URI, which it returns (with `code`, or `error`).
 */
export type Browser = (authorizationUrl: URL) => Promise<URL>;

export interface SignInAnswer {
  /** An ERP API token to sign in with … */
  token?: string;
  /** … or a demo user's button. */
  demo?: string;
  /** Press "deny" instead. */
  deny?: boolean;
  /** What the form page must show. */
  expectPage?: RegExp;
}

export async function signInAt(authorizationUrl: URL, answer: SignInAnswer): Promise<URL> {
  const cookies = new Map<string, string>();
  const request = async (url: URL, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  const origin = authorizationUrl.origin;
  let response = await request(authorizationUrl);
  let location = new URL(response.headers.get('location') ?? '', origin);
  if (!location.pathname.startsWith('/interaction/')) return location; // an error sent straight back to the client
  const page = await request(location);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`form ${page.status}: ${html}`);
  if (answer.expectPage && !answer.expectPage.test(html))
    throw new Error(`the form does not show ${answer.expectPage}`);
  const form = new URLSearchParams();
  if (answer.deny) form.set('decision', 'deny');
  else if (answer.demo !== undefined) form.set('demo', answer.demo);
  else {
    form.set('token', answer.token ?? '');
    form.set('decision', 'allow');
  }
  response = await request(location, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  if (response.status !== 303) throw new Error(`sign-in ${response.status}: ${await response.text()}`);
  // Back to the authorization server, which redirects to the client (perhaps through another step).
  for (let hops = 0; hops < 5; hops++) {
    location = new URL(response.headers.get('location') ?? '', origin);
    if (location.origin !== origin) return location;
    response = await request(location);
    if (response.status < 300 || response.status >= 400)
      throw new Error(`${location.pathname} ${response.status}: ${await response.text()}`);
  }
  throw new Error('too many redirects');
}
