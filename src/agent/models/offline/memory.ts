import { DEMO_SUPPLIERS } from '../../../erp/index.ts';
import type { ConversationView } from './conversation.ts';
import type { Plan } from './model.ts';

/** Memory extraction, done deterministically: the suppliers named in the exchange and a short query. */
export function planMemoryExtraction(view: ConversationView): Plan {
  const text = view.request;
  const suppliers = DEMO_SUPPLIERS.filter(
    (s) => text.includes(s.nameZh) || text.toLowerCase().includes(s.nameEn.toLowerCase()),
  ).map((s) => s.nameZh);
  const request = /用户：(.*)/.exec(text)?.[1] ?? text;
  return { text: JSON.stringify({ suppliers, query: request.trim().slice(0, 40) }) };
}
