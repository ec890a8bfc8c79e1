import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { Erp } from '../../erp/index.ts';
import { type AgentTools, ApiError, ChatClient } from '../../protocol/index.ts';
import { logger, partAddresses, type Settings } from '../../shared/index.ts';
import { isToolFailure, type Toolbox, type ToolContext, type ToolListing } from '../../tools/index.ts';
import { settingsFrom, urlHost } from '../options.ts';

interface Session {
  toolbox: Toolbox;
  ctx: ToolContext;
  close(): Promise<void>;
}

/**
 * The tools as one user sees them. `--user` opens the ERP's data directory in-process (no server needed) and
 * acts with that user's demo token, or a new token labelled `procura tools`; `--token` (or `PROCURA_ERP_TOKEN`)
 * calls the ERP at `--erp-url`/`ERP_URL` instead. Without either, only the declarations are listed.
 */
async function openSession(opts: Record<string, string | undefined>, requireUser: boolean): Promise<Session> {
  // stdout is the tool output (JSON for scripts): only warnings from the parts opened here.
  logger.level = process.env.LOG_LEVEL ?? 'warn';
  const settings: Settings = settingsFrom(opts, { erpUrl: opts.erpUrl });
  const addresses = partAddresses(settings);
  const web = { suppliersUrl: addresses.suppliersUrl };
  const traceId = `cli-${randomUUID()}`;
  // Loaded on use: the tools pull in the web stack, which other commands do not need.
  const { createToolbox } = await import('../../tools/index.ts');
  const token = opts.token ?? process.env.PROCURA_ERP_TOKEN;
  if (opts.user) {
    // Loaded on use: listing the tools needs neither the ERP's database nor its server.
    const { createErp } = await import('../../erp/index.ts');
    const erp: Erp = await createErp({ dataDir: settings.dataDir, databaseUrl: settings.databaseUrl });
    try {
      const user = await erp.services.users.byUsername(opts.user);
      const userToken =
        erp.demoTokens[user.username] ?? (await erp.services.users.issueToken(user.username, 'procura tools'));
      const toolbox = createToolbox({ erp: { baseUrl: 'http://erp.internal/api', fetch: erp.fetch }, web });
      const ctx: ToolContext = {
        userId: user.username,
        role: user.role,
        token: userToken,
        projectId: opts.project,
        traceId,
      };
      const close = async () => {
        await toolbox.close();
        await erp.close();
      };
      return { toolbox, ctx, close };
    } catch (error) {
      await erp.close();
      throw error;
    }
  }
  if (requireUser && !token)
    throw new Error('需要 --user <用户名> 或 --token <令牌> / give --user <username> or --token <token>');
  const toolbox = createToolbox({ erp: { baseUrl: addresses.erpUrl }, web });
  // With a bare token the ERP decides what the user may do; the listing assumes a buyer.
  const ctx: ToolContext = { userId: 'cli', role: 'buyer', token, projectId: opts.project, traceId };
  return { toolbox, ctx, close: () => toolbox.close() };
}

const userOptions = (command: Command) =>
  command
    .option('--user <username>', 'act as this ERP user (opens the data dir) / 以该用户身份')
    .option('--token <token>', 'or a user token for the ERP at --erp-url (PROCURA_ERP_TOKEN)')
    .option('--erp-url <url>', 'ERP API base (ERP_URL)')
    .option('--project <id>', 'project id / 项目')
    .option('--data-dir <dir>', 'data directory / 数据目录');

/**
 * What one agent's model is sent, asked of the running Procura (`--url`, else `PROCURA_API_URL`, else the settings'
 * API port): its runtime holds the real tool set — the company's agent YAML, its MCP servers, the chart server's
 * token — which a process of its own could only guess. The user is `--token`/`PROCURA_TOKEN`, or `--user` (a demo
 * user of the data dir, or a token issued for the command). No running Procura is an error, never a shorter list.
 */
