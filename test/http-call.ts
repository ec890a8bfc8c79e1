/**
 * A JSON call to a server over HTTP as a user: the bearer token is `defaultToken` unless `token` names another (`null`
 * for none); the answer's body is parsed JSON, or its text when it is not JSON. `origin` is read on each call, so a
 * server that restarts on another port is still reached.
 */
export function jsonCall(origin: string | (() => string), defaultToken: string) {
  return async (
    method: string,
    route: string,
    options: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
    // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  ): Promise<{ status: number; headers: Headers; body: any }> => {
    const token = options.token === undefined ? defaultToken : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${typeof origin === 'string' ? origin : origin()}${route}`, {
      method,
      headers,
      body: options.body === undefined ? options.rawBody : JSON.stringify(options.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body };
  };
}

/**
 * The parsed answer of a JSON call, for tests that read bodies only: `(method, route, body?, token?)`. The origin and
 * the default token are read on each call, so a server started in `beforeAll` can be named before it runs.
 */
export function bodyCall(origin: () => string, defaultToken: () => string) {
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  return async (method: string, route: string, body?: unknown, token?: string): Promise<any> =>
    (await jsonCall(origin, token ?? defaultToken())(method, route, { body })).body;
}
