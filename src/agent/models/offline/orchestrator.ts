import { type ConversationView, lastStep, stripLineNumbers } from './conversation.ts';
import { OFFLINE_NOTICE, type Plan } from './model.ts';

/** The seed's delegation rules: order words win over analysis words ("修改订单" is an order task). */
export const ORDER_WORDS = /下单|订单|采购单|订购|取消|order|cancel|purchase\s+\d/i;
export const ANALYSIS_WORDS =
  /分析|对比|比较|报告|建议|评估|行情|比价|筛选|库存|预警|compare|comparison|analy[sz]|report|evaluat|inventory|stock|warning|price/i;
const GREETING = /^\s*(你好|您好|嗨|早上好|下午好|晚上好|hi|hello|hey|good (morning|afternoon|evening))\b/i;

/** The orchestrator: reads the user's preferences, delegates with the seed's task format, then answers. */
export function planOrchestration(view: ConversationView): Plan {
  const request = view.request.trim();
  const task = lastStep(view, 'task');
  if (task) {
    const summary = typeof task.text === 'string' ? task.text : '';
    return { text: summary || '子任务已完成。/ The sub-task is done.' };
  }
  if (GREETING.test(request) && !ORDER_WORDS.test(request) && !ANALYSIS_WORDS.test(request)) {
    return {
      text: '您好！我是 Procura 采购助手。可以帮您做供应商比价分析、查看库存预警，或起草采购订单（写入 ERP 前会请您确认）。\nHello! I can compare suppliers, check stock warnings, or draft purchase orders (you approve before anything is written to the ERP).',
    };
  }
  const agent = ORDER_WORDS.test(request)
    ? 'procurement-order'
    : ANALYSIS_WORDS.test(request)
      ? 'procurement-analyst'
      : undefined;
  if (!agent) return { text: OFFLINE_NOTICE };

  const preferencesPath = /\/memories\/[^\s,，。]+\/preferences\.md/.exec(view.system)?.[0];
  const preferences = lastStep(view, 'read_file');
  if (preferencesPath && !preferences && view.tools.has('read_file')) {
    return { toolCalls: [{ name: 'read_file', args: { file_path: preferencesPath } }] };
  }
  const known =
    preferences?.text && !/not found|不存在|Error/i.test(preferences.text)
      ? stripLineNumbers(preferences.text).trim()
      : '';
  const description =
    agent === 'procurement-analyst'
      ? [
          `【任务目标】${request}`,
          `【用户偏好】${known || '暂无 / none recorded'}`,
          `【分析需求正文】用户原话：「${request}」。请用 ERP 数据和供应商网站报价做对比，完成分析、图表和报告。`,
          '【输出要求】结构化摘要：结论、关键数字、建议、报告路径、图表链接。',
        ].join('\n')
      : [
          `【任务目标】${request}`,
          `【用户偏好】${known || '暂无 / none recorded'}`,
          `【分析需求正文】用户原话：「${request}」。核对供应商、零部件和数量；缺信息时向用户询问；写入 ERP 前必须经用户审批。`,
          '【输出要求】订单号、供应商、明细、金额和状态；未创建时说明原因。',
        ].join('\n');
  return { toolCalls: [{ name: 'task', args: { subagent_type: agent, description } }] };
}
