import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { readQuoteRows } from '../../mail/index.ts';
import { RFQ_STATUS_LABELS } from '../../protocol/index.ts';
import { htmlPage } from '../html-page.ts';
import type { ApiEnv } from '../http.ts';

/** Where an invitation's quote form is, under the chat API's public address. */
export const quoteFormPath = (token: string) => `/quote/${token}`;

const TOKEN = /^[0-9a-f]{24}$/;
/** The columns the form sends, named as the reply template names them, so a form reads exactly like a mail reply. */
const FIELDS = [
  ['price', '单价 Unit price'],
  ['currency', '币种 Currency'],
  ['breaks', '阶梯价 Price breaks'],
  ['moq', 'MOQ'],
  ['lead', '交期(天) Lead time (days)'],
  ['valid', '有效期 Valid until'],
  ['freight', '运费 Freight'],
  ['remarks', '备注 Remarks'],
] as const;

/** What the ERP shows the supplier through its token (`GET /quote-invitations/{token}`): nothing of the others. */
interface Invitation {
  rfqNo: string;
  title: string;
  status: string;
  replyDeadline: string;
  currency: string;
  incoterm: string;
  supplier: { nameZh: string; nameEn: string };
  lines: Array<{ lineNo: number; item: string; quantity: number; unit: string; requiredDate: string }>;
  replied: boolean;
}

const STYLE = `body{font:15px/1.5 system-ui,"Noto Sans SC",sans-serif;margin:0;background:#f6f7f9;color:#1c2430}
main{max-width:960px;margin:0 auto;padding:16px}h1{font-size:1.3rem;margin:.2rem 0}
.card{background:#fff;border:1px solid #d5dae1;border-radius:8px;padding:12px;margin:12px 0}
.line{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:8px}
label{display:flex;flex-direction:column;font-size:.9rem;color:#2e3a48}
input,textarea{font:inherit;padding:6px;border:1px solid #7b8794;border-radius:4px;min-height:32px}
button{font:inherit;padding:8px 18px;border:0;border-radius:6px;background:#1d4ed8;color:#fff;min-height:40px}
.err{background:#fdecea;border:1px solid #b3261e;color:#7a1712;padding:8px;border-radius:6px}
.ok{background:#e7f5ec;border:1px solid #1e7b3c;color:#14532d;padding:8px;border-radius:6px}
.muted{color:#4a5563}`;
const esc = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const deadline = (iso: string) => `${iso.replace('T', ' ').slice(0, 16)} UTC`;

/**
 * The quote form: a page a supplier reaches through its invitation's link, the token the only credential. It shows
 * that invitation alone, reads what is typed in by the reply template's own rules (as a mail reply is read) and
 * hands the reply to the ERP's quote-form call, which records it through the same service as a mail. Each form
 * carries a submission id, so sending it twice records it once. After the close or a cancel the ERP refuses it and
 * the page says so. Nothing else is reachable from here.
 */
