import type { RfqAwardPreview } from '../../erp/index.ts';
import type { ApprovalDetails, PriceSeverity } from '../../protocol/index.ts';
import type { ToolContext, ToolRegistry } from '../../tools/index.ts';

/** What the approval card shows besides the call's arguments: what the tool declares (a skill's text), or the
 *  names, codes and list prices behind the ids of an order write, read as the user. */
export async function approvalDetails(
  registry: ToolRegistry,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ApprovalDetails | undefined> {
  const declared = await registry.approvalDetails(tool, args, ctx);
  if (declared) return declared;
  if (tool === 'rfq_award') return awardDetails(registry, args, ctx);
  // Only an order write's card shows the lines behind its ids: another write (an RFQ award names a supplier too) is
  // not looked up for a card that would not show it.
  if (!tool.startsWith('order_')) return undefined;
  const orderId = Number(args.orderId);
  let supplierId = Number(args.supplierId);
  const details: ApprovalDetails = {};
  if (orderId) {
    const order = (await registry.execute('order_get', { orderId }, ctx)) as {
      orderNo?: string;
      status?: string;
      totalAmount?: number;
      supplier?: { id: number; name: string };
    };
    if (order.orderNo)
      details.order = { orderNo: order.orderNo, status: order.status ?? '', totalAmount: order.totalAmount ?? 0 };
    if (order.supplier) supplierId ||= order.supplier.id;
  }
  if (!supplierId) return details.order ? details : undefined;
  const parts = (await registry.execute('part_by_supplier', { supplierId }, ctx)) as {
    items?: Array<{
      id: number;
      code: string;
      name: string;
      nameEn?: string;
      unit: string;
      unitPrice: number;
      supplier: { name: string; nameEn?: string };
    }>;
  };
  const asked = (Array.isArray(args.lines) ? args.lines : []) as Array<{ partId?: number; unitPrice?: number }>;
  details.supplier = parts.items?.[0]?.supplier.name;
  if (parts.items?.[0]?.supplier.nameEn) details.supplierEn = parts.items[0].supplier.nameEn;
  details.lines = await Promise.all(
    (parts.items ?? [])
      .filter((p) => asked.some((l) => l.partId === p.id))
      .map(async (p) => {
        // The price the order would pay, checked against what the project paid over 12 months.
        const unitPrice = asked.find((l) => l.partId === p.id)?.unitPrice ?? p.unitPrice;
        const check = (await registry.execute('price_check', { partId: p.id, unitPrice, supplierId }, ctx)) as {
          severity?: PriceSeverity;
          deviationPct?: number | null;
          median12m?: number | null;
        };
        return {
          partId: p.id,
          code: p.code,
          name: p.name,
          ...(p.nameEn ? { nameEn: p.nameEn } : {}),
          unit: p.unit,
          listPrice: p.unitPrice,
          ...(check.severity
            ? {
                priceCheck: {
                  unitPrice,
                  severity: check.severity,
                  deviationPct: check.deviationPct ?? null,
                  median12m: check.median12m ?? null,
                },
              }
            : {}),
        };
      }),
  );
  if (tool === 'order_create' && details.lines?.length) {
    const preview = await orderPreview(registry, args, ctx);
    if (preview) details.preview = preview;
  }
  return details;
}

/** The ERP's preview of a new order: its total and the approval policy's decision, or the ERP's reason to refuse. */
async function orderPreview(
  registry: ToolRegistry,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ApprovalDetails['preview']> {
  // A company's ERP MCP server may offer no preview; the card then shows the lines and their checks alone.
  if (!registry.get('order_preview')) return undefined;
  const { submit: _submit, idempotencyKey: _key, ...order } = args;
  const answer = (await registry.execute('order_preview', order, ctx)) as {
    success?: false;
    error?: string;
    unavailable?: string;
    totalAmount?: number;
    approval?: Extract<ApprovalDetails['preview'], { approval: unknown }>['approval'];
  };
  // The ERP being down is no refusal of the order: the card goes without a preview.
  if (answer.success === false && answer.unavailable) return undefined;
  if (answer.success === false || answer.totalAmount === undefined || !answer.approval)
    return { refused: answer.error ?? 'no preview' };
  return { totalAmount: answer.totalAmount, approval: answer.approval };
}

/**
 * An award's card: the ERP's preview of the award (the order it writes, line by line with its price checks, the total
 * and the approval policy's decision), whether it closes the RFQ first, and the supplier's rank with its reasons.
 */
async function awardDetails(
  registry: ToolRegistry,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ApprovalDetails | undefined> {
  // A company's ERP MCP server may offer no preview; the card then shows the call's arguments alone.
  if (!registry.get('rfq_award_preview')) return undefined;
  const answer = (await registry.execute('rfq_award_preview', args, ctx)) as
    | (RfqAwardPreview & { success?: undefined })
    | { success: false; error?: string; unavailable?: string };
  if (answer.success === false) return answer.unavailable ? undefined : { preview: { refused: answer.error ?? '' } };
  const { order } = answer;
  return {
    supplier: order.supplier.nameZh,
    ...(order.supplier.nameEn ? { supplierEn: order.supplier.nameEn } : {}),
    lines: order.lines.map((line) => ({
      partId: line.partId,
      code: line.part.code,
      name: line.part.nameZh,
      ...(line.part.nameEn ? { nameEn: line.part.nameEn } : {}),
      unit: line.part.unit,
      listPrice: line.unitPrice,
      quantity: line.quantity,
      ...(line.priceCheck
        ? {
            priceCheck: {
              unitPrice: line.unitPrice,
              severity: line.priceCheck.severity,
              deviationPct: line.priceCheck.deviationPct,
              median12m: line.priceCheck.median12m,
            },
          }
        : {}),
    })),
    preview: { totalAmount: order.totalAmount, approval: order.approval },
    award: { rfqNo: answer.rfqNo, closes: answer.closes, rank: answer.rank, ranked: answer.ranked, why: answer.why },
  };
}
