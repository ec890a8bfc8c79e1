import { DEMO_SUPPLIERS, PART_CATEGORIES } from '../../../erp/index.ts';
import { type ConversationView, called, lastStep, type ToolStep, userWords } from './conversation.ts';
import type { Plan } from './model.ts';

interface PartItem {
  id: number;
  code: string;
  model: string;
  name: string;
  unitPrice: number;
  moq: number;
  supplier: { id: number; name: string };
}

interface OrderItem {
  id: number;
  orderNo: string;
  status: string;
  version: number;
  supplier: { name: string };
  totalAmount: number;
  /** The ERP approval policy's decision on submission. */
  approval?: { rule: string; reason: string };
  lines: Array<{
    code: string;
    name: string;
    quantity: number;
    unit: string;
    unitPrice: number;
    priceCheck?: { severity: string; reason: string };
  }>;
}

/** What the user asked for, as far as the words say. */
export interface OrderRequest {
  quantity?: number;
  supplier?: string;
  part?: string;
}

const ORDER_NO = /PO-\d{6}-[A-Z]?\d+/i;

/** Reads quantity, supplier and part from a request such as "给博世下 200 个 F7TC 火花塞的采购单" or "order 200 F7TC plugs from Bosch". */
export function readOrderRequest(text: string): OrderRequest {
  const quantity =
    /(\d{1,7})\s*(?:个|只|件|套|副|条|块|pcs|units?|x\b)/i.exec(text)?.[1] ?? /\border\s+(\d{1,7})\b/i.exec(text)?.[1];
  const supplier = DEMO_SUPPLIERS.find(
    (s) =>
      text.includes(s.nameZh) ||
      text.toLowerCase().includes(s.nameEn.toLowerCase()) ||
      text.toLowerCase().includes(s.key),
  );
  const model = /\b(?=[A-Z0-9/.-]*\d)(?=[A-Z0-9/.-]*[A-Z])[A-Z0-9][A-Z0-9/.-]{2,}\b/.exec(
    text.replace(ORDER_NO, ''),
  )?.[0];
  const category = PART_CATEGORIES.find(
    (c) => text.includes(c.nameZh) || text.toLowerCase().includes(c.nameEn.toLowerCase()),
  );
  return {
    quantity: quantity ? Number(quantity) : undefined,
    supplier: supplier?.nameZh,
    part: model ?? category?.nameZh,
  };
}

/** The order agent: resolve supplier and part, ask for what is missing, create/cancel with approval, confirm. */
export function planOrder(full: ConversationView): Plan {
  const view = { ...full, request: userWords(full.request) };
  const orderNo = ORDER_NO.exec(view.request)?.[0];
  if (orderNo) return planExistingOrder(view, orderNo.toUpperCase());

  const asked = answers(lastStep(view, 'request_order_info'));
  const wanted = { ...readOrderRequest(view.request), ...asked };
  const missing = [
    ...(wanted.supplier ? [] : ['supplier']),
    ...(wanted.part ? [] : ['part']),
    ...(wanted.quantity ? [] : ['quantity']),
  ];
  if (missing.length && !called(view, 'request_order_info')) {
    return {
      toolCalls: [
        {
          name: 'request_order_info',
          args: {
            missing_fields: missing,
            known: wanted,
            reason: '下单前需要补全这些信息 / these details are needed before ordering',
          },
        },
      ],
    };
  }
  if (missing.length)
    return {
      text: `缺少下单信息：${missing.join('、')}，未创建订单。/ Missing ${missing.join(', ')}: no order was created.`,
    };

  const lookups = view.steps.filter((s) => s.name === 'part_search' || s.name === 'supplier_query');
  if (!lookups.some((s) => s.name === 'part_search' && s.args.name === wanted.part)) {
    return {
      toolCalls: [
        { name: 'supplier_query', args: { name: wanted.supplier } },
        { name: 'part_search', args: { name: wanted.part, limit: 50 } },
      ],
    };
  }
  const supplier = (
    lastStep(view, 'supplier_query')?.result as { items?: Array<{ id: number; name: string }> } | undefined
  )?.items?.[0];
  if (!supplier)
    return {
      text: `ERP 中没有找到供应商「${wanted.supplier}」，未创建订单。/ Supplier not found: no order was created.`,
    };
  let candidates = items<PartItem>(lastStep(view, 'part_search')).filter((p) => p.supplier.id === supplier.id);
  const choice = answerValue(lastStep(view, 'ask_user'));
  if (choice !== undefined) candidates = candidates.filter((p) => String(p.id) === String(choice));
  if (candidates.length === 0) {
    return {
      text: `${supplier.name} 没有「${wanted.part}」这个零部件，未创建订单。/ ${supplier.name} does not supply ${wanted.part}: no order was created.`,
    };
  }
  if (candidates.length > 1) {
    if (called(view, 'ask_user'))
      return { text: '没有选定零部件，未创建订单。/ No part was chosen: no order was created.' };
    return {
      toolCalls: [
        {
          name: 'ask_user',
          args: {
            question: `${supplier.name} 有多个匹配「${wanted.part}」的零部件，要订哪一个？/ Which part do you mean?`,
            options: candidates
              .slice(0, 8)
              .map((p) => ({ label: `${p.code} ${p.name} ¥${p.unitPrice}`, value: String(p.id) })),
            multiple: false,
          },
        },
      ],
    };
  }
  const part = candidates[0];
  const created = lastStep(view, 'order_create');
  if (!created) {
    return {
      toolCalls: [
        {
          name: 'order_create',
          args: {
            supplierId: supplier.id,
            lines: [{ partId: part.id, quantity: Math.max(wanted.quantity ?? part.moq, 1) }],
            submit: true,
            note: `Procura 起草 / drafted by Procura: ${view.request.slice(0, 200)}`,
          },
        },
      ],
    };
  }
  return { text: confirmation(created) };
}

