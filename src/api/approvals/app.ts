import { contract } from '../../erp/index.ts';
import { PendingOrdersSchema } from '../../protocol/index.ts';
import { ApiRoutes } from '../openapi.ts';
import type { OrderNotices } from './order-notices.ts';
import type { OrderApprovals } from './queue.ts';
import { ApprovalBody, OrderIdParam } from './schemas.ts';

export interface ApprovalsAppDeps {
  approvals: OrderApprovals;
  /** Tells the conversation that drafted an order what the admin decided. */
  notices: OrderNotices;
}

/** The admin's approval queue: orders waiting for a decision, and the decision (told back to the conversation). */
export function approvalsApp(deps: ApprovalsAppDeps): ApiRoutes {
  const routes = new ApiRoutes();
  const tags = ['approvals'];

  routes.add(
    {
      method: 'get',
      path: '/approvals',
      operationId: 'listApprovals',
      summary: '等待审批的订单（管理员）/ orders waiting for an admin',
      tags,
      responses: {
        200: { description: 'pending orders', json: PendingOrdersSchema },
        403: { description: 'admins only' },
      },
    },
    async (c) => c.json(await deps.approvals.pending(c.var.user)),
  );
  routes.add(
    {
      method: 'post',
      path: '/approvals/{order_id}',
      operationId: 'decideApproval',
      summary: '批准或驳回订单 / approve or reject an order',
      tags,
      params: { order_id: OrderIdParam },
      body: ApprovalBody,
      responses: {
        200: { description: 'the order as the ERP wrote it', json: contract.OrderSchema },
        403: { description: 'admins only; nobody approves an order they created or last changed' },
        404: { description: 'no such order' },
        409: { description: 'version conflict or the order no longer waits' },
      },
    },
    async (c, { params, body }) => {
      const order = await deps.approvals.decide(c.var.user, params.order_id, body);
      await deps.notices.decided(order);
      return c.json(order);
    },
  );

  return routes;
}
