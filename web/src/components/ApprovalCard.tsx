import { useContext, useState } from 'react';
import { describeScope, type HumanDecision, type InterruptData, standingScope } from '../../../src/protocol/index.ts';
import { LangContext, useT } from '../i18n.ts';
import { money, PriceCheckBadge } from './PriceCheck.tsx';

type Args = Record<string, unknown>;
type Line = Record<string, unknown>;
type Approval = Extract<InterruptData, { kind: 'approval' }>;
type PriceCheckOf = NonNullable<NonNullable<NonNullable<Approval['details']>['lines']>[number]['priceCheck']>;

/**
 * The approval card: what a person approves is what runs. Everything it shows comes from the tool call's arguments
 * (and, beside them, what the ERP or the workspace says those arguments name), rendered as text by React — never
 * from the model's answer, which is sanitised Markdown elsewhere on the page and can neither style nor cover this
 * (no style sheets, `style` or `class` attributes in answers; no inline styles under the page's CSP).
 */
export function ApprovalCard({
  interrupt,
  busy,
  onDecide,
  onAlwaysAllow,
}: {
  interrupt: Approval;
  busy: boolean;
  onDecide: (decision: HumanDecision) => void;
  onAlwaysAllow?: () => void;
}) {
  const t = useT();
  const english = useContext(LangContext) === 'en';
  const [mode, setMode] = useState<'view' | 'edit' | 'reject'>('view');
  const [args, setArgs] = useState<Args>(() => structuredClone(interrupt.args ?? {}));
  const [reason, setReason] = useState('');
  const allowed = new Set(interrupt.allowed ?? ['approve', 'edit', 'reject']);
  // A write whose arguments name no lines (an RFQ award) shows the lines of the ERP's preview, not to be edited.
  const ownLines = Array.isArray(args.lines) ? (args.lines as Line[]) : undefined;
  const previewed = interrupt.details?.lines?.filter((l) => typeof l.quantity === 'number');
  const lines =
    ownLines ??
    (previewed?.length
      ? previewed.map((l) => ({ partId: l.partId, quantity: l.quantity, unitPrice: l.listPrice }))
      : undefined);
  const partOf = (line: Line) => interrupt.details?.lines?.find((d) => d.partId === line.partId);
  const priceOf = (line: Line) => (typeof line.unitPrice === 'number' ? line.unitPrice : partOf(line)?.listPrice);
  const editing = mode === 'edit' && ownLines !== undefined;
  const setLine = (index: number, key: string, value: unknown) =>
    setArgs((a) => ({
      ...a,
      lines: (a.lines as Line[]).map((l, i) => (i === index ? { ...l, [key]: value } : l)),
    }));
  const other = Object.entries(args).filter(([k]) => k !== 'lines' && k !== 'expectedDate');
  const total = lines?.reduce((sum, l) => {
    const price = priceOf(l);
    return sum + (typeof price === 'number' && typeof l.quantity === 'number' ? price * l.quantity : 0);
  }, 0);

  return (
    <section className="card interrupt-card" data-testid="approval-card" data-interrupt={interrupt.interrupt_id}>
      <header className="card-head">
        <span className="badge badge-warn">{t('approvalTitle')}</span>
        <strong>{interrupt.label ?? interrupt.tool}</strong>
        <code className="muted">{interrupt.tool}</code>
      </header>
      {interrupt.revision ? (
        <p className="muted" data-testid="edited-card">
          {t('editedCard')}
        </p>
      ) : null}
      {(interrupt.details?.supplier || interrupt.details?.order) && (
        <p className="muted">
          {interrupt.details.supplier
            ? `${t('supplier')}: ${(english && interrupt.details.supplierEn) || interrupt.details.supplier}`
            : ''}
          {interrupt.details.order ? ` · ${interrupt.details.order.orderNo} (${interrupt.details.order.status})` : ''}
        </p>
      )}
      {interrupt.details?.skill && <SkillPreview skill={interrupt.details.skill} />}
      {interrupt.details?.award && <AwardSummary award={interrupt.details.award} />}
      {lines && (
        <table className="table order-lines">
          <thead>
            <tr>
              <th>#</th>
              <th>{t('part')}</th>
              <th className="num">{t('quantity')}</th>
              <th className="num">{t('unitPrice')}</th>
              <th className="num">{t('amount')}</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: order lines have no id of their own
              <tr key={i}>
                <td>{i + 1}</td>
                <td>
                  {partOf(line)
                    ? `${partOf(line)?.code} ${(english && partOf(line)?.nameEn) || partOf(line)?.name}`
                    : String(line.name ?? line.code ?? line.partName ?? `#${line.partId ?? '?'}`)}
                </td>
                <td className="num">
                  {editing ? (
                    <NumberInput
                      label={t('quantity')}
                      min={1}
                      value={Number(line.quantity ?? 0)}
                      onText={(text) => setLine(i, 'quantity', Number(text))}
                    />
                  ) : (
                    String(line.quantity ?? '—')
                  )}
                </td>
                <td className="num">
                  {editing ? (
                    <NumberInput
                      label={t('unitPrice')}
                      min={0}
                      step="0.01"
                      value={line.unitPrice === undefined ? '' : Number(line.unitPrice)}
                      placeholder={money(partOf(line)?.listPrice)}
                      onText={(text) => setLine(i, 'unitPrice', text === '' ? undefined : Number(text))}
                    />
                  ) : (
                    <>
                      {money(priceOf(line))}
                      <LinePriceCheck line={line} check={partOf(line)?.priceCheck} />
                    </>
                  )}
                </td>
                <td className="num">
                  {typeof priceOf(line) === 'number' && typeof line.quantity === 'number'
                    ? money((priceOf(line) as number) * (line.quantity as number))
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
          {total ? (
            <tfoot>
              <tr>
                <td colSpan={4}>{t('amount')}</td>
                <td className="num">{money(total)}</td>
              </tr>
            </tfoot>
          ) : null}
        </table>
      )}
      {/* The ERP's preview is of the arguments it was made for: while they are edited it is not shown, and the edit
          comes back as a card of its own, previewed afresh, to approve as shown. */}
      {editing ? (
        <p className="muted" data-testid="preview-after-edit">
          {t('previewAfterEdit')}
        </p>
      ) : (
        interrupt.details?.preview && <PolicyResult preview={interrupt.details.preview} submit={args.submit === true} />
      )}
      <dl className="kv">
        {(lines || 'expectedDate' in args) && (
          <>
            <dt>{t('expectedDate')}</dt>
            <dd>
              {editing ? (
                <input
                  type="date"
                  aria-label={t('expectedDate')}
                  value={String(args.expectedDate ?? '')}
                  onChange={(e) => setArgs((a) => ({ ...a, expectedDate: e.target.value || undefined }))}
                />
              ) : (
                String(args.expectedDate ?? '—')
              )}
            </dd>
          </>
        )}
        {other.map(([key, value]) => (
          <FragmentKV key={key} name={key} value={value} />
        ))}
      </dl>
      {mode === 'reject' && (
        <textarea
          className="reason"
          placeholder={t('rejectReason')}
          aria-label={t('rejectReason')}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      )}
      <footer className="card-actions">
        {mode === 'view' && (
          <>
            {allowed.has('approve') && (
              <button
                type="button"
                className="btn btn-primary"
                disabled={busy}
                onClick={() => onDecide({ type: 'approve' })}
              >
                {t('approve')}
              </button>
            )}
            {allowed.has('approve') && onAlwaysAllow && (
              // The card says what "always allow" would cover: for an order, its supplier, parts and amount at most.
              <button
                type="button"
                className="btn"
                disabled={busy}
                data-testid="always-allow"
                aria-describedby={`scope-${interrupt.interrupt_id}`}
                onClick={onAlwaysAllow}
              >
                {t('alwaysAllow')}
              </button>
            )}
            {allowed.has('approve') && onAlwaysAllow && (
              <small className="muted" id={`scope-${interrupt.interrupt_id}`} data-testid="always-allow-scope">
                {describeScope(standingScope(interrupt.tool, interrupt.args, interrupt.details), interrupt.details)}
              </small>
            )}
            {allowed.has('edit') && (
              <button type="button" className="btn" disabled={busy} onClick={() => setMode('edit')}>
                {t('edit')}
              </button>
            )}
            {allowed.has('reject') && (
              <button type="button" className="btn btn-danger" disabled={busy} onClick={() => setMode('reject')}>
                {t('reject')}
              </button>
            )}
          </>
        )}
        {mode === 'edit' && (
          <ConfirmOrCancel
            className="btn btn-primary"
            label={t('saveEdit')}
            busy={busy}
            onConfirm={() => onDecide({ type: 'edit', args: withoutEmpty(args) })}
            onCancel={() => setMode('view')}
          />
        )}
        {mode === 'reject' && (
          <ConfirmOrCancel
            className="btn btn-danger"
            label={t('confirmReject')}
            busy={busy}
            onConfirm={() => onDecide({ type: 'reject', ...(reason.trim() ? { reason: reason.trim() } : {}) })}
            onCancel={() => setMode('view')}
          />
        )}
      </footer>
    </section>
  );
}

/** The ERP approval policy's decision on the order as the ERP previewed it, or why the ERP would refuse it. */
function PolicyResult({
  preview,
  submit,
}: {
  preview: NonNullable<NonNullable<Approval['details']>['preview']>;
  submit: boolean;
}) {
  const t = useT();
  if ('refused' in preview)
    return (
      <p className="muted" data-testid="approval-policy" data-rule="refused">
        {t('policyRefused')}: {preview.refused}
      </p>
    );
  return (
    <p className="muted" data-testid="approval-policy" data-rule={preview.approval.rule}>
      {t('approvalPolicy')}: {submit ? '' : `${t('policyDraft')} — `}
      {preview.approval.reason}
    </p>
  );
}

/** Drops fields cleared in the form, so the tool's schema sees them as absent rather than empty. */
function withoutEmpty(args: Args): Args {
  const clean = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));
  const out = clean(args);
  if (Array.isArray(out.lines)) out.lines = (out.lines as Line[]).map(clean);
  return out;
}