function planExistingOrder(view: ConversationView, orderNo: string): Plan {
  if (!called(view, 'order_search_details'))
    return { toolCalls: [{ name: 'order_search_details', args: { keyword: orderNo, size: 5 } }] };
  const order = items<OrderItem>(lastStep(view, 'order_search_details')).find(
    (o) => o.orderNo.toUpperCase() === orderNo,
  );
  if (!order) return { text: `没有找到订单 ${orderNo}。/ Order ${orderNo} not found.` };
  if (/取消|cancel/i.test(view.request)) {
    const cancelled = lastStep(view, 'order_cancel');
    if (!cancelled) {
      const reason = /(?:原因|because|reason)[:：]?\s*(.+)$/i.exec(view.request)?.[1]?.slice(0, 200);
      return {
        toolCalls: [
          { name: 'order_cancel', args: { orderId: order.id, version: order.version, ...(reason ? { reason } : {}) } },
        ],
      };
    }
    return { text: confirmation(cancelled) };
  }
  const quantity = /(?:改为|改成|数量|to|quantity)\s*(\d{1,7})/i.exec(view.request)?.[1];
  if (quantity && /修改|更新|改|update|change/i.test(view.request)) {
    const updated = lastStep(view, 'order_update');
    if (!updated) {
      const line = order.lines[0] as { partId?: number };
      return {
        toolCalls: [
          {
            name: 'order_update',
            args: {
              orderId: order.id,
              version: order.version,
              lines: [{ partId: line.partId, quantity: Number(quantity) }],
            },
          },
        ],
      };
    }
    return { text: confirmation(updated) };
  }
  return { text: describeOrder(order) };
}

function items<T>(step: ToolStep | undefined): T[] {
  const result = step?.result as { items?: T[] } | undefined;
  return Array.isArray(result?.items) ? result.items : [];
}

/** Fields the user supplied through `request_order_info` (supplier, part, quantity). */
function answers(step: ToolStep | undefined): OrderRequest {
  const raw = (step?.result as { answer?: unknown } | undefined)?.answer ?? step?.result;
  if (!raw || typeof raw !== 'object') return {};
  const a = raw as Record<string, unknown>;
  const out: OrderRequest = {};
  if (a.quantity !== undefined && Number(a.quantity) > 0) out.quantity = Number(a.quantity);
  if (typeof a.supplier === 'string' && a.supplier.trim())
    out.supplier = readOrderRequest(a.supplier).supplier ?? a.supplier.trim();
  if (typeof a.part === 'string' && a.part.trim()) out.part = a.part.trim();
  return out;
}

function answerValue(step: ToolStep | undefined): unknown {
  const result = step?.result as { answer?: unknown } | undefined;
  const answer = result?.answer;
  return Array.isArray(answer) ? answer[0] : answer;
}

function confirmation(step: ToolStep): string {
  const result = step.result as
    | { success?: boolean; order?: OrderItem; error?: string; suggestion?: string }
    | undefined;
  if (!result || result.success === false || !result.order) {
    const why = result?.error ?? step.text ?? '';
    return `订单未写入 ERP：${why}\nThe order was not written to the ERP.`;
  }
  return describeOrder(result.order);
}

function describeOrder(o: OrderItem): string {
  const statusZh: Record<string, string> = {
    draft: '草稿',
    pending_approval: '待审批',
    approved: '已审批',
    ordered: '已下单',
    received: '已收货',
    cancelled: '已取消',
  };
  return [
    `订单 ${o.orderNo}（${statusZh[o.status] ?? o.status} / ${o.status}），供应商 ${o.supplier.name}，金额 ¥${o.totalAmount.toFixed(2)}，版本 ${o.version}。`,
    ...o.lines.map(
      (l) =>
        `- ${l.code} ${l.name} × ${l.quantity}${l.unit ?? ''} @ ¥${l.unitPrice}${l.priceCheck && l.priceCheck.severity !== 'ok' ? `（价格检查 / price check: ${l.priceCheck.reason}）` : ''}`,
    ),
    ...(o.approval ? [`审批 / approval: ${o.approval.reason}`] : []),
  ].join('\n');
}
