import type { Command } from 'commander';
import { startSupplierSites } from '../../suppliers/index.ts';
import { closeOnSignal, settingsFrom, withCommonOptions } from '../options.ts';

export function registerSupplierCommands(program: Command): void {
  withCommonOptions(
    program.command('suppliers').description('run the simulated supplier web shops alone / 单独运行模拟供应商网站'),
  )
    .option('--port <port>', 'port / 端口 (8090)')
    .action(async (opts) => {
      const settings = settingsFrom(opts, { suppliersPort: opts.port });
      const sites = await startSupplierSites({ host: settings.host, port: settings.suppliersPort });
      console.log(`供应商网站 / supplier sites  ${sites.server.url}/   (行业资讯 / news ${sites.server.url}/news/)`);
      for (const shop of sites.shops)
        console.log(
          `  ${shop.profile.key.padEnd(9)} ${sites.server.url}/${shop.profile.key}/   ${shop.supplier.nameZh} · ${shop.profile.layout}${shop.profile.blocksBots ? ' · 403 非浏览器' : ''}${shop.profile.rateLimited ? ' · 429 限流' : ''}`,
        );
      closeOnSignal(sites.server.close);
    });
}
