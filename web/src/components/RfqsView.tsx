import { useContext, useEffect, useState } from 'react';
import {
  type ChatClient,
  quoteMessage,
  quoteRows,
  RFQ_STATUS_LABELS,
  type RfqDetailView,
  type RfqMessageView,
  type RfqProposalView,
  type RfqQuoteView,
  type RfqSummaryView,
  type SupplierName,
} from '../../../src/protocol/index.ts';
import { saveBlob } from '../download.ts';
import { LangContext, useT } from '../i18n.ts';
import { useListing } from '../useListing.ts';

/** Where in the RFQ screens the address points: the list, one RFQ, or one of its mails. */
export type RfqRoute =
  | { view: 'list' }
  | { view: 'rfq'; id: number }
  | { view: 'message'; id: number; message: number };

/** The RFQ screen a `#/rfqs…` address names (undefined for any other address). */
export function rfqRoute(hash: string): RfqRoute | undefined {
  const m = /^#\/rfqs(?:\/(\d+)(?:\/messages\/(\d+))?)?\/?$/.exec(hash);
  if (!m) return undefined;
  if (m[2]) return { view: 'message', id: Number(m[1]), message: Number(m[2]) };
  if (m[1]) return { view: 'rfq', id: Number(m[1]) };
  return { view: 'list' };
}

