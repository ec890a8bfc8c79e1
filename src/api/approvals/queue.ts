import type { Order } from '../../erp/index.ts';
import type { AdminDecision, PendingOrders } from '../../protocol/index.ts';
import { forbidden } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import { erpAsUser } from '../erp-call.ts';

const MAX_PENDING = 50;

/**
 * The admin's approval queue: orders waiting in the ERP with the policy's reasons and each line's price check, and
 * the admin's decision with a comment. The ERP does the deciding and the checking, as the signed-in admin; this
 * only carries the admin's token there, so the ERP's roles and policy stay the only rules.
 */
export class OrderApprovals {
  constructor(private readonly erpUrl: string) {}

  async pending(user: ApiUser): Promise<PendingOrders & { items: Order[] }> {
    requireAdmin(user);
    const page = await this.erp<{ items: Order[]; total: number }>(user, 'GET', '/orders/search', {
      query: { status: 'pending_approval', size: MAX_PENDING },
    });
    return { items: page.items, total: page.total };
  }

  async decide(user: ApiUser, orderId: number, input: AdminDecision): Promise<Order> {
    requireAdmin(user);
    return this.erp<Order>(user, 'POST', `/orders/${orderId}/${input.decision}`, {
      body: { version: input.version, ...(input.comment ? { comment: input.comment } : {}) },
    });
  }

  private erp<T>(user: ApiUser, method: string, path: string, request: Parameters<typeof erpAsUser>[5]) {
    return erpAsUser<T>(this.erpUrl, user, 'approvals', method, path, request);
  }
}

function requireAdmin(user: ApiUser) {
  if (user.role !== 'admin') throw forbidden('只有管理员可以审批订单 / only an admin may approve orders');
}
