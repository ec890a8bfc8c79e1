import { isReadOnly } from '../../protocol/index.ts';
import { ProblemError } from '../../shared/index.ts';
import type { OrderStatus } from '../db/schema.ts';
import type { ErpContext } from './context.ts';

/** Who stands behind an order, as the four-eyes rules read it. */
export interface OrderDuties {
  orderNo: string;
  status: OrderStatus;
  creator: { id: number; username: string };
  /** Who last changed its lines, date or note, or submitted it. */
  editor: { id: number; username: string };
}

/** The problem code of a four-eyes refusal: clients and tools tell it apart from a missing role. */
export const FOUR_EYES = 'four_eyes';

const FINAL: readonly OrderStatus[] = ['received', 'cancelled'];

/**
 * Segregation of duties, as procurement controls expect it: only an order's creator or an admin changes or cancels
 * it, and neither its creator nor its last editor approves it, admins included. Returns why `ctx` may not change the
 * order, or undefined. Applies only while the project's policy has four eyes on.
 */
export function changeRefusal(ctx: ErpContext, order: OrderDuties, fourEyes: boolean): string | undefined {
  if (!fourEyes || ctx.role === 'admin' || order.creator.id === ctx.userId) return undefined;
  return `四眼原则：只有订单创建人 ${order.creator.username} 或管理员可以修改或取消订单 ${order.orderNo} / four eyes: only the order's creator (${order.creator.username}) or an admin may change or cancel ${order.orderNo}`;
}

/** Why `ctx` may not approve the order under four eyes (they created it or last changed it), or undefined. */
export function approvalRefusal(ctx: ErpContext, order: OrderDuties, fourEyes: boolean): string | undefined {
  if (!fourEyes) return undefined;
  if (order.creator.id === ctx.userId)
    return `四眼原则：订单 ${order.orderNo} 由您创建，须由另一位管理员审批 / four eyes: you created ${order.orderNo}, so another admin must approve it`;
  if (order.editor.id === ctx.userId)
    return `四眼原则：订单 ${order.orderNo} 最后由您修改，须由另一位管理员审批 / four eyes: you last changed ${order.orderNo}, so another admin must approve it`;
  return undefined;
}

/** A four-eyes refusal as the ERP answers it: 403 with its own code. */
export const fourEyesRefused = (message: string) => new ProblemError(403, FOUR_EYES, message);

/** What `ctx` may do with the order now: change (or cancel) it, approve it, and why not when either is refused. */
export function permissionsFor(
  ctx: ErpContext,
  order: OrderDuties,
  fourEyes: boolean,
): { change: boolean; approve: boolean; reason: string | null } {
  const changeWhyNot = isReadOnly(ctx)
    ? '只读用户不能修改订单 / viewers cannot change orders'
    : FINAL.includes(order.status)
      ? `订单状态 ${order.status} 不能再修改 / an order in ${order.status} can no longer change`
      : changeRefusal(ctx, order, fourEyes);
  const approveWhyNot =
    ctx.role !== 'admin'
      ? '只有管理员可以审批订单 / only an admin may approve orders'
      : order.status !== 'pending_approval'
        ? `订单状态 ${order.status} 不在待审批 / order is ${order.status}, not pending approval`
        : approvalRefusal(ctx, order, fourEyes);
  // The reason that matters most: a four-eyes refusal, else whichever applies.
  const reason =
    [changeWhyNot, approveWhyNot].find((why) => why?.startsWith('四眼')) ?? changeWhyNot ?? approveWhyNot ?? null;
  return { change: !changeWhyNot, approve: !approveWhyNot, reason };
}
