import YAML from 'yaml';
import { z } from 'zod';
import type { ApprovalDetails } from '../../protocol/index.ts';
import { Tool, ToolError } from '../../tools/index.ts';
import type { FileUploader } from '../skills/sync.ts';

/** What the workspace tools need from a user's storage (the agent's composite backend). */
export type WorkspaceBackend = FileUploader & {
  glob(pattern: string, path?: string): unknown;
  delete?(path: string): unknown;
};

/** Each agent's skills folder (the first `skills` source of its YAML), e.g. `procurement-analyst` → `/skills/procurement/`. */
export type SkillFolders = () => Record<string, string>;
const WorkspacePath = z
  .string()
  .min(2)
  .max(300)
  .regex(/^\/[^\0]*$/, 'absolute workspace path')
  .refine((p) => !p.split('/').includes('..'), 'no .. segments');

/** The quote-page table of the supplier-price-urls skill, as synced into the user's workspace. */
export const QUOTE_URL_TABLE = '/skills/procurement/supplier-price-urls/data/url_mapping.yaml';

/** One row of the quote-page table. */
interface QuoteUrlEntry {
  model?: string;
  part_code?: string;
  supplier?: string;
  supplier_name?: string;
  quote_url?: string;
  history_url?: string;
  currency?: string;
  page?: string;
}

const same = (a: unknown, b: string | undefined) =>
  b === undefined || String(a ?? '').toLowerCase() === b.trim().toLowerCase();

/** How much of a skill's SKILL.md the approval card shows. */
const SKILL_TEXT_CHARS = 8_000;

function globPaths(found: unknown): string[] {
  const list = Array.isArray(found) ? found : ((found as { files?: unknown[] })?.files ?? []);
  return (list as Array<{ path: string; is_dir?: boolean }>).filter((f) => !f.is_dir).map((f) => f.path);
}

/** Skill management and file hand-over, acting on the calling user's own workspace and store. */
export class WorkspaceTools {
  constructor(
    private readonly backend: () => Promise<WorkspaceBackend>,
    private readonly sessionId: string,
    private readonly skillFolders: SkillFolders,
  ) {}

  /** The agents a skill can go to, as the line the model reads. */
  assignableAgents(): string {
    const folders = Object.entries(this.skillFolders());
    return `可分配的 Agent / agents: ${folders.map(([agent, folder]) => `${agent} (${folder})`).join(', ')}`;
  }

