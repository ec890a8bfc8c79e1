import { input } from '@inquirer/prompts';
import type { Command } from 'commander';
import { dim } from '../chat/render.ts';
import { TerminalChat, type TurnOutcome } from '../chat/terminal-chat.ts';
import { chatApiClient, withApiOptions } from '../options.ts';

const EXIT_CODES: Record<TurnOutcome, number> = { done: 0, error: 1, cancelled: 130, waiting: 2 };

export function registerChatCommand(program: Command): void {
  withApiOptions(program.command('chat').description('chat with Procura in the terminal / 终端对话'))
    .option('--session <id>', 'continue a session / 继续会话')
    .option('--once <message>', 'send one message, follow the run to its end, and exit')
    .option('--json', 'with --once: print every event as a JSON line')
    .option('--yes', 'approve every approval without asking (for scripts) / 自动批准')
    .action(async (opts) => {
      if (opts.json && !opts.once) throw new Error('--json 需与 --once 一起使用 / --json needs --once');
      const { client, url } = chatApiClient(opts);
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
