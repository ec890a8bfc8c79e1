import type { ChoiceOption } from '../../../protocol/index.ts';
import {
  type CategoryRef,
  categoryLabel,
  displayName,
  type PartRef,
  type SupplierRef,
  shortName,
} from './catalogue.ts';

/**
 * What an order question offers and how it is put. The options are the ERP's own candidates, as the order agent's
 * tools returned them (the suppliers of the matched parts, the parts, quantities from the part's minimum order
 * quantity); the question restates what was understood (what, from whom, how many), never the words left over.
 */

/** At most this many options a card offers (the question tools' limit); "Other (type it)" comes after them. */
const MAX_OPTIONS = 8;

const yuan = (n: number) => `¥${n.toFixed(2)}`;

/**
 * The suppliers that supply the matched parts, most matching parts first, then the lowest price: at most 8, each
 * labelled with how many of the parts it has and its lowest list price. Values are `supplier:<id>`.
 */
export function supplierOptions(parts: PartRef[], en = false): ChoiceOption[] {
  const bySupplier = new Map<number, { supplier: PartRef['supplier']; count: number; lowest: number }>();
  for (const p of parts) {
    const entry = bySupplier.get(p.supplier.id) ?? { supplier: p.supplier, count: 0, lowest: p.unitPrice };
    entry.count++;
    entry.lowest = Math.min(entry.lowest, p.unitPrice);
    bySupplier.set(p.supplier.id, entry);
  }
  return rankSuppliers([...bySupplier.values()])
    .slice(0, MAX_OPTIONS)
    .map((e) => ({
      label: (en
        ? `${displayName(e.supplier, true)} · ${e.count} parts · from ${yuan(e.lowest)}`
        : `${e.supplier.name} · ${e.count} 个零部件 / parts · ${yuan(e.lowest)} 起 / from`
      ).slice(0, 120),
      value: `supplier:${e.supplier.id}`,
    }));
}

/** Most matching parts first, then the lowest price, then the name: the same order for the same ERP answers. */
export function rankSuppliers<T extends { supplier: { name: string }; count: number; lowest: number }>(list: T[]): T[] {
  return [...list].sort(
    (a, b) => b.count - a.count || a.lowest - b.lowest || a.supplier.name.localeCompare(b.supplier.name),
  );
}

/** The parts to choose among (supplier, code, name, list price) in the user's language: at most 8, values `part:<id>`. */
export const partOptions = (parts: PartRef[], en = false): ChoiceOption[] =>
  parts.slice(0, MAX_OPTIONS).map((p) => ({
    label: `${displayName(p.supplier, en)} · ${p.code} ${displayName(p, en)} ${yuan(p.unitPrice)}`.slice(0, 120),
    value: `part:${p.id}`,
  }));

/** Quantities from the part's minimum order quantity: 1, 2, 5 and 10 times it. Values are the numbers. */
export const quantityOptions = (part: PartRef): ChoiceOption[] =>
  [1, 2, 5, 10].map((k) => {
    const q = part.moq * k;
    return {
      label: `${q} ${part.unit ?? ''}${k === 1 ? '（最小起订量 / MOQ）' : ''}`.replace(/ (?=（)|\s+$/g, ''),
      value: String(q),
    };
  });

/** The id an option value stands for (`supplier:12` → 12), or undefined for anything else (a typed answer). */
export function optionId(value: unknown, kind: 'supplier' | 'part'): number | undefined {
  const m = typeof value === 'string' ? new RegExp(`^${kind}:(\\d+)$`).exec(value) : null;
  return m ? Number(m[1]) : undefined;
}

/** What an order question knows: the parts in question, the supplier, the quantity. */
export interface Understood {
  parts: PartRef[];
  supplier?: SupplierRef;
  quantity?: number;
  categories: CategoryRef[];
}

