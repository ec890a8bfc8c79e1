import fs from 'node:fs';
import path from 'node:path';
import { input } from '@inquirer/prompts';
import type { Command } from 'commander';
import { ChatClient } from '../../protocol/index.ts';
import { dim } from '../chat/render.ts';
import { TerminalChat, type TurnOutcome } from '../chat/terminal-chat.ts';
import { settingsFrom } from '../options.ts';

const EXIT_CODES: Record<TurnOutcome, number> = { done: 0, error: 1, cancelled: 130, waiting: 2 };

/** The API token: `--token`, else `PROCURA_TOKEN`, else the first demo user's token of an embedded data dir. */
function resolveToken(opts: { token?: string }, dataDir: string): string {
  const token = opts.token ?? process.env.PROCURA_TOKEN;
  if (token) return token;
  const file = path.join(dataDir, 'demo-tokens.json');
  if (fs.existsSync(file)) {
    const demo = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    const first = Object.values(demo)[0];
    if (first) return first;
  }
  throw new Error('需要 API 令牌：--token 或 PROCURA_TOKEN / an API token is needed: --token or PROCURA_TOKEN');
}

export function registerChatCommand(program: Command): void {
  program
    .command('chat')
    .description('chat with Procura in the terminal / 终端对话')
    .option('--url <url>', 'chat API address (default PROCURA_API_URL or http://<host>:<API_PORT>)')
    .option('--token <token>', 'API token (default PROCURA_TOKEN, or the demo user of --data-dir)')
    .option('--session <id>', 'continue a session / 继续会话')
    .option('--once <message>', 'send one message, follow the run to its end, and exit')
    .option('--json', 'with --once: print every event as a JSON line')
    .option('--yes', 'approve every approval without asking (for scripts) / 自动批准')
    .option('--data-dir <dir>', 'data directory holding demo-tokens.json')
    .option('--host <host>', 'API host when --url is not given')
    .action(async (opts) => {
      if (opts.json && !opts.once) throw new Error('--json 需与 --once 一起使用 / --json needs --once');
      const settings = settingsFrom(opts);
      const url = opts.url ?? process.env.PROCURA_API_URL ?? `http://${settings.host}:${settings.apiPort}`;
      if (!/^https?:\/\/[^\s]+$/.test(url)) throw new Error(`--url 无效 / invalid --url: ${url}`);
      const client = new ChatClient(url, resolveToken(opts, settings.dataDir));
      // Prompts need a person at a terminal; `--json` output is for scripts, which decide with `--yes` or not at all.
      const interactive = Boolean(process.stdin.isTTY) && !opts.json;
      const chat = new TerminalChat(
        client,
        { json: Boolean(opts.json), yes: Boolean(opts.yes), interactive },
        opts.session,
      );

      // Ctrl-C: the first stops the run on the server, a second one (or one while idle) exits.
      process.on('SIGINT', () => {
        if (!chat.interrupt()) process.exit(130);
      });

      if (opts.once) {
        const outcome = await chat.turn(String(opts.once));
        if (!opts.json && chat.sessionId) console.log(dim(`\n会话 / session: ${chat.sessionId}`));
        process.exit(EXIT_CODES[outcome]);
      }
      if (!process.stdin.isTTY)
        throw new Error('交互模式需要终端；脚本请用 --once / interactive mode needs a terminal; use --once');
      console.log(
        dim(`Procura · ${url} · 输入消息，Ctrl-C 停止任务，空闲时 Ctrl-C 退出 / Ctrl-C stops a run, exits when idle`),
      );
      await chat.reattach();
      for (;;) {
        let message: string;
        try {
          message = await input({ message: '你 / you' });
        } catch {
          process.exit(0); // Ctrl-C or Ctrl-D at the prompt
        }
        if (!message.trim()) continue;
        if (/^\/(exit|quit)$/.test(message.trim())) process.exit(0);
        await chat.turn(message.trim()).catch((error: Error) => console.error(error.message));
        console.log();
      }
    });
}