  @Tool({
    name: 'assign_skill',
    label: '分配技能',
    description:
      '把沙箱里测试好的技能目录（含 SKILL.md）分配给一个 Agent：复制到它的技能目录并持久化到 /persisted-skills/，以后的会话自动恢复；草稿目录随后删除。/ Assign a tested skill folder (with SKILL.md) to an agent: copied into its skills folder, persisted across sessions; the draft folder is then removed.',
    schema: z.object({
      source: WorkspacePath.describe('技能草稿目录，如 /drafts/my-skill/ / the draft skill folder'),
      agent: z
        .string()
        .regex(/^[a-z][a-z0-9-]{1,40}$/)
        .describe('Agent 名，如 procurement-analyst / agent name'),
      name: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{1,40}$/, 'lower-case words joined by -')
        .optional()
        .describe('新技能名，缺省用源目录名 / skill name, default: the folder name'),
    }),
    // A persisted skill is loaded by every later session of the user: a write, approved with its text in view.
    safety: 'write',
    execution: 'sequential',
    group: 'skill',
    liveValues: async (_ctx, host) => (host as WorkspaceTools).assignableAgents(),
    approvalDetails: (input, host) => (host as WorkspaceTools).skillPreview(input),
  })
  async assignSkill(input: { source: string; agent: string; name?: string }) {
    const { files, source, absolute, target } = await this.skillDraft(input);
    // Persisted under the same relative path, so a later session restores it into the same folder.
    const persisted = target.replace(/^\/skills\//, '/persisted-skills/');
    const downloaded = await files.downloadFiles(absolute);
    const copies: Array<[string, Uint8Array]> = [];
    for (const file of downloaded) {
      if (!file.content) continue;
      const relative = file.path.slice(source.length);
      copies.push([`${target}${relative}`, file.content], [`${persisted}${relative}`, file.content]);
    }
    const results = await files.uploadFiles(copies);
    const failed = results.filter((r) => r.error);
    if (failed.length)
      throw new ToolError(
        `部分文件未能保存 / some files failed: ${failed.map((f) => f.path).join(', ')}`,
        '稍后重试 / retry later',
      );
    // Cleanup: the draft goes once the skill is in place (unless the draft already was that folder).
    const cleaned = source !== target && !target.startsWith(source) && files.delete ? source : undefined;
    if (cleaned) await files.delete?.(cleaned);
    return { success: true, stateChanged: true, skill: target, persisted, files: copies.length / 2, removed: cleaned };
  }

  /** The draft folder's files and where the skill would go; refuses an unknown agent or a folder without SKILL.md. */
  private async skillDraft(input: { source: string; agent: string; name?: string }) {
    const folder = this.skillFolders()[input.agent];
    if (!folder) throw new ToolError(`没有 Agent ${input.agent} / no agent ${input.agent}`, this.assignableAgents());
    const files = await this.backend();
    const source = input.source.endsWith('/') ? input.source : `${input.source}/`;
    const paths = globPaths(await files.glob('**/*', source));
    const absolute = paths.map((p) => (p.startsWith(source) ? p : `${source}${p.replace(/^\//, '')}`));
    if (!absolute.some((p) => p.endsWith('/SKILL.md'))) {
      throw new ToolError(
        `${source} 里没有 SKILL.md / no SKILL.md in ${source}`,
        '先写好并测试 SKILL.md / write and test SKILL.md first',
      );
    }
    const name = input.name ?? source.split('/').filter(Boolean).at(-1)!;
    return { files, source, absolute, target: `${folder.replace(/\/$/, '')}/${name}/` };
  }

  /** The approval card's view of a skill assignment: the files and the SKILL.md text exactly as they would persist. */
  async skillPreview(input: { source: string; agent: string; name?: string }): Promise<ApprovalDetails | undefined> {
    const draft = await this.skillDraft(input).catch(() => undefined);
    if (!draft) return undefined;
    const skillFile =
      draft.absolute.find((p) => p === `${draft.source}SKILL.md`) ??
      draft.absolute.find((p) => p.endsWith('/SKILL.md'))!;
    const [file] = await draft.files.downloadFiles([skillFile]);
    const text = file?.content ? new TextDecoder().decode(file.content) : '';
    return {
      skill: {
        agent: input.agent,
        target: draft.target,
        files: draft.absolute.map((p) => p.slice(draft.source.length)),
        text: text.slice(0, SKILL_TEXT_CHARS),
        truncated: text.length > SKILL_TEXT_CHARS,
      },
    };
  }

  @Tool({
    name: 'supplier_quote_urls',
    label: '查报价网址',
    description:
      '按型号/料号和供应商查官网报价页网址（supplier-price-urls 映射表的匹配行）。/ Quote page URLs by model or part code and supplier.',
    schema: z.object({
      model: z.string().min(1).max(60).optional().describe('型号，如 F7TC / model'),
      part_code: z.string().min(1).max(60).optional().describe('ERP 料号，如 BS-F7TC / part code'),
      supplier: z.string().min(1).max(60).optional().describe('供应商键或中文名，如 bosch、博世 / supplier'),
    }),
    safety: 'read-only',
    group: 'skill',
  })
  async supplierQuoteUrls(input: { model?: string; part_code?: string; supplier?: string }) {
    if (!input.model && !input.part_code)
      throw new ToolError('需要 model 或 part_code / model or part_code is required', '传入型号，如 model="F7TC"');
    const [file] = await (await this.backend()).downloadFiles([QUOTE_URL_TABLE]);
    if (!file?.content)
      throw new ToolError(
        `映射表不存在 / no table at ${QUOTE_URL_TABLE}`,
        '用 web_search 搜索型号和供应商名 / search the model and supplier name with web_search',
      );
    const table = YAML.parse(new TextDecoder().decode(file.content)) as { entries?: QuoteUrlEntry[] };
    const entries = (table.entries ?? [])
      .filter(
        (e) =>
          same(e.model, input.model) &&
          same(e.part_code, input.part_code) &&
          (same(e.supplier, input.supplier) || same(e.supplier_name, input.supplier)),
      )
      .map(({ model, part_code, supplier, supplier_name, quote_url, history_url, currency, page }) => ({
        model,
        part_code,
        supplier,
        supplier_name,
        quote_url,
        history_url,
        currency,
        page,
      }));
    return { entries, total: entries.length };
  }

  @Tool({
    name: 'download_sandbox_file',
    label: '下载文件',
    description:
      '把工作区文件（报告、CSV、分析结果）交给用户下载，返回下载链接。/ Hand a workspace file (report, CSV, analysis JSON) to the user as a download link.',
    schema: z.object({ path: WorkspacePath.describe('如 /analysis/report_20260509_093000.md') }),
    safety: 'read-only',
    group: 'files',
  })
  async downloadSandboxFile(input: { path: string }) {
    const [file] = await (await this.backend()).downloadFiles([input.path]);
    if (!file?.content)
      throw new ToolError(
        `文件不存在 / no file ${input.path}`,
        '先用 ls 或 glob 确认路径 / check the path with ls first',
      );
    return {
      path: input.path,
      bytes: file.content.byteLength,
      url: `/api/v1/files/${encodeURIComponent(this.sessionId)}${input.path.split('/').map(encodeURIComponent).join('/')}`,
    };
  }
}
