import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { BackendFactory } from 'deepagents';
import { createMiddleware } from 'langchain';
import { preferencesPath, runContext, runContextSchema } from '../context.ts';
import { MEMORY_EXTRACTION_PROMPT } from '../prompts.ts';
import type { FileUploader } from '../skills/sync.ts';
import { silently } from './silent.ts';

export const MEMORY_LIMITS = { suppliers: 10, queries: 5 };
const ERP_WORDS =
  /供应商|零部件|配件|订单|采购|价格|报价|比价|库存|火花塞|刹车|滤清器|链条|轮胎|supplier|part|order|price|quote|stock|inventory/i;

export interface Preferences {
  recentSuppliers: string[];
  recentQueries: string[];
  /** Everything else in the file, kept as the user (or agent) wrote it. */
  notes: string;
}

const SECTION = /^## (recent_suppliers|recent_queries)\s*$/;

export function parsePreferences(text: string): Preferences {
  const prefs: Preferences = { recentSuppliers: [], recentQueries: [], notes: '' };
  const notes: string[] = [];
  let section: 'recent_suppliers' | 'recent_queries' | undefined;
  for (const line of text.split('\n')) {
    const heading = SECTION.exec(line);
    if (heading) {
      section = heading[1] as typeof section;
      continue;
    }
    if (/^## /.test(line)) section = undefined;
    const item = /^- (.+)$/.exec(line)?.[1]?.trim();
    if (section === 'recent_suppliers' && item) prefs.recentSuppliers.push(item);
    else if (section === 'recent_queries' && item) prefs.recentQueries.push(item);
    else if (!section) notes.push(line);
  }
  prefs.notes = notes.join('\n').trim();
  return prefs;
}

export function renderPreferences(p: Preferences): string {
  return [
    p.notes || '# 用户偏好 / preferences',
    '',
    '## recent_suppliers',
    ...p.recentSuppliers.map((s) => `- ${s}`),
    '',
    '## recent_queries',
    ...p.recentQueries.map((q) => `- ${q}`),
    '',
  ].join('\n');
}

/** Newest first, de-duplicated, capped. */
export function mergeRecent(current: string[], added: string[], cap: number): string[] {
  const cleaned = added.map((a) => a.trim().replace(/\s+/g, ' ').slice(0, 80)).filter(Boolean);
  return [...new Set([...cleaned, ...current])].slice(0, cap);
}

/** The run's request and final answer, when the run is worth remembering (ERP-related, not small talk). */
export function memorableRun(messages: BaseMessage[]): { request: string; answer: string } | undefined {
  let start = messages.length - 1;
  while (start >= 0 && messages[start].getType() !== 'human') start--;
  if (start < 0) return undefined;
  const request = String(messages[start].content);
  const run = messages.slice(start + 1);
  const delegated = run.some((m) => AIMessage.isInstance(m) && (m.tool_calls ?? []).some((c) => c.name === 'task'));
  if (!delegated && !ERP_WORDS.test(request)) return undefined;
  const final = [...run]
    .reverse()
    .find((m) => AIMessage.isInstance(m) && !m.tool_calls?.length && String(m.content).trim());
  if (!final) return undefined;
  return { request, answer: String(final.content).slice(0, 300) };
}

/**
 * [5] After a run: extracts `{suppliers, query}` with the light model and merges them into the user's
 * preferences file (recent_suppliers ≤ 10, recent_queries ≤ 5). Small talk is skipped; failures are silent.
 */
export function createMemoryUpdateMiddleware(options: { model: BaseChatModel; backend: BackendFactory }) {
  return createMiddleware({
    name: 'MemoryUpdateMiddleware',
    contextSchema: runContextSchema,
    afterAgent: async (state, runtime) => {
      await silently('MemoryUpdateMiddleware', runtime, async () => {
        const ctx = runContext(runtime);
        const run = memorableRun(state.messages);
        if (!ctx || !run) return;
        const reply = await options.model.invoke([
          new SystemMessage(MEMORY_EXTRACTION_PROMPT),
          new HumanMessage(`用户：${run.request}\n回答：${run.answer}`),
        ]);
        const json = /\{[\s\S]*\}/.exec(String(reply.content))?.[0];
        if (!json) return;
        const extracted = JSON.parse(json) as { suppliers?: unknown; query?: unknown };
        const suppliers = Array.isArray(extracted.suppliers)
          ? extracted.suppliers.filter((s): s is string => typeof s === 'string')
          : [];
        const query = typeof extracted.query === 'string' ? [extracted.query] : [];
        const files = (await options.backend({
          ...runtime,
          state,
        } as Parameters<BackendFactory>[0])) as unknown as FileUploader;
        const file = preferencesPath(ctx.userId);
        const [current] = await files.downloadFiles([file]);
        const prefs = parsePreferences(current?.content ? new TextDecoder().decode(current.content) : '');
        prefs.recentSuppliers = mergeRecent(prefs.recentSuppliers, suppliers, MEMORY_LIMITS.suppliers);
        prefs.recentQueries = mergeRecent(prefs.recentQueries, query, MEMORY_LIMITS.queries);
        await files.uploadFiles([[file, new TextEncoder().encode(renderPreferences(prefs))]]);
      });
      return undefined;
    },
  });
}
