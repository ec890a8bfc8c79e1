import type { StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { modelSchema } from '../tools/index.ts';
import { SANDBOX_EXECUTE_GUIDE } from './backends/index.ts';
import { type AgentConfig, ORCHESTRATOR } from './subagents/loader.ts';

/** What a model is told of a built-in tool: its description, and of some fields their own. */
export interface BuiltinText {
  /** Absent: the tool's own description is kept (Procura's own tools, e.g. compact_conversation). */
  description?: string;
  fields?: Readonly<Record<string, string>>;
}

/**
 * Procura's descriptions of the harness's built-in tools. Its own are generic (a shell, other agents, files of any
 * project) and long; these say what the tools do here, and are sent with every call of every agent that has them.
 */
export function builtinTexts(configs: readonly AgentConfig[]): Readonly<Record<string, BuiltinText>> {
  const subagents = configs.filter((c) => c.name !== ORCHESTRATOR);
  return {
    ls: { description: '列出工作区目录。/ List a workspace directory.' },
    // Its own description (compaction middleware); the entry makes it sent as compactly as it is listed.
    compact_conversation: {},
    read_file: {
      description:
        '读取工作区文件（默认 100 行，offset/limit 分页；@@ 行是状态）。/ Read a workspace file; the @@ line is a status.',
      fields: {
        file_path: '绝对路径 / absolute path',
        offset: '起始行，从 0 起 / first line, from 0',
        limit: '行数 / lines',
      },
    },
    write_file: {
      description: '写入工作区文件（新建或整体替换）。/ Write a workspace file (created, or replaced whole).',
    },
    edit_file: {
      description: '在文件中精确替换文本（先 read_file）。/ Replace exact text in a file (read it first).',
    },
    delete: { description: '删除工作区文件。/ Delete a workspace file.' },
    glob: { description: '按 glob 模式查找工作区文件。/ Find workspace files by glob pattern.' },
    grep: { description: '在工作区文件中搜索文本。/ Search workspace files for text.' },
    execute: {
      description: SANDBOX_EXECUTE_GUIDE,
      fields: { command: '如 node /analysis/analyze.js' },
    },
    task: {
      description: [
        '把任务交给子 Agent；它只看到 description，返回一份报告（用户看不到，由你转述）。/ Hand a task to a sub-agent: it sees only the description and returns a report for you to relay.',
        ...subagents.map((c) => `- ${c.name}: ${c.description}`),
      ].join('\n'),
      fields: { subagent_type: subagents.map((c) => c.name).join(' | ') },
    },
  };
}

/** A built-in tool as its model is sent it: Procura's description, and its schema without what models do not need. */
export function builtinDefinition(tool: StructuredToolInterface | object, text?: BuiltinText) {
  const {
    name,
    description = '',
    parameters = {},
  } = convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]).function;
  const schema = modelSchema(parameters) as { properties?: Record<string, Record<string, unknown>> };
  for (const [field, about] of Object.entries(text?.fields ?? {})) {
    const property = schema.properties?.[field];
    if (property) schema.properties![field] = { ...property, description: about };
  }
  return { name, description: text?.description ?? description, parameters: schema as Record<string, unknown> };
}
