/** The sign-in and consent page of the authorization server: plain HTML, Chinese first with English beside it. */

import { escapeHtml } from '../../shared/index.ts';

const STYLE =
  'body{font-family:system-ui,"Noto Sans SC",sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1f2933}' +
  'h1{font-size:1.3rem}.en{color:#52606d;font-size:.9em}.box{border:1px solid #cbd2d9;border-radius:6px;padding:1rem;margin:1rem 0}' +
  'label{display:block;margin:.5rem 0 .25rem}input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}' +
  'button{margin:.5rem .5rem 0 0;padding:.4rem 1rem}.error{color:#b42318;font-weight:600}';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;

export interface SignInView {
  uid: string;
  clientName: string;
  resource: string;
  scopes: string[];
  /** The user already signed in at this server (consent only), if any. */
  signedInAs?: string;
  /** Non-admin demo users offered for one-click sign-in (a browser on this machine, embedded mode). */
  demoUsers: Array<{ username: string; displayName: string; role: string }>;
  error?: string;
}

/**
 * One form for sign-in and consent: the client's name, what it asks for (the resource and scopes), then the ERP
 * API token (or a demo user's button) and allow / deny. The client's name is the client's own claim: shown as text.
 */
export function signInPage(view: SignInView): string {
  const action = `/interaction/${encodeURIComponent(view.uid)}`;
  const who = view.signedInAs
    ? `<p>已登录为 <b>${escapeHtml(view.signedInAs)}</b> <span class="en">signed in as ${escapeHtml(view.signedInAs)}</span></p>`
    : `<label for="token">ERP API 令牌 <span class="en">ERP API token</span></label>` +
      `<input type="password" id="token" name="token" autocomplete="off" maxlength="512">` +
      `<p class="en">npm start 会打印演示用户的令牌；<code>npx procura user token &lt;用户名&gt;</code> 签发新令牌 / ` +
      `npm start prints the demo users' tokens; <code>npx procura user token &lt;name&gt;</code> issues one</p>`;
  const demo =
    !view.signedInAs && view.demoUsers.length
      ? `<div class="box"><p>演示用户一键登录 <span class="en">demo sign-in (this machine only)</span></p>${view.demoUsers
          .map(
            (u) =>
              `<button name="demo" value="${escapeHtml(u.username)}">${escapeHtml(u.displayName)} (${escapeHtml(u.role)})</button>`,
          )
          .join('')}</div>`
      : '';
  return page(
    '登录 Procura / Sign in to Procura',
    `<h1>登录 Procura <span class="en">Sign in to Procura</span></h1>` +
      (view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '') +
      `<div class="box"><p>应用 <b>${escapeHtml(view.clientName)}</b> 请求以你的身份访问 <span class="en">` +
      `the application <b>${escapeHtml(view.clientName)}</b> asks to act as you at</span></p>` +
      `<p><code>${escapeHtml(view.resource)}</code></p>` +
      `<p>权限 <span class="en">scopes</span>: ${view.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ') || '—'}</p>` +
      `<p class="en">它将拥有你在 ERP 中的角色和项目权限 / it gets your ERP role and projects</p></div>` +
      `<form method="post" action="${action}">${who}${demo}` +
      `<button type="submit" name="decision" value="allow">同意 <span class="en">Allow</span></button>` +
      `<button type="submit" name="decision" value="deny">拒绝 <span class="en">Deny</span></button></form>`,
  );
}

/** An error of the authorization server (an unknown client, a bad request), as a page. */
export function errorPage(error: string, description?: string): string {
  return page(
    '登录出错 / Sign-in error',
    `<h1>登录出错 <span class="en">Sign-in error</span></h1><p class="error">${escapeHtml(error)}</p>` +
      (description ? `<p>${escapeHtml(description)}</p>` : ''),
  );
}
