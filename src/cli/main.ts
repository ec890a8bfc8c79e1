import { Command } from 'commander';

/** Each command's module, loaded only when that command runs: `procura user list` should not load the agent. */
const commands: Record<string, () => Promise<(program: Command) => void>> = {
  start: async () => (await import('./commands/start.ts')).registerStartCommand,
  api: async () => (await import('./commands/api.ts')).registerApiCommand,
  erp: async () => (await import('./commands/erp.ts')).registerErpCommands,
  charts: async () => (await import('./commands/charts.ts')).registerChartsCommand,
  mcp: async () => (await import('./commands/mcp.ts')).registerMcpCommands,
  tools: async () => (await import('./commands/tools.ts')).registerToolsCommands,
  suppliers: async () => (await import('./commands/suppliers.ts')).registerSupplierCommands,
  user: async () => (await import('./commands/user.ts')).registerUserCommands,
  chat: async () => (await import('./commands/chat.ts')).registerChatCommand,
  rfq: async () => (await import('./commands/rfq.ts')).registerRfqCommands,
};

/** `procura <command>`: every part of Procura, alone or together. */
const program = new Command('procura')
  .description('Procura 采购智能体 — procurement agent: ERP, supplier prices, analysis, charts, approved orders')
  .showHelpAfterError();

const wanted = process.argv[2];
for (const load of wanted && commands[wanted] ? [commands[wanted]] : Object.values(commands)) (await load())(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
