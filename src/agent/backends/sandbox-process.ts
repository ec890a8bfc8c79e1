/**
 * Entry of a sandbox child process: compiles the engine while idle, then runs the scripts it is sent, one at a time,
 * each in a fresh engine instance.
 * Files are not touched here: every `fs.*` call of the script is a request to the parent, which applies the
 * workspace rules and the disk quota. The process ends with its parent (IPC disconnect).
 */
import type { ExecuteResponse } from 'deepagents';
import { compileEngine, DEFAULT_SANDBOX_LIMITS, runScript, type ScriptFiles } from './quickjs-runner.ts';
import type { FileReply, ParentMessage, SandboxMessage } from './sandbox-pool.ts';

const send = (message: SandboxMessage, then?: () => void) => process.send?.(message, undefined, {}, then);

const pending = new Map<number, (reply: FileReply) => void>();
let nextCall = 0;

function call<T>(op: keyof ScriptFiles, args: string[]): Promise<T> {
  const id = nextCall++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, (reply) => (reply.ok ? resolve(reply.value as T) : reject(new Error(reply.error))));
    send({ type: 'fs', id, op, args });
  });
}

const files: ScriptFiles = {
  readFile: (path) => call('readFile', [path]),
  writeFile: (path, text) => call('writeFile', [path, text]),
  listDir: (path) => call('listDir', [path]),
};

process.on('disconnect', () => process.exit(0));
process.on('message', (message: ParentMessage) => {
  if (message.type === 'fs') {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
    return;
  }
  void runScript(message.script, files, message.limits).then((response: ExecuteResponse) =>
    send({ type: 'done', response }),
  );
});
// Compile, then run one script: V8 compiles WASM functions on first call, so the user's first script would pay
// for that otherwise.
await compileEngine();
const noFiles = () => Promise.reject(new Error('no files while warming up'));
await runScript(
  {
    code: 'console.log(JSON.stringify({ warm: [1, 2].map((n) => n * 2) }), Math.max(1, 2), new Date(0).toISOString())',
    filename: '/warm-up.js',
  },
  { readFile: noFiles, writeFile: noFiles, listDir: noFiles },
  { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 5_000 },
);
send({ type: 'ready' });
