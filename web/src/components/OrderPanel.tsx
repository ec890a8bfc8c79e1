import { useT } from '../i18n.ts';
import type { OpenOrder } from '../session.ts';

/** The order the agent opened: header facts and its lines. */
export function OrderPanel({ order }: { order: OpenOrder }) {
  const t = useT();
  return (
    <div className="order-panel" data-testid="order-panel">
      <h3 data-testid="order-no">{order.orderNo}</h3>
      <dl>
        <dt>{t('orderSupplier')}</dt>
        <dd>{order.supplier?.name ?? '—'}</dd>
        <dt>{t('orderStatus')}</dt>
        <dd data-testid="order-status">{order.status}</dd>
        <dt>{t('orderTotal')}</dt>
        <dd>¥{order.totalAmount.toFixed(2)}</dd>
      </dl>
      {order.lines && order.lines.length > 0 && (
        <table>
          <caption>{t('orderLines')}</caption>
          <tbody>
            {order.lines.map((line) => (
              <tr key={line.lineNo}>
                <td className="order-cell">{line.code}</td>
                <td className="order-cell">{line.name}</td>
                <td className="order-cell">
                  {line.quantity} {line.unit}
                </td>
                <td className="order-cell">¥{line.amount.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
