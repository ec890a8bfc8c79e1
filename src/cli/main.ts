import { Command } from 'commander';
import { registerApiCommand } from './commands/api.ts';
import { registerChartsCommand } from './commands/charts.ts';
import { registerChatCommand } from './commands/chat.ts';
import { registerErpCommands } from './commands/erp.ts';
import { registerMcpCommands } from './commands/mcp.ts';
import { registerStartCommand } from './commands/start.ts';
import { registerSupplierCommands } from './commands/suppliers.ts';
import { registerToolsCommands } from './commands/tools.ts';
import { registerUserCommands } from './commands/user.ts';

/** `procura <command>`: every part of Procura, alone or together. */
const program = new Command('procura')
  .description('Procura 采购智能体 — procurement agent: ERP, supplier prices, analysis, charts, approved orders')
  .showHelpAfterError();

registerStartCommand(program);
registerApiCommand(program);
registerErpCommands(program);
registerChartsCommand(program);
registerMcpCommands(program);
registerToolsCommands(program);
registerSupplierCommands(program);
registerUserCommands(program);
registerChatCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
