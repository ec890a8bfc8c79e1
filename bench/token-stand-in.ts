import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { getEncoding } from 'js-tiktoken';
import { OfflineChatModel } from '../src/agent/index.ts';
import type { ChatRequest, Reply } from '../test/agent/model-stand-in.ts';

/** o200k_base, the tokenizer of current OpenAI-class models; every request is counted with it. */
const o200k = getEncoding('o200k_base');
export const tokens = (text: string) => (text ? o200k.encode(text, [], []).length : 0);

/** Which agent sent a request, by the first words of its system prompt; light-model calls by what they ask. */
const AGENT_MARKS: Array<[string, string]> = [
  ['analyst', '你是采购分析师'],
  ['order', '你是采购订单专员'],
  ['orchestrator', '主 Agent（协调者）'],
];

type Message = ChatRequest['messages'][number];
type Call = { name: string; args: Record<string, unknown> };

export const contentText = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === 'object' && p && 'text' in p ? String(p.text) : '')).join('')
      : content == null
        ? ''
        : JSON.stringify(content);

const systemOf = (req: ChatRequest) =>
  req.messages
    .filter((m) => m.role === 'system')
    .map((m) => contentText(m.content))
    .join('\n');

/** The agent a request comes from (`light` for summaries and memory extraction on the light model). */
export function agentOf(req: ChatRequest, lightModel: string): string {
  if (req.model === lightModel) return 'light';
  const system = systemOf(req);
  return AGENT_MARKS.find(([, mark]) => system.includes(mark))?.[0] ?? 'other';
}

const CONFIG_NAMES: Record<string, string> = {
  analyst: 'procurement-analyst',
  order: 'procurement-order',
  orchestrator: 'orchestrator',
};

function toLangChain(messages: Message[]): BaseMessage[] {
  return messages.map((m) => {
    const content = contentText(m.content);
    if (m.role === 'system') return new SystemMessage(content);
    if (m.role === 'user') return new HumanMessage(content);
    if (m.role === 'tool') return new ToolMessage({ content, tool_call_id: m.tool_call_id ?? '' });
    return new AIMessage({
      content,
      tool_calls: (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        args: JSON.parse(c.function.arguments || '{}') as Record<string, unknown>,
        type: 'tool_call' as const,
      })),
    });
  });
}

/** Every tool call made so far in the conversation sent, with its result text when it has one. */
function callsSoFar(req: ChatRequest): Array<Call & { result?: string }> {
  const results = new Map(
    req.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, contentText(m.content)]),
  );
  return req.messages.flatMap((m) =>
    (m.tool_calls ?? []).map((c) => ({
      name: c.function.name,
      args: JSON.parse(c.function.arguments || '{}') as Record<string, unknown>,
      result: results.get(c.id),
    })),
  );
}

/** Whether a sentence names a tool as a word (`ls`, not the `ls` inside `/skills/`). */
const names = (sentence: string, tool: string) => new RegExp(`(?<![\\w/-])${tool}(?![\\w-])`).test(sentence);

const SKILL_LINE = /`([^`]+\/SKILL\.md)`/g;
const SKILL_PATH = /(\/skills\/[\w./<>{}-]+\.(?:md|ya?ml|json|js))/g;

/**
 * Files the agent's prompt and skills tell it to read before the next step, as a model that follows them reads them:
 * - after it has listed its skills folder, the `SKILL.md` of each listed skill its own prompt names;
 * - before it first calls a tool, each `/skills/…` file a sentence of the prompt or of a skill it read names together
 *   with that tool (a `<type>` in the path is the chart type it is about to draw).
 * The read limit is the one the prompt asks for (`limit=N`), if any.
 */
function instructedReads(req: ChatRequest, planned: Call[]): Call[] {
  const system = systemOf(req);
  const calls = callsSoFar(req);
  const read = new Set(calls.filter((c) => c.name === 'read_file').map((c) => String(c.args.file_path)));
  const limitAsked = /limit=(\d+)/.exec(system)?.[1];
  const readCall = (file_path: string): Call => ({
    name: 'read_file',
    args: limitAsked ? { file_path, limit: Number(limitAsked) } : { file_path },
  });
  const listed = calls.filter((c) => c.name === 'ls' && c.result !== undefined).map((c) => String(c.args.path));
  const skills = [...system.matchAll(SKILL_LINE)].map((m) => m[1]);
  const prompt = system
    .split('\n')
    .filter((line) => !line.includes('/SKILL.md`') && !/^- \*\*[\w-]+\*\*/.test(line))
    .join('\n');
  const skillReads = skills.filter((file) => {
    const name = file.split('/').at(-2) ?? '';
    return listed.some((dir) => file.startsWith(dir)) && prompt.includes(name) && !read.has(file);
  });
  if (skillReads.length) return skillReads.map(readCall);
  const texts = [
    system,
    ...calls
      .filter((c) => c.name === 'read_file' && String(c.args.file_path).endsWith('SKILL.md'))
      .map((c) => c.result),
  ];
  const sentences = texts.flatMap((t) => (t ?? '').split(/[。；;\n]/));
  const bound = new Set((req.tools ?? []).map((t) => t.function.name));
  const plannedNames = new Set(planned.map((c) => c.name));
  const plannedReads = new Set(planned.filter((c) => c.name === 'read_file').map((c) => String(c.args.file_path)));
  const out = new Map<string, Call>();
  for (const sentence of sentences) {
    const files = [...sentence.matchAll(SKILL_PATH)].map((m) => m[1]).filter((f) => !f.endsWith('SKILL.md'));
    if (!files.length) continue;
    for (const tool of bound) {
      if (!plannedNames.has(tool) || calls.some((c) => c.name === tool) || !names(sentence, tool)) continue;
      for (const file of files) {
        const types = [...new Set(planned.filter((c) => c.name === tool).map((c) => String(c.args.chart_type ?? '')))];
        const paths = /<type>|\{type\}/.test(file) ? types.map((t) => file.replace(/<type>|\{type\}/, t)) : [file];
        for (const p of paths) if (!read.has(p) && !plannedReads.has(p)) out.set(p, readCall(p));
      }
    }
  }
  return [...out.values()];
}

/**
 * A model that follows Procura's prompts: the offline model plans each agent's steps (the same flows, the same
 * report), and before a step it reads what the prompt and the skills tell it to read. Light-model calls
 * (summaries, memory extraction) are answered by the offline model too.
 */
export async function followPrompts(req: ChatRequest, lightModel: string): Promise<Reply> {
  const agent = agentOf(req, lightModel);
  const names = (req.tools ?? []).map((t) => t.function.name);
  const model = new OfflineChatModel({}).serving(CONFIG_NAMES[agent] ?? agent);
  const answer = await model
    .bindTools(names.map((name) => ({ name, description: '', schema: {} }) as never))
    .invoke(toLangChain(req.messages));
  const planned = (answer.tool_calls ?? []).map((c) => ({ name: c.name, args: c.args }));
  const reads = agent === 'light' ? [] : instructedReads(req, planned);
  if (reads.length) return { toolCalls: reads };
  return { text: contentText(answer.content), toolCalls: planned };
}