const readRfqs = (client: ChatClient) => client.rfqs(undefined, 1, 100);
const cny = (n: number) => n.toLocaleString('zh-CN', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const when = (iso: string | null) => (iso ? `${iso.replace('T', ' ').slice(0, 16)} UTC` : '—');

/** The project's requests for quotation: the list, one RFQ with its quotes and proposal, and a quote's source mail. */
export function RfqsView({
  client,
  route,
  onAward,
}: {
  client: ChatClient;
  route: RfqRoute;
  /** Asks the sourcing agent to award the RFQ to the supplier, in a new conversation where each write is approved. */
  onAward: (rfqNo: string, supplier: SupplierName) => void;
}) {
  return (
    <section className="rfqs" data-testid="rfqs-view" aria-labelledby="rfqs-heading">
      {route.view === 'list' && <RfqList client={client} />}
      {route.view === 'rfq' && <RfqDetail client={client} id={route.id} onAward={onAward} />}
      {route.view === 'message' && <RfqMessage client={client} id={route.id} message={route.message} />}
    </section>
  );
}

function StatusBadge({ status }: { status: string }) {
  const lang = useContext(LangContext);
  return <span className={`badge rfq-status rfq-${status}`}>{RFQ_STATUS_LABELS[status]?.[lang] ?? status}</span>;
}

function RfqList({ client }: { client: ChatClient }) {
  const t = useT();
  const { items, error } = useListing<RfqSummaryView>(client, readRfqs);
  return (
    <>
      <h2 id="rfqs-heading">{t('rfqsTitle')}</h2>
      {error && <p className="banner banner-error">{error}</p>}
      {items?.length === 0 && <p className="muted">{t('rfqNone')}</p>}
      {items && items.length > 0 && (
        <table className="table rfq-table" data-testid="rfq-list">
          <thead>
            <tr>
              <th scope="col">{t('rfqNo')}</th>
              <th scope="col">{t('rfqTitle')}</th>
              <th scope="col">{t('rfqStatus')}</th>
              <th scope="col">{t('rfqDeadline')}</th>
              <th scope="col" className="num">
                {t('rfqReplies')}
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id} data-testid="rfq-row" data-rfq={r.rfqNo}>
                <td data-label={t('rfqNo')}>
                  <a href={`#/rfqs/${r.id}`}>{r.rfqNo}</a>
                </td>
                <td data-label={t('rfqTitle')}>{r.title}</td>
                <td data-label={t('rfqStatus')}>
                  <StatusBadge status={r.status} />
                </td>
                <td data-label={t('rfqDeadline')}>{when(r.replyDeadline)}</td>
                <td data-label={t('rfqReplies')} className="num" data-testid="rfq-replies">
                  {r.replied}/{r.invited}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function RfqDetail({
  client,
  id,
  onAward,
}: {
  client: ChatClient;
  id: number;
  onAward: (rfqNo: string, supplier: SupplierName) => void;
}) {
  const t = useT();
  const lang = useContext(LangContext);
  const [rfq, setRfq] = useState<RfqDetailView>();
  const [proposal, setProposal] = useState<RfqProposalView>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    setRfq(undefined);
    setProposal(undefined);
    Promise.all([client.rfq(id), client.rfqProposal(id)])
      .then(([r, p]) => {
        if (!live) return;
        setRfq(r);
        setProposal(p);
        setError(undefined);
      })
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [client, id]);
  const name = (s: SupplierName) => (lang === 'en' ? s.nameEn : s.nameZh);

  if (error)
    return (
      <>
        <a href="#/rfqs" className="link">
          {t('rfqBack')}
        </a>
        <h2 id="rfqs-heading">{t('rfqsTitle')}</h2>
        <p className="banner banner-error">{error}</p>
      </>
    );
  if (!rfq || !proposal) return <p className="muted">…</p>;
  const supplierOf = (supplierId: number) => rfq.invitations.find((i) => i.supplier.id === supplierId)?.supplier;
  return (
    <>
      <a href="#/rfqs" className="link">
        {t('rfqBack')}
      </a>
      <h2 id="rfqs-heading" data-testid="rfq-heading">
        {rfq.rfqNo} · {rfq.title} <StatusBadge status={rfq.status} />
      </h2>
      <p className="muted">
        {t('rfqDeadline')} {when(rfq.replyDeadline)} · {rfq.currency} · {rfq.incoterm} · {rfq.createdBy.username}
      </p>
      {rfq.award && (
        <p className="banner banner-info" data-testid="rfq-award">
          {t('rfqAwarded')
            .replace('{name}', name(supplierOf(rfq.award.supplierId) ?? { id: 0, nameZh: '', nameEn: '' }))
            .replace('{order}', rfq.award.orderNo)}
        </p>
      )}

      <h3>{t('rfqLines')}</h3>
      <table className="table rfq-table" data-testid="rfq-lines">
        <thead>
          <tr>
            <th scope="col">{t('rfqLine')}</th>
            <th scope="col">{t('rfqItem')}</th>
            <th scope="col" className="num">
              {t('rfqQty')}
            </th>
            <th scope="col">{t('rfqRequired')}</th>
          </tr>
        </thead>
        <tbody>
          {rfq.lines.map((l) => (
            <tr key={l.lineNo}>
              <td data-label={t('rfqLine')}>{l.lineNo}</td>
              <td data-label={t('rfqItem')}>
                {l.item}
                {l.part && <span className="muted"> ({l.part.code})</span>}
              </td>
              <td data-label={t('rfqQty')} className="num">
                {l.quantity} {l.unit}
              </td>
              <td data-label={t('rfqRequired')}>{l.requiredDate}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3>{t('rfqInvitations')}</h3>
      <table className="table rfq-table" data-testid="rfq-invitations">
        <thead>
          <tr>
            <th scope="col">{t('rfqSupplier')}</th>
            <th scope="col">{t('rfqMailSent')}</th>
            <th scope="col">{t('rfqReminded')}</th>
            <th scope="col">{t('rfqReplied')}</th>
          </tr>
        </thead>
        <tbody>
          {rfq.invitations.map((i) => (
            <tr key={i.supplier.id} data-testid="rfq-invitation" data-status={i.status}>
              <td data-label={t('rfqSupplier')}>{name(i.supplier)}</td>
              <td data-label={t('rfqMailSent')}>
                {t(`mail_${i.mail.status}`)} {i.mail.sentAt && <span className="muted">{when(i.mail.sentAt)}</span>}
              </td>
              <td data-label={t('rfqReminded')}>{i.mail.remindedAt ? when(i.mail.remindedAt) : '—'}</td>
              <td data-label={t('rfqReplied')}>
                {t(`inv_${i.status}`)} {i.repliedAt && <span className="muted">{when(i.repliedAt)}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3>{t('rfqQuotes')}</h3>
      {rfq.quotes.length === 0 ? (
        <p className="muted">{t('rfqNoQuotes')}</p>
      ) : (
        <table className="table rfq-table" data-testid="rfq-quotes">
          <thead>
            <tr>
              <th scope="col">{t('rfqLine')}</th>
              <th scope="col">{t('rfqSupplier')}</th>
              <th scope="col">{t('rfqQuoted')}</th>
              <th scope="col" className="num">
                {t('rfqEffUnit')}
              </th>
              <th scope="col" className="num">
                {t('rfqEffTotal')}
              </th>
              <th scope="col" className="num">
                {t('rfqLead')}
              </th>
              <th scope="col">{t('rfqSource')}</th>
            </tr>
          </thead>
          <tbody>
            {quoteRows(rfq).map((q) => (
              <QuoteRow key={`${q.lineNo}-${q.supplier.id}`} rfq={rfq} quote={q} name={name(q.supplier)} />
            ))}
          </tbody>
        </table>
      )}

      <h3>{t('rfqProposal')}</h3>
      {proposal.ranking.length === 0 ? (
        <p className="muted">{t('rfqNoRanking')}</p>
      ) : (
        <ol className="rfq-ranking" data-testid="rfq-ranking">
          {proposal.ranking.map((r) => (
            <li key={r.supplier.id} data-testid="rfq-ranked" data-supplier={r.supplier.id}>
              <div className="rfq-ranked-head">
                <strong>
                  {r.rank}. {name(r.supplier)}
                </strong>
                {proposal.recommended?.id === r.supplier.id && (
                  <span className="badge badge-ok" data-testid="rfq-recommended">
                    {t('rfqRecommended')}
                  </span>
                )}
                <span className="muted">
                  {t('rfqScore')} {r.score.toFixed(3)} · {t('rfqLanded')} {cny(r.landedCostCny)}
                </span>
                {rfq.permissions.award && (
                  <button
                    type="button"
                    className="btn btn-small btn-primary"
                    data-testid="rfq-award-button"
                    onClick={() => onAward(rfq.rfqNo, r.supplier)}
                  >
                    {t('rfqAward').replace('{name}', name(r.supplier))}
                  </button>
                )}
              </div>
              <ul className="rfq-why">
                {r.why.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
      {rfq.permissions.award && proposal.ranking.length > 0 && <p className="muted">{t('rfqAwardHint')}</p>}
      {!rfq.permissions.award && rfq.permissions.reason && !rfq.award && (
        <p className="muted" data-testid="rfq-award-reason">
          {rfq.permissions.reason}
        </p>
      )}
      {proposal.excluded.length > 0 && (
        <>
          <h4>{t('rfqExcluded')}</h4>
          <ul className="rfq-excluded" data-testid="rfq-excluded">
            {proposal.excluded.map((e) => (
              <li key={`${e.supplier.id}-${e.lineNo}-${e.reason}`} data-reason={e.reason}>
                <strong>{name(e.supplier)}</strong>
                {e.lineNo !== null && ` · ${t('rfqLine')} ${e.lineNo}`} · {t(`excl_${e.reason}`)} — {e.detail}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** One quote: as the supplier stated it, then the ERP's effective CNY figures at the asked quantity, and its source. */
function QuoteRow({ rfq, quote: q, name }: { rfq: RfqDetailView; quote: RfqQuoteView; name: string }) {
  const t = useT();
  const source = quoteMessage(rfq, q);
  const stated =
    q.status === 'quoted'
      ? `${q.unitPrice} ${q.currency}${q.freight ? ` + ${t('rfqFreight')} ${q.freight}` : ''}`
      : t(`quote_${q.status}`);
  return (
    <tr data-testid="rfq-quote" data-supplier={q.supplier.id} data-line={q.lineNo}>
      <td data-label={t('rfqLine')}>{q.lineNo}</td>
      <td data-label={t('rfqSupplier')}>
        {name}
        {q.late && <span className="badge badge-warn"> {t('rfqLate')}</span>}
      </td>
      <td data-label={t('rfqQuoted')}>
        {stated}
        {q.flag && <span className="muted"> {q.flag}</span>}
        {q.effectiveReason && <span className="muted"> {q.effectiveReason}</span>}
      </td>
      <td data-label={t('rfqEffUnit')} className="num" data-testid="eff-unit">
        {q.effective ? cny(q.effective.unitPriceCny) : '—'}
        {q.effective?.priceBreakMinQty != null && (
          <span className="muted">
            {' '}
            ({t('rfqBreak')}
            {q.effective.priceBreakMinQty})
          </span>
        )}
      </td>
      <td data-label={t('rfqEffTotal')} className="num" data-testid="eff-total">
        {q.effective ? cny(q.effective.totalCny) : '—'}
      </td>
      <td data-label={t('rfqLead')} className="num">
        {q.leadTimeDays ?? '—'}
      </td>
      <td data-label={t('rfqSource')}>
        {source ? (
          <a href={`#/rfqs/${rfq.id}/messages/${source.id}`} data-testid="quote-source">
            {t(`source_${q.source.kind}`)}
            {q.source.attachment ? ` · ${q.source.attachment}` : ''}
          </a>
        ) : (
          <span>
            {t(`source_${q.source.kind}`)}
            {q.source.from ? ` · ${q.source.from}` : ''}
          </span>
        )}
      </td>
    </tr>
  );
}

function RfqMessage({ client, id, message }: { client: ChatClient; id: number; message: number }) {
  const t = useT();
  const [mail, setMail] = useState<RfqMessageView>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    client
      .rfqMessage(id, message)
      .then((m) => live && setMail(m))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [client, id, message]);
  return (
    <>
      <a href={`#/rfqs/${id}`} className="link">
        {t('rfqBackToRfq')}
      </a>
      <h2 id="rfqs-heading">{mail ? mail.subject : t('rfqMessage')}</h2>
      {error && <p className="banner banner-error">{error}</p>}
      {mail && (
        <article className="rfq-message" data-testid="rfq-message">
          <p className="muted">
            {t('rfqMessageFrom')} {mail.sender} · {when(mail.at)} · {mail.outcome}
            {mail.reason ? ` · ${mail.reason}` : ''}
          </p>
          {mail.attachments.length > 0 && (
            <ul className="rfq-attachments" data-testid="rfq-attachments" aria-label={t('rfqAttachments')}>
              {mail.attachments.map((a, position) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: an attachment is named by its place in the mail, which never changes
                <li key={`${a.name}-${position}`}>
                  {a.name}{' '}
                  <span className="muted">
                    ({a.type}, {Math.ceil(a.size / 1024)} KiB)
                  </span>{' '}
                  {a.stored && (
                    <button
                      type="button"
                      className="btn btn-small"
                      data-testid="rfq-attachment-download"
                      onClick={() =>
                        client
                          .rfqAttachment(id, message, position)
                          .then((blob) => saveBlob(blob, a.name))
                          .catch((e: Error) => setError(e.message))
                      }
                    >
                      {t('rfqDownload')}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
          {/* What a supplier wrote is data: shown as text, never as markup. */}
          <pre className="rfq-message-body">{mail.body}</pre>
        </article>
      )}
    </>
  );
}