async function agentListing(opts: Record<string, string | undefined>, agent: string): Promise<AgentTools> {
  const settings = settingsFrom(opts, { erpUrl: opts.erpUrl });
  const url = opts.url ?? process.env.PROCURA_API_URL ?? `http://${urlHost(settings.host)}:${settings.apiPort}`;
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new Error(`--url 无效 / invalid --url: ${url}`);
  let token = opts.token ?? process.env.PROCURA_TOKEN;
  if (!token && opts.user) {
    const session = await openSession(opts, true);
    token = session.ctx.token;
    await session.close();
  }
  if (!token) throw new Error('需要 --user <用户名> 或 --token <令牌> / give --user <username> or --token <token>');
  try {
    return await new ChatClient(url, token).agentTools(agent);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new Error(
      `${url} 没有运行中的 Procura（先 procura start，或用 --url 指向它）/ no Procura is running at ${url} (start it with procura start, or point --url at it): ${(error as Error).message}`,
    );
  }
}

export function registerToolsCommands(program: Command): void {
  const tools = userOptions(
    program
      .command('tools')
      .description('list the tools a model is shown, with token counts / 列出工具及其 token 数')
      .option(
        '--agent <agent>',
        "what one agent's model is sent, asked of the running Procura: orchestrator | procurement-analyst | procurement-order | procurement-sourcing (main | analyst | order | sourcing) or a company's own agent",
      )
      .option('--url <url>', 'with --agent: chat API address (default PROCURA_API_URL or http://<host>:<API_PORT>)')
      .option('--json', 'machine-readable output / JSON 输出'),
  ).action(async (opts) => {
    let listed: ToolListing[];
    let agent: string | null = null;
    if (opts.agent) {
      logger.level = process.env.LOG_LEVEL ?? 'warn';
      ({ agent, tools: listed } = await agentListing(opts, opts.agent));
    } else {
      const session = await openSession(opts, false);
      try {
        const { listToolsForModel } = await import('../../tools/index.ts');
        listed = await listToolsForModel(session.toolbox.registry, session.ctx);
      } finally {
        await session.close();
      }
    }
    const total = listed.reduce((sum, t) => sum + t.tokens, 0);
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ agent, tools: listed, totalTokens: total }, null, 2)}\n`);
      return;
    }
    for (const t of listed) {
      const policy = [
        t.safety,
        t.execution,
        t.approval === 'required' ? 'approval' : '',
        t.background ? 'background' : '',
      ]
        .filter(Boolean)
        .join(', ');
      console.log(`\n${t.name}  ${t.label}  [${t.group}; ${policy}]  ${t.tokens} tokens`);
      console.log(`  ${t.description.replace(/\n/g, '\n  ')}`);
      console.log(`  ${JSON.stringify(t.parameters)}`);
    }
    console.log(`\n${listed.length} 个工具 / tools, ${total} tokens (cl100k_base)`);
  });

  userOptions(
    tools
      .command('call <name>')
      .description('run one tool as a user and print its result as JSON / 以用户身份调用一个工具')
      .requiredOption('--input <json>', 'tool arguments as JSON / 参数 JSON', '{}'),
  ).action(async (name: string, _opts, command: Command) => {
    // Options shared with `tools` may land on either command, depending on where they were typed.
    const opts = command.optsWithGlobals();
    let input: unknown;
    try {
      input = JSON.parse(opts.input);
    } catch (error) {
      throw new Error(`--input 不是合法 JSON / --input is not valid JSON: ${(error as Error).message}`);
    }
    const session = await openSession(opts, true);
    try {
      // A person typed this command: that is the approval a write needs.
      const result = await session.toolbox.registry.execute(
        name,
        input,
        session.ctx,
        {
          approved: true,
          callId: session.ctx.traceId,
          emit: (event) => console.error(`tool_call ${JSON.stringify(event)}`),
        },
        (error) => console.error(`[trace ${session.ctx.traceId}]`, error),
      );
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      if (isToolFailure(result)) process.exitCode = 2;
    } finally {
      await session.close();
    }
  });
}
