import { cite, sourcesList } from '../../../protocol/index.ts';
import { isEnglish } from './asks.ts';
import { codeTokens, displayName } from './catalogue.ts';
import { type ConversationView, items, type Plan } from './conversation.ts';
import { ground, type TaskTexts } from './grounding.ts';
import { categoryName } from './lookups.ts';
import { SourceBook } from './provenance.ts';

interface StockItem {
  partId: number;
  code: string;
  name: string;
  nameEn?: string;
  unit?: string;
  supplier?: { id: number; name: string; nameEn?: string };
  onHand: number;
  safetyStock: number;
  onOrder?: number;
  suggestedQuantity: number;
}

/**
 * "点火线圈的库存还有多少？", "how many F7TC do we have in stock?": the stock of what the request names — every part
 * of its category, only the model when one is said, or a supplier's parts — low or not, with what is on order. It
 * is undefined when the request names no part or supplier: the stock warnings answer that.
 */
export function planStock(view: ConversationView, texts: TaskTexts): Plan | undefined {
  if (!view.tools.has('inventory_query')) return undefined;
  const grounded = ground(view, texts);
  if ('plan' in grounded) return grounded.plan;
  const { facts } = grounded;
  const { current } = facts;
  const supplier = current.suppliers[0];
  const categories = [...new Set(current.parts.map((p) => p.category))].slice(0, 3);
  if (!categories.length && !supplier) return undefined;
  const queries = categories.length
    ? categories.map((category) => ({ category, ...(supplier ? { supplierId: supplier.id } : {}) }))
    : [{ supplierId: supplier.id }];
  const steps = queries.map((args) =>
    view.steps.find((s) => s.name === 'inventory_query' && JSON.stringify(s.args) === JSON.stringify(args)),
  );
  const missing = queries.filter((_, i) => !steps[i]);
  if (missing.length) return { toolCalls: missing.map((args) => ({ name: 'inventory_query', args })) };
  if (steps.some((s) => s?.text === undefined)) return {};
  // A model said (F7TC) narrows its category to that model's parts; a category said keeps all of them.
  const namedParts = new Set(codeTokens(current.reading.text).length ? current.parts.map((p) => p.id) : []);
  const book = new SourceBook();
  const english = isEnglish(texts.words);
  const lines: string[] = [];
  for (const step of steps) {
    if (!step) continue;
    const at = cite([book.erp(step)]);
    for (const s of items<StockItem>(step).filter((s) => !namedParts.size || namedParts.has(s.partId))) {
      const low = s.onHand <= s.safetyStock;
      const by = s.supplier ? displayName(s.supplier, english) : '';
      const name = displayName(s, english);
      lines.push(
        english
          ? `- ${s.code} ${name} (${by}): on hand ${s.onHand}, on order ${s.onOrder ?? 0}, safety stock ${s.safetyStock}${low ? `, below safety stock: suggested reorder ${s.suggestedQuantity}` : ''} ${at}`
          : `- ${s.code} ${name}（${by}）：现有 ${s.onHand}，在途 ${s.onOrder ?? 0}，安全库存 ${s.safetyStock}${low ? `，低于安全库存，建议补货 ${s.suggestedQuantity}` : ''} ${at}`,
      );
    }
  }
  // What the stock is of, in the ERP's words: the models said, else the categories, and whose.
  const named = namedParts.size
    ? [...new Set(current.parts.map((p) => p.model))]
    : categories.map((code) => categoryName(facts, code, english));
  const whose = supplier ? displayName(supplier, english) : '';
  const what = [whose, named.join(english ? ', ' : '、')].filter(Boolean).join(' ');
  if (!lines.length)
    return {
      text: english
        ? `The ERP keeps no stock of “${what}”.`
        : `ERP 中没有「${what}」的库存记录。/ The ERP keeps no stock of “${what}”.`,
    };
  return {
    text: [
      english ? `## Stock of ${what}: ${lines.length} parts` : `## ${what} 库存：${lines.length} 个零部件`,
      ...lines,
      english
        ? 'On order counts the lines of orders awaiting approval, approved or ordered and not yet received.'
        : '在途 = 待审批、已审批和已下单（未收货）订单中的数量。',
      ...sourcesList(book.sources),
    ].join('\n'),
  };
}
