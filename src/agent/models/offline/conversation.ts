import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { untabulate } from '../../tool-results.ts';

/** One tool call of the current turn with its result (parsed JSON when it is JSON). */
export interface ToolStep {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** Undefined while the call has no result yet. */
  result?: unknown;
  text?: string;
}

/** What the offline model reads from a conversation: the request and what its tools have returned so far. */
export interface ConversationView {
  /** Concatenated system prompts (who this agent is, which user, which preferences file). */
  system: string;
  /** The latest human message: the user's request, or the task an orchestrator delegated. */
  request: string;
  /** Tool calls made since that message, in order. */
  steps: ToolStep[];
  /** Names of the tools this model was bound with. */
  tools: Set<string>;
  /** Earlier turns of the same conversation, oldest first (what a follow-up refers to). */
  earlier: Turn[];
}

/** The next step of an agent: answer text, tool calls, or both. */
export interface Plan {
  text?: string;
  toolCalls?: Array<{ name: string; args: Record<string, unknown> }>;
}

export type Planner = (view: ConversationView) => Plan;

/** One finished turn: the human message, the tool calls it led to, and the last answer. */
export interface Turn {
  request: string;
  steps: ToolStep[];
  answer: string;
}

const text = (message: BaseMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('');

export function viewConversation(messages: BaseMessage[], tools: Set<string>): ConversationView {
  const system = messages
    .filter((m) => m.getType() === 'system')
    .map(text)
    .join('\n');
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.getType() === 'human') {
      turns.push({ request: text(message), steps: [], answer: '' });
      continue;
    }
    const turn = turns.at(-1);
    if (!turn) continue;
    if (AIMessage.isInstance(message)) {
      for (const call of message.tool_calls ?? []) {
        turn.steps.push({ id: call.id ?? '', name: call.name, args: call.args as Record<string, unknown> });
      }
      const said = text(message).trim();
      if (said) turn.answer = said;
    } else if (ToolMessage.isInstance(message)) {
      const step = turn.steps.find((s) => s.id === message.tool_call_id);
      if (step) {
        step.text = text(message);
        // Lists may come as tables (keys once): read as the records they are.
        step.result = untabulate(parseJson(step.text));
      }
    }
  }
  const current = turns.pop() ?? { request: '', steps: [], answer: '' };
  return { system, request: current.request, steps: current.steps, tools, earlier: turns };
}

/**
 * The user's own words in a delegated task: the quoted original (「…」) or the task goal — never the preferences
 * section, which repeats earlier requests and would otherwise be read as this one.
 */
export function userWords(request: string): string {
  return /用户原话：「([\s\S]*?)」/.exec(request)?.[1] ?? /【任务目标】([^\n]*)/.exec(request)?.[1] ?? request;
}

/** Marks the earlier requests a follow-up builds on, inside a delegated task (newest last, separated by ⟫). */
export const CONTEXT_LABEL = '上文（沿用其中本轮没有改变的信息）：';

/** The earlier requests and results a delegated follow-up carries, oldest first. */
export function taskContext(request: string): string[] {
  const line = request.split('\n').find((l) => l.startsWith(CONTEXT_LABEL));
  return line
    ? line
        .slice(CONTEXT_LABEL.length)
        .split(' ⟫ ')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

export function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** The latest finished call of a tool, if any. */
export function lastStep(view: ConversationView, name: string): ToolStep | undefined {
  return [...view.steps].reverse().find((s) => s.name === name && s.text !== undefined);
}

export const called = (view: ConversationView, name: string) => view.steps.some((s) => s.name === name);

/** `read_file` answers with a range header (`@@ lines 1-9 of 9 @@`) and numbered lines (`   12\tcontent`); this gives the file text back. */
export function stripLineNumbers(content: string): string {
  return content
    .split('\n')
    .filter((line) => !/^@@ .* @@$/.test(line))
    .map((line) => line.replace(/^\s*\d+(?:\.\d+)?\t/, ''))
    .join('\n');
}

/** The `items` of a listing tool's result (empty when the call failed). */
export function items<T>(step: ToolStep | undefined): T[] {
  const result = step?.result as { items?: T[] } | undefined;
  return Array.isArray(result?.items) ? result.items : [];
}
