import type { Command } from 'commander';
import { startErpServer } from '../../erp/index.ts';
import { closeOnSignal, settingsFrom, withCommonOptions } from '../options.ts';

export function registerErpCommands(program: Command): void {
  withCommonOptions(program.command('erp').description('run the ERP REST API alone / 单独运行 ERP'))
    .option('--port <port>', 'port / 端口 (8080)')
    .action(async (opts) => {
      const settings = settingsFrom(opts, { erpPort: opts.port });
      const erp = await startErpServer({ ...settings, port: settings.erpPort });
      console.log(
        `ERP  ${erp.server.url}/api   (docs ${erp.server.url}/api/docs, ${erp.database.dialect}: ${erp.database.location})`,
      );
      for (const [user, token] of Object.entries(erp.demoTokens))
        console.log(`  demo token ${user.padEnd(9)} ${token}`);
      closeOnSignal(erp.close);
    });
}