export function serveQuoteForm(app: Hono<ApiEnv>, erpUrl: string): void {
  app.get('/quote/:token', async (c) => {
    const token = c.req.param('token');
    const invitation = await invitationOf(erpUrl, token);
    if (typeof invitation === 'number') return page(c, invitation, unavailableBody(invitation));
    return page(c, 200, formBody(token, invitation, randomUUID(), {}));
  });

  app.post('/quote/:token', async (c) => {
    const token = c.req.param('token');
    const invitation = await invitationOf(erpUrl, token);
    if (typeof invitation === 'number') return page(c, invitation, unavailableBody(invitation));
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const value = (name: string) => (typeof form[name] === 'string' ? (form[name] as string).trim() : '');
    const submission = /^[\w-]{8,64}$/.test(value('submission')) ? value('submission') : randomUUID();
    const values = Object.fromEntries(Object.keys(form).map((k) => [k, value(k)]));
    const decline = value('decline') === 'yes';
    const rows = [
      ['行号 Line', ...FIELDS.map(([, header]) => header)],
      ...invitation.lines
        .filter((l) => value(`price_${l.lineNo}`))
        .map((l) => [String(l.lineNo), ...FIELDS.map(([name]) => value(`${name}_${l.lineNo}`))]),
    ];
    const read = readQuoteRows(rows, invitation);
    const errors = read.flags.map((f) => `第 ${f.lineNo} 行 / line ${f.lineNo}: ${f.reason}`);
    if (!decline && read.lines.length === 0 && errors.length === 0)
      errors.push('请至少为一行填写单价，或选择谢绝报价 / quote a unit price for at least one line, or decline');
    if (errors.length) return page(c, 422, formBody(token, invitation, submission, values, errors));

    const reply = decline
      ? { decline: true, ...(value('note') && { remarks: value('note').slice(0, 2000) }) }
      : { lines: read.lines, ...(value('note') && { remarks: value('note').slice(0, 2000) }) };
    const res = await fetch(`${erpUrl}/quote-invitations/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': submission },
      body: JSON.stringify(reply),
    });
    const answer = (await res.json().catch(() => ({}))) as {
      outcome?: string;
      late?: boolean;
      detail?: string;
      title?: string;
      errors?: Array<{ field: string; message: string }>;
    };
    if (res.status === 200) return page(c, 200, doneBody(invitation, decline, answer.outcome === 'duplicate'));
    if (res.status === 409) return page(c, 409, closedBody(invitation, answer.detail));
    if (res.status === 404) return page(c, 404, unavailableBody(404));
    if (res.status === 422)
      return page(
        c,
        422,
        formBody(
          token,
          invitation,
          submission,
          values,
          (answer.errors ?? []).map((e) => `${e.field}: ${e.message}`),
        ),
      );
    return page(
      c,
      503,
      `<p class="err">暂时无法提交，请稍后再试 / the quote could not be sent now: try again later</p>`,
    );
  });
}

/** The invitation the token names, or the status to answer: 404 for a token that names none (or is malformed). */
async function invitationOf(erpUrl: string, token: string): Promise<Invitation | 404 | 503> {
  if (!TOKEN.test(token)) return 404;
  const res = await fetch(`${erpUrl}/quote-invitations/${token}`, { headers: { accept: 'application/json' } }).catch(
    () => undefined,
  );
  if (res?.status === 404 || res?.status === 422) return 404;
  if (!res?.ok) return 503;
  return (await res.json()) as Invitation;
}

function page(c: Context<ApiEnv>, status: number, body: string) {
  return htmlPage(c, status, { title: '报价 / Quote · Procura', style: STYLE, body });
}

const heading = (inv: Invitation) =>
  `<h1>询价 ${esc(inv.rfqNo)}：${esc(inv.title)}</h1><p class="muted">${esc(inv.supplier.nameZh)} / ${esc(inv.supplier.nameEn)} · 截止 / deadline ${esc(deadline(inv.replyDeadline))} · ${esc(inv.currency)} · ${esc(inv.incoterm)}</p>`;

function formBody(
  token: string,
  inv: Invitation,
  submission: string,
  values: Record<string, string>,
  errors: string[] = [],
): string {
  if (!['sent', 'collecting'].includes(inv.status)) return closedBody(inv);
  const v = (name: string) => esc(values[name] ?? '');
  const field = (name: string, lineNo: number, label: string, type = 'text', extra = '') =>
    `<label>${label}<input name="${name}_${lineNo}" type="${type}" value="${name === 'currency' && values[`${name}_${lineNo}`] === undefined ? esc(inv.currency) : v(`${name}_${lineNo}`)}"${extra}></label>`;
  const lines = inv.lines
    .map(
      (
        l,
      ) => `<fieldset class="card"><legend>第 ${l.lineNo} 行 / line ${l.lineNo}：${esc(l.item)} · ${l.quantity} ${esc(l.unit)} · 需求日期 / required ${esc(l.requiredDate)}</legend><div class="line">
${field('price', l.lineNo, '单价 / unit price', 'text', ' inputmode="decimal"')}
${field('currency', l.lineNo, '币种 / currency', 'text', ' maxlength="3"')}
${field('breaks', l.lineNo, '阶梯价 / price breaks (100:14.2; 500:13.5)')}
${field('moq', l.lineNo, '最小起订量 / MOQ', 'text', ' inputmode="numeric"')}
${field('lead', l.lineNo, '交期（天）/ lead time (days)', 'text', ' inputmode="numeric"')}
${field('valid', l.lineNo, '有效期至 / valid until', 'date')}
${field('freight', l.lineNo, '运费 / freight', 'text', ' inputmode="decimal"')}
${field('remarks', l.lineNo, '备注 / remarks')}
</div></fieldset>`,
    )
    .join('\n');
  return `${heading(inv)}
${inv.replied ? '<p class="ok">已收到贵司的报价；再次提交将替换之前的报价 / your quote is in: sending again replaces it</p>' : ''}
${errors.length ? `<div class="err" role="alert"><p>报价未提交 / the quote was not sent:</p><ul>${errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></div>` : ''}
<form method="post" action="${esc(quoteFormPath(token))}">
<input type="hidden" name="submission" value="${esc(submission)}">
<p class="muted">不报价的行请留空单价 / leave the unit price empty for a line you do not quote.</p>
${lines}
<div class="card"><label>整体备注 / note<textarea name="note" rows="3" maxlength="2000">${v('note')}</textarea></label>
<label class="check"><span><input type="checkbox" name="decline" value="yes"${values.decline === 'yes' ? ' checked' : ''}> 谢绝本次报价 / we decline to quote</span></label></div>
<button type="submit">提交报价 / send quote</button>
</form>`;
}

function doneBody(inv: Invitation, declined: boolean, again: boolean): string {
  const what = declined ? '已记录贵司谢绝报价 / your decline is recorded' : '报价已收到 / your quote is recorded';
  return `${heading(inv)}<p class="ok" role="status">${what}${again ? '（重复提交，未作更改 / sent again: nothing changed）' : ''}</p>`;
}

function closedBody(inv: Invitation, detail?: string): string {
  const label = RFQ_STATUS_LABELS[inv.status];
  return `${heading(inv)}<p class="err" role="alert">此询价已${esc(label?.zh ?? inv.status)}，不再接受报价 / this RFQ is ${esc(label?.en ?? inv.status)}: it takes no more quotes.${detail ? ` ${esc(detail)}` : ''}</p>`;
}

function unavailableBody(status: 404 | 503): string {
  return status === 404
    ? '<h1>报价链接无效 / unknown quote link</h1><p class="muted">请使用询价邮件中的链接 / use the link in the invitation mail.</p>'
    : '<h1>暂时无法报价 / the quote form is not available now</h1><p class="muted">请稍后再试 / please try again later.</p>';
}
