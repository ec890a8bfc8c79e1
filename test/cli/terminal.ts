import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { ROOT } from '../ui/procura.ts';

/** Whether util-linux `script` is here to give `procura chat` a pseudo-terminal. */
export const hasScript = fs.existsSync('/usr/bin/script');

/** One `procura chat` in a terminal: what it has shown, waiting for text, typing. */
export function terminalChat(apiUrl: string, token: string) {
  const command = `${process.execPath} bin/procura.js chat --url ${apiUrl} --token ${token}`;
  const child: ChildProcessWithoutNullStreams = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...process.env, TERM: 'xterm', COLUMNS: '200' },
  });
  let screen = '';
  child.stdout.on('data', (d) => {
    screen += d;
  });
  const plain = () => stripVTControlCharacters(screen);
  const count = (re: RegExp) => plain().match(new RegExp(re.source, 'g'))?.length ?? 0;
  return {
    child,
    plain,
    count,
    async waitFor(re: RegExp, times = 1) {
      const deadline = Date.now() + 90_000;
      while (count(re) < times) {
        if (Date.now() > deadline) throw new Error(`no ${re} on screen:\n${plain().slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    type: (text: string) => child.stdin.write(text),
    exited: () => new Promise((resolve) => child.once('exit', resolve)),
  };
}
