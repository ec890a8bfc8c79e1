import { useState } from 'react';
import type { AdminDecision, ChatClient, PendingOrderView } from '../../../src/protocol/index.ts';
import { useT } from '../i18n.ts';
import { useListing } from '../useListing.ts';
import { money, PriceCheckBadge } from './PriceCheck.tsx';

const readPending = (client: ChatClient) => client.pendingOrders();

/** The admin's queue of orders waiting for approval: reasons, price checks, and a decision with a comment. */
export function ApprovalQueue({ client }: { client: ChatClient }) {
  const t = useT();
  const { items: orders, error, setError, load } = useListing(client, readPending);
  const [comments, setComments] = useState<Record<number, string>>({});
  const [busy, setBusy] = useState<number>();

  const decide = async (order: PendingOrderView, decision: AdminDecision['decision']) => {
    setBusy(order.id);
    try {
      const comment = comments[order.id]?.trim();
      await client.decideOrder(order.id, {
        decision,
        version: order.version,
        ...(comment ? { comment } : {}),
      });
      await load();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <div className="approval-queue" data-testid="approval-queue">
      <div className="queue-head">
        <strong>{t('pendingOrders')}</strong>
        <button type="button" className="link" onClick={() => void load()}>
          {t('refresh')}
        </button>
      </div>
      {error && <p className="banner banner-error">{error}</p>}
      {orders && !orders.length && <p className="empty-small">{t('noPendingOrders')}</p>}
      {orders?.map((order) => (
        <section key={order.id} className="queue-order" data-testid="pending-order" data-order-no={order.orderNo}>
          <header>
            <strong>{order.orderNo}</strong> · {order.supplier.nameZh} · {money(order.totalAmount)}
            <div className="muted">
              {order.createdBy.username} · {order.createdAt.slice(0, 16).replace('T', ' ')}
            </div>
          </header>
          {order.approval && <p className="queue-reason">{order.approval.reason}</p>}
          {order.permissions && !order.permissions.approve && order.permissions.reason && (
            <p className="queue-four-eyes" data-testid="four-eyes">
              {order.permissions.reason}
            </p>
          )}
          <ul className="queue-lines">
            {order.lines.map((line) => (
              <li key={line.lineNo}>
                {line.part.code} {line.part.nameZh} × {line.quantity} @ {money(line.unitPrice)}
                {line.priceCheck && <PriceCheckBadge check={line.priceCheck} />}
              </li>
            ))}
          </ul>
          <input
            type="text"
            placeholder={t('reviewComment')}
            aria-label={t('reviewComment')}
            value={comments[order.id] ?? ''}
            onChange={(e) => setComments((c) => ({ ...c, [order.id]: e.target.value }))}
          />
          <div className="queue-actions">
            <button
              type="button"
              className="btn btn-primary"
              disabled={busy === order.id || order.permissions?.approve === false}
              onClick={() => void decide(order, 'approve')}
            >
              {t('approve')}
            </button>
            <button
              type="button"
              className="btn"
              disabled={busy === order.id}
              onClick={() => void decide(order, 'reject')}
            >
              {t('returnOrder')}
            </button>
          </div>
        </section>
      ))}
    </div>
  );
}
