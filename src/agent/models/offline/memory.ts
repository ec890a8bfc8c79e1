import type { ConversationView, Plan } from './conversation.ts';

/**
 * Memory extraction, done deterministically: the suppliers the answer names (the offline agents write them after
 * 「供应商」: "供应商 博世", "比较了 6 家供应商：博世、电装") and a short query.
 */
export function planMemoryExtraction(view: ConversationView): Plan {
  const text = view.request;
  const suppliers = [
    ...new Set(
      [...text.matchAll(/供应商(?:：|:|\s)\s*([^\n。；;]+)/g)].flatMap((m) =>
        m[1]
          .split(/[、,，]/)
          .map((s) => s.trim())
          .filter((s) => s.length > 0 && s.length <= 40 && !/[¥\d]/.test(s)),
      ),
    ),
  ];
  const request = /用户：(.*)/.exec(text)?.[1] ?? text;
  return { text: JSON.stringify({ suppliers, query: request.trim().slice(0, 40) }) };
}

/** Compaction, done deterministically: the requests and conclusions of the transcript, newest last. */
export function planSummary(view: ConversationView): Plan {
  const sections = view.request.split(/^### /m).filter(Boolean);
  const points = sections
    .filter((s) => s.startsWith('human') || (s.startsWith('ai') && !s.includes('"tool_calls"')))
    .map((s) =>
      s
        .replace(/^(human|ai)\n/, (_, who) => (who === 'human' ? '用户：' : '助手：'))
        .trim()
        .replace(/\s+/g, ' ')
        .slice(0, 120),
    )
    .filter((s) => s.length > 3);
  return { text: points.slice(-12).join('\n') };
}
