import type { AgentHarness, TurnResult } from '../bench/eval/local-stack.ts';
import { SOURCES_HEADING } from '../src/protocol/index.ts';
import { classTally, recordTally } from './evaluation.ts';

/** A part one supplier offers, as generated requests name it. */
export interface Offer {
  partId: number;
  code: string;
  model: string;
  nameZh: string;
  nameEn: string;
  category: string;
  price: number;
  moq: number;
  supplierId: number;
  supplierZh: string;
  supplierEn: string;
}

/** The everyday name of a supplier: its Chinese name up to the bracket or company form, or its first English word. */
export const shortZh = (name: string) =>
  name.replace(/[（(].*$/, '').replace(/(?:汽车部件|汽车零部件|零部件|有限公司|公司).*$/, '');
export const shortEn = (name: string) => name.split(/\s+/)[0];

const WRITES = new Set(['order_create', 'order_update', 'order_cancel']);
/** The approval card of an order write the turn drafted, if any. */
export const writeDraft = (turn: TurnResult) =>
  turn.interrupts.find((i) => i.value.kind === 'approval' && WRITES.has(String(i.value.tool)));

/**
 * Why an answer (or report) to an English request is not all English, or undefined: what it says before its sources
 * section has no Chinese character besides the bilingual labels (`已下单 / ordered`), so suppliers and parts go by
 * their English names, and it names each of `suppliers` by its English name as the ERP keeps it.
 */
export function notEnglish(answer: string, ...suppliers: string[]): string | undefined {
  const sources = answer.lastIndexOf(SOURCES_HEADING);
  const body = (sources < 0 ? answer : answer.slice(0, sources)).replace(/[\u3400-\u9fff]+ \/ (?=[A-Za-z])/g, '');
  const chinese = /[^\n]*[\u3400-\u9fff][^\n]*/.exec(body)?.[0];
  if (chinese) return `Chinese in an English answer: ${chinese.trim().slice(0, 160)}`;
  const unnamed = suppliers.filter((s) => !body.includes(s));
  return unnamed.length ? `${unnamed.join(', ')} not named in English: ${body.slice(0, 160)}` : undefined;
}

/**
 * Why an English comparison does not go by the English names the ERP keeps (`englishNames`), or undefined: each
 * supplier it compared is one of them, and its answer and its report are all English and name them all.
 */
export function notEnglishComparison(
  compared: string[],
  englishNames: string[],
  answer: string,
  report: string,
): string | undefined {
  const unknown = compared.filter((s) => !englishNames.includes(s));
  if (unknown.length) return `compared ${unknown.join(', ')}: not an English name in the ERP`;
  return notEnglish(answer, ...compared) ?? notEnglish(report, ...compared);
}

/** Every part of the demo project with its supplier, read from the ERP's own tables. */
export async function offers(db: AgentHarness['erp']['database']['db']): Promise<Offer[]> {
  const rows = await db
    .selectFrom('parts')
    .innerJoin('suppliers', 'suppliers.id', 'parts.supplier_id')
    .select([
      'parts.id as partId',
      'parts.code',
      'parts.model',
      'parts.name_zh as nameZh',
      'parts.name_en as nameEn',
      'parts.category',
      'parts.unit_price_e4',
      'parts.moq',
      'suppliers.id as supplierId',
      'suppliers.name_zh as supplierZh',
      'suppliers.name_en as supplierEn',
    ])
    .where('parts.project_id', '=', 'P001')
    .execute();
  return rows.map((r) => ({ ...r, price: r.unit_price_e4 / 10_000 }));
}

/** Judges each of `list`, `workers` at a time (each is a whole agent run); returns the misses, in no set order. */
export async function judgeEach<T>(
  list: readonly T[],
  judge: (item: T, index: number) => Promise<string | undefined>,
  workers = 3,
): Promise<string[]> {
  const misses: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      const miss = await judge(list[i], i);
      if (miss) misses.push(miss);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return misses;
}

/**
 * Judges a generated set of requests and records the share right, overall and per class, then every miss (printed,
 * and tabulated by `npm run eval`); returns the count right and the misses for the test's bar (`passBar`).
 */
export async function scoreFresh<T extends { cls: string }>(
  set: { name: string; seed?: number; bar: number },
  list: readonly T[],
  judge: (item: T, index: number) => Promise<string | undefined>,
  workers: number,
): Promise<{ right: number; misses: string[] }> {
  const tally = classTally();
  const misses = await judgeEach(
    list,
    async (item, i) => {
      const miss = await judge(item, i);
      tally.count(item.cls, !miss);
      return miss;
    },
    workers,
  );
  const right = list.length - misses.length;
  recordTally({
    set: set.name,
    seed: set.seed,
    right,
    total: list.length,
    bar: set.bar,
    byClass: tally.byClass,
    misses,
  });
  return { right, misses };
}
