import { isEnglish } from '../asks.ts';
import { displayName, type PartRef, type SupplierRef } from '../catalogue.ts';
import { optionId, partOptions } from '../choices.ts';
import type { ConversationView, Plan } from '../conversation.ts';
import { type Facts, type Grounded, ground, type TaskTexts } from '../grounding.ts';
import type { LineText } from '../reading/lines.ts';

/**
 * Policy: a request of several lines drafts one order per supplier with all of its lines ("A-100 两百个、B-200 五十个，
 * 都从博世订" is one order of two lines; "F7TC 200个从博世订，D8TC 100个从电装订" two orders). Each line is grounded on
 * its own words; a line whose part or supplier is open is asked about alone, the others kept; nothing is guessed.
 */

export interface DraftLine {
  part: PartRef;
  quantity: number;
}

/** One order to draft: a supplier and every line the request orders from it, in the order said. */
export interface Draft {
  supplier: SupplierRef;
  lines: DraftLine[];
}

/** Grounds each line's words; the next look-ups to make when any line still needs them. */
function groundEach(view: ConversationView, lines: LineText[]): { plan: Plan } | { grounded: Grounded[] } {
  const grounded: Grounded[] = [];
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  let waiting = false;
  for (const line of lines) {
    const g = ground(view, { context: [], words: line.text, answers: [] });
    if ('facts' in g) {
      grounded.push(g.facts.current);
      continue;
    }
    if (g.plan.text) return g;
    if (!g.plan.toolCalls?.length) waiting = true;
    for (const call of g.plan.toolCalls ?? []) calls.set(JSON.stringify(call), call);
  }
  if (calls.size) return { plan: { toolCalls: [...calls.values()] } };
  if (waiting) return { plan: {} };
  return { grounded };
}

/** A line as the user said it, for a question or a refusal: 第 2 行「B-200 五十个」/ line 2 “B-200 fifty”. */
const lineName = (line: LineText, index: number, en: boolean) =>
  en ? `line ${index + 1} “${line.text}”` : `第 ${index + 1} 行「${line.text}」`;

/**
 * The orders a request of several lines drafts, grouped by supplier; or the question for the first line still open
 * (its candidates as options, the lines already settled restated), or why nothing can be drafted.
 */
export function draftLines(
  view: ConversationView,
  texts: TaskTexts,
  lines: LineText[],
  facts: Facts,
  answers: string[],
): { plan: Plan } | { drafts: Draft[] } {
  const each = groundEach(view, lines);
  if ('plan' in each) return each;
  const en = isEnglish(texts.words);
  // A supplier said once for the whole request ("都从博世订", "all from Bosch") is every line's that names none.
  const named = facts.current.suppliers;
  const settled: Array<DraftLine | undefined> = [];
  let answered = 0;
  let previous: SupplierRef | undefined;
  for (const [i, line] of lines.entries()) {
    const own = each.grounded[i].suppliers[0];
    const supplier = own ?? (named.length === 1 ? named[0] : previous);
    if (own) previous = own;
    let candidates = each.grounded[i].parts;
    if (supplier) {
      const models = new Set(candidates.map((p) => p.model));
      const offered = candidates.filter((p) => p.supplier.id === supplier.id);
      // The same models from the supplier said, when the words matched another's offer first.
      const same = [...facts.seen.values()].filter((p) => p.supplier.id === supplier.id && models.has(p.model));
      // A supplier that offers none of it: the line is asked with who does.
      candidates = offered.length ? offered : same.length ? same : candidates;
    }
    if (!candidates.length)
      return {
        plan: {
          text: en
            ? `No part in the ERP matches ${lineName(line, i, true)}: no order was drafted.`
            : `ERP 中没有与${lineName(line, i, false)}相符的零部件，未创建订单。/ No part in the ERP matches line ${i + 1}: no order was drafted.`,
        },
      };
    if (candidates.length === 1 && (!supplier || candidates[0].supplier.id === supplier.id)) {
      settled.push({ part: candidates[0], quantity: line.quantity });
      continue;
    }
    // Open: the next answer given is this line's, else it is asked now, alone.
    const answer = answers[answered++];
    if (answer !== undefined) {
      const picked = candidates.find((p) => p.id === optionId(answer, 'part'));
      if (!picked)
        return {
          plan: {
            text: en
              ? `No part was chosen for ${lineName(line, i, true)}: no order was drafted.`
              : `没有为${lineName(line, i, false)}选定零部件，未创建订单。/ No part was chosen for line ${i + 1}: no order was drafted.`,
          },
        };
      settled.push({ part: picked, quantity: line.quantity });
      continue;
    }
    const kept = settled
      .filter((l): l is DraftLine => l !== undefined)
      .map((l) => `${l.part.code} × ${l.quantity} (${displayName(l.part.supplier, en)})`)
      .join(en ? ', ' : '、');
    const why =
      supplier && !candidates.some((p) => p.supplier.id === supplier.id)
        ? en
          ? `${displayName(supplier, true)} does not offer it. `
          : `${supplier.name} 没有这个零部件。`
        : '';
    return {
      plan: {
        toolCalls: [
          {
            name: 'ask_user',
            args: {
              question: en
                ? `${why}Which part is ${lineName(line, i, true)} (× ${line.quantity})?${kept ? ` Settled: ${kept}.` : ''}`
                : `${why}${lineName(line, i, false)}（× ${line.quantity}）是哪个零部件？${kept ? `已确定：${kept}。` : ''}/ Which part is line ${i + 1}?`,
              options: partOptions(candidates, en),
              multiple: false,
            },
          },
        ],
      },
    };
  }
  const drafts: Draft[] = [];
  for (const [i, line] of (settled as DraftLine[]).entries()) {
    // Below the part's minimum order quantity: said for that line, nothing drafted.
    if (line.quantity < line.part.moq)
      return {
        plan: {
          text: en
            ? `${lineName(lines[i], i, true)}: ${line.quantity} is below the minimum order quantity ${line.part.moq} of ${line.part.code}; no order was drafted.`
            : `${lineName(lines[i], i, false)}：数量 ${line.quantity} 低于 ${line.part.code} 的最小起订量 ${line.part.moq}，未创建订单。/ Line ${i + 1} is below the minimum order quantity ${line.part.moq}: no order was drafted.`,
        },
      };
    const draft = drafts.find((d) => d.supplier.id === line.part.supplier.id);
    const same = draft?.lines.find((l) => l.part.id === line.part.id);
    if (same) same.quantity += line.quantity;
    else if (draft) draft.lines.push(line);
    else drafts.push({ supplier: line.part.supplier, lines: [line] });
  }
  return { drafts };
}