/** What is asked: which of supplier, part and quantity the person still has to give. */
export type Asked = ReadonlyArray<'supplier' | 'part' | 'quantity' | string>;

/**
 * The request restated as the question, in Chinese then English: "要订 200 只火花塞，请选择供应商 / 200 spark plugs —
 * which supplier?". Built from what was understood, so it never quotes words the reading left over.
 */
export function restate(u: Understood, asked: Asked): string {
  const { zh, en } = described(u);
  const from = u.supplier
    ? { zh: `向${shortName(u.supplier)}`, en: ` from ${displayName(u.supplier, true)}` }
    : { zh: '', en: '' };
  // One model from several suppliers: choosing the part is choosing whose offer.
  const offers = u.parts.length > 1 && new Set(u.parts.map((p) => p.model)).size === 1;
  const asks = [
    asked.includes('supplier')
      ? { zh: u.parts.length ? '选择供应商' : '填写供应商', en: 'which supplier', name: '供应商' }
      : undefined,
    asked.includes('part')
      ? offers
        ? { zh: '选择供应商', en: 'from which supplier', name: '零部件' }
        : { zh: u.parts.length > 1 ? '选择零部件' : '填写零部件名称或型号', en: 'which part', name: '零部件' }
      : undefined,
    asked.includes('quantity') ? { zh: '填写数量', en: 'how many', name: '数量' } : undefined,
  ].filter((a) => a !== undefined);
  const zhAsk =
    asks.length > 2
      ? `补充${asks
          .slice(0, -1)
          .map((a) => a.name)
          .join('、')}和${asks.at(-1)?.name}`
      : asks.map((a) => a.zh).join('并');
  const enAsk =
    asks.length > 1
      ? `${asks
          .slice(0, -1)
          .map((a) => a.en)
          .join(', ')} and ${asks.at(-1)?.en}`
      : (asks[0]?.en ?? 'is this right');
  const zhWhat = zh
    ? `要${from.zh}订${/^\d/.test(zh) ? ' ' : ''}${zh}`
    : u.supplier
      ? `要${from.zh}下单`
      : '要下采购单';
  const enWhat = en ? `${en}${from.en}` : u.supplier ? `An order${from.en}` : 'A new order';
  return `${zhWhat}，请${zhAsk || '确认'} / ${enWhat} — ${enAsk}?`;
}

/** The thing asked about, by what the ERP calls it: one part by its name, several by their category. */
function described(u: Understood): { zh: string; en: string } {
  const [first] = u.parts;
  if (!first) return { zh: '', en: '' };
  const unit = u.parts.every((p) => p.unit === first.unit) ? (first.unit ?? '个') : '个';
  const count = u.quantity ? { zh: `${u.quantity} ${unit}`, en: `${u.quantity} ` } : { zh: '', en: '' };
  if (u.parts.length === 1)
    return { zh: `${count.zh}${first.name}（${first.code}）`.trim(), en: `${count.en}${first.code}` };
  const models = new Set(u.parts.map((p) => p.model));
  const category = u.categories.find((c) => u.parts.every((p) => p.category === c.code));
  const label = categoryLabel(u.parts);
  const english = category?.nameEn ?? first.category.replace(/_/g, ' ');
  if (models.size === 1)
    return {
      zh: `${count.zh}${label} ${first.model}`.trim(),
      en: `${count.en}${first.model} (${english.toLowerCase()})`,
    };
  const plural = u.quantity !== 1 ? pluralOf(english) : english;
  return {
    zh: `${count.zh}${label}`.trim(),
    en: count.en ? `${count.en}${plural.toLowerCase()}` : capitalised(plural),
  };
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** An English noun's plural, for a category name ("Spark plug" → "Spark plugs", "Battery" → "Batteries"). */
function pluralOf(noun: string): string {
  if (/[^aeiou]y$/i.test(noun)) return `${noun.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)$/i.test(noun)) return `${noun}es`;
  return `${noun}s`;
}
