import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import { childEnv, nodeScript, setIdle } from '../shared/index.ts';
import type { ReaderAnswer, ReaderRequest } from './reply-process.ts';
import type { ParsedReply, ReadableKind, ReplyTables } from './reply-tables.ts';

/** What the reading process may take: its heap, and the time for one mail or file. */
export const READER_LIMITS = { heapMb: 192, timeoutMs: 20_000 } as const;
/** Below the serving processes: a long read yields the CPU to the ERP and the chat API. */
const READER_NICENESS = 10;

const TOO_MUCH = `超出解析的内存或时间限制（${READER_LIMITS.heapMb} MiB / ${READER_LIMITS.timeoutMs / 1000} s），未读取 / over the reading limits (${READER_LIMITS.heapMb} MiB, ${READER_LIMITS.timeoutMs / 1000} s): not read`;

/** Something a supplier sent that the bounded reader refused or could not read, with why. */
export class UnreadInput extends Error {
  constructor(
    message: string,
    readonly overLimit: boolean,
  ) {
    super(message);
  }
}

/**
 * The reading process: started on the first request and kept for the next (loading its libraries takes seconds),
 * one request at a time. One that overruns its deadline or dies (a bomb past its heap) is killed and replaced.
 */
let reader: ChildProcess | undefined;
let queue: Promise<unknown> = Promise.resolve();

function startReader(): ChildProcess {
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${READER_LIMITS.heapMb}`, ...nodeScript(import.meta.url, 'reply-process')],
    { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'advanced', env: childEnv(), cwd: os.tmpdir() },
  );
  if (child.pid)
    try {
      os.setPriority(child.pid, READER_NICENESS);
    } catch {
      // not permitted here: it reads at the server's priority, still bounded by its heap and deadline
    }
  child.on('error', () => undefined); // reported through 'exit'
  return child;
}

/** Runs one request in the reading process, after those before it; `failed` when it dies or overruns. */
function readOutside(request: ReaderRequest): Promise<ReaderAnswer[]> {
  const run = queue.then(
    () =>
      new Promise<ReaderAnswer[]>((resolve) => {
        if (!reader || reader.exitCode !== null || !reader.connected) reader = startReader();
        const child = reader;
        setIdle(child, false);
        const answers: ReaderAnswer[] = [];
        const finish = (last?: ReaderAnswer) => {
          clearTimeout(timer);
          child.off('message', onMessage);
          child.off('exit', onExit);
          if (last) {
            answers.push(last);
            child.kill('SIGKILL');
          } else setIdle(child, true);
          resolve(answers);
        };
        const failed: ReaderAnswer = { type: 'failed', message: TOO_MUCH, overLimit: true };
        const onMessage = (answer: ReaderAnswer) => (answer.type === 'done' ? finish() : answers.push(answer));
        const onExit = () => finish(failed);
        const timer = setTimeout(() => finish(failed), READER_LIMITS.timeoutMs);
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send(request);
      }),
  );
  queue = run;
  return run;
}

/**
 * A mail read outside this process: its envelope, and its tables or why they were not read. Throws `UnreadInput`
 * only when not even the envelope could be read.
 */
export async function readMailOutside(raw: Buffer): Promise<{ reply: ParsedReply; tables: ReplyTables }> {
  let reply: ParsedReply | undefined;
  for (const answer of await readOutside({ mail: raw })) {
    if (answer.type === 'envelope') reply = answer.reply;
    else if (answer.type === 'tables' && reply) return { reply, tables: answer.tables };
    else if (answer.type === 'failed') {
      if (!reply) throw new UnreadInput(answer.message, answer.overLimit);
      return { reply, tables: { tables: [], ignored: [], refused: [answer.message] } };
    }
  }
  if (!reply) throw new UnreadInput(TOO_MUCH, true);
  return { reply, tables: { tables: [], ignored: [], refused: [TOO_MUCH] } };
}

/** The rows of one quote file, read outside this process; `UnreadInput` says why not. */
export async function readFileOutside(kind: ReadableKind, content: Buffer): Promise<string[][]> {
  for (const answer of await readOutside({ file: content, kind })) {
    if (answer.type === 'rows') return answer.rows;
    if (answer.type === 'failed') throw new UnreadInput(answer.message, answer.overLimit);
  }
  throw new UnreadInput(TOO_MUCH, true);
}