function FragmentKV({ name, value }: { name: string; value: unknown }) {
  const t = useT();
  const label =
    { supplierId: `${t('supplier')} ID`, supplier: t('supplier'), note: t('note'), submit: t('submitForApproval') }[
      name
    ] ?? name;
  const shown =
    typeof value === 'boolean'
      ? t(value ? 'yes' : 'no')
      : typeof value === 'object' && value !== null
        ? null
        : String(value);
  return (
    <>
      <dt>{label}</dt>
      <dd>{shown ?? <code>{JSON.stringify(value)}</code>}</dd>
    </>
  );
}

/** A number field of an order line being edited; `onText` gets what the field holds, empty included. */
function NumberInput(props: {
  label: string;
  min: number;
  step?: string;
  value: number | '';
  placeholder?: string;
  onText: (text: string) => void;
}) {
  return (
    <input
      type="number"
      min={props.min}
      step={props.step}
      aria-label={props.label}
      value={props.value}
      placeholder={props.placeholder}
      onChange={(e) => props.onText(e.target.value)}
    />
  );
}

/** The footer of an edit or a rejection being written: send it, or go back to the plain view. */
function ConfirmOrCancel(props: {
  className: string;
  label: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const t = useT();
  return (
    <>
      <button type="button" className={props.className} disabled={props.busy} onClick={props.onConfirm}>
        {props.label}
      </button>
      <button type="button" className="btn" onClick={props.onCancel}>
        {t('cancel')}
      </button>
    </>
  );
}

/** The line's price check, while the price shown is the one that was checked (an edited price was not). */
function LinePriceCheck({ line, check }: { line: Line; check?: PriceCheckOf }) {
  if (!check) return null;
  const price = typeof line.unitPrice === 'number' ? line.unitPrice : check.unitPrice;
  return price === check.unitPrice ? <PriceCheckBadge check={check} /> : null;
}

/** A skill about to persist: where it goes, its files, and its SKILL.md exactly as later sessions will load it. */
function SkillPreview({ skill }: { skill: NonNullable<NonNullable<Approval['details']>['skill']> }) {
  const t = useT();
  return (
    <div className="skill-preview" data-testid="skill-preview">
      <p className="muted">
        {skill.agent} · {skill.target} · {skill.files.join(', ')}
      </p>
      <pre className="skill-text">
        {skill.text}
        {skill.truncated ? `\n… (${t('truncated')})` : ''}
      </pre>
    </div>
  );
}

/** An RFQ award's card head: the RFQ, whether the award closes it first, and the supplier's rank with its reasons. */
function AwardSummary({ award }: { award: NonNullable<NonNullable<Approval['details']>['award']> }) {
  const t = useT();
  const english = useContext(LangContext) === 'en';
  const half = (text: string) => text.split(' / ')[english ? 1 : 0] ?? text;
  return (
    <div className="muted" data-testid="award-summary">
      <p>
        {award.rfqNo}
        {award.closes ? ` · ${t('awardCloses')}` : ''}
        {' · '}
        {award.rank === null
          ? t('awardUnranked')
          : t('awardRank').replace('{rank}', String(award.rank)).replace('{of}', String(award.ranked))}
      </p>
      {award.why.length > 0 && (
        <ul>
          {award.why.map((why) => (
            <li key={why}>{half(why)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
