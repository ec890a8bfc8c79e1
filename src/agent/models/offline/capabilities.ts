import type { Suggestion } from '../../../protocol/index.ts';

/** What the offline model answers outside its flows: what it can do, and requests to try from the user's catalogue. */
export function capabilitiesText(suggestions: Suggestion[]): string {
  return [
    '我是 Procura 的离线模型（没有配置大模型服务时使用的确定性模型）。我能做：供应商比价分析与价格趋势（带图表和报告）、库存预警、起草/修改/取消/查询采购订单（写入 ERP 前请您审批）。',
    ...(suggestions.length
      ? ['可以这样问 / Try:', ...suggestions.map((s, i) => `${i + 1}. ${s.text}（${s.textEn}）`)]
      : []),
    '要处理任意问题，请设置 DEEPSEEK_API_KEY，或 OPENAI_BASE_URL + OPENAI_API_KEY。',
    'I am Procura’s offline model (a deterministic stand-in when no LLM is configured): supplier comparisons and price trends with charts and a report, inventory warnings, and drafting, changing, cancelling and looking up purchase orders (you approve every write).',
  ].join('\n');
}
