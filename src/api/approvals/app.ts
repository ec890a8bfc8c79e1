import { Hono } from 'hono';
import { type ApiEnv, parseInput, parseJson } from '../http.ts';
import type { OrderNotices } from './order-notices.ts';
import type { OrderApprovals } from './queue.ts';
import { ApprovalBody, OrderIdParam } from './schemas.ts';

export interface ApprovalsAppDeps {
  approvals: OrderApprovals;
  /** Tells the conversation that drafted an order what the admin decided. */
  notices: OrderNotices;
}

/** The admin's approval queue: orders waiting for a decision, and the decision (told back to the conversation). */
export function approvalsApp(deps: ApprovalsAppDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/approvals', async (c) => c.json(await deps.approvals.pending(c.var.user)));
  app.post('/approvals/:order_id', async (c) => {
    const body = await parseJson(c, ApprovalBody);
    const order = await deps.approvals.decide(
      c.var.user,
      parseInput(OrderIdParam, c.req.param('order_id'), 'order_id'),
      body,
    );
    await deps.notices.decided(order);
    return c.json(order);
  });

  return app;
}
