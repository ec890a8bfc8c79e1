import type { Command } from 'commander';
import { createErp } from '../../erp/index.ts';
import { ROLES, type Role } from '../../protocol/index.ts';
import { settingsFrom } from '../options.ts';

/** Opens the ERP's database directly (no server needed) for one admin operation. */
async function withErp<T>(
  opts: Record<string, unknown>,
  work: (erp: Awaited<ReturnType<typeof createErp>>) => Promise<T>,
) {
  const settings = settingsFrom(opts);
  const erp = await createErp({ dataDir: settings.dataDir, databaseUrl: settings.databaseUrl });
  try {
    return await work(erp);
  } finally {
    await erp.close();
  }
}

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('ERP users and API tokens / 用户与令牌');
  user
    .command('token <username>')
    .description('issue a new API token and print it (only the token, for scripts)')
    .option('--data-dir <dir>', 'data directory')
    .option('--label <label>', 'what the token is for', 'cli')
    .action(async (username: string, opts) => {
      const token = await withErp(opts, (erp) => erp.services.users.issueToken(username, opts.label));
      process.stdout.write(`${token}\n`);
    });
  user
    .command('revoke <username>')
    .description('revoke every token and sign-in of a user: API tokens, OAuth grants (refused everywhere within 10 s)')
    .option('--data-dir <dir>', 'data directory')
    .action(async (username: string, opts) => {
      const { apiTokens, oauthRecords } = await withErp(opts, (erp) => erp.services.users.revokeTokens(username));
      console.log(
        `已吊销 ${username} 的 ${apiTokens} 个 API 令牌，结束 ${oauthRecords} 条 OAuth 登录记录，此前签发的访问令牌不再接受` +
          ` / revoked ${apiTokens} API token(s) of ${username}, ended ${oauthRecords} OAuth record(s) (grants, sessions,` +
          ' codes, refresh tokens) and refused every access token issued to them before now',
      );
    });
  user
    .command('create <username>')
    .description('create a user')
    .requiredOption('--role <role>', 'admin | buyer | viewer')
    .option('--projects <ids>', 'comma-separated project ids, first is the default', 'P001')
    .option('--name <displayName>', 'display name')
    .option('--data-dir <dir>', 'data directory')
    .action(async (username: string, opts) => {
      if (!(ROLES as readonly string[]).includes(opts.role))
        throw new Error(`--role must be one of ${ROLES.join(', ')}, not ${opts.role}`);
      const created = await withErp(opts, (erp) =>
        erp.services.users.create({
          username,
          displayName: opts.name,
          role: opts.role as Role,
          projectIds: String(opts.projects)
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean),
        }),
      );
      console.log(JSON.stringify(created));
    });
  user
    .command('list')
    .description('list users')
    .option('--data-dir <dir>', 'data directory')
    .action(async (opts) => {
      const users = await withErp(opts, (erp) => erp.services.users.list());
      for (const u of users)
        console.log(
          `${String(u.id).padStart(3)}  ${u.username.padEnd(12)} ${u.role.padEnd(7)} ${u.projectIds.join(',')}  ${u.displayName}`,
        );
    });
}
