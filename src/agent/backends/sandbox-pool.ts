import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import type { ExecuteResponse } from 'deepagents';
import { childEnv, nodeScript, setIdle } from '../../shared/index.ts';
import {
  EXIT_CODES,
  memoryMessage,
  type SandboxLimits,
  type Script,
  type ScriptFiles,
  timeoutMessage,
} from './quickjs-runner.ts';

/** Parent → sandbox process. */
export type ParentMessage = { type: 'run'; script: Script; limits: SandboxLimits } | ({ type: 'fs' } & FileReply);
export type FileReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
/** Sandbox process → parent. */
export type SandboxMessage =
  | { type: 'ready' }
  | { type: 'fs'; id: number; op: keyof ScriptFiles; args: string[] }
  | { type: 'done'; response: ExecuteResponse };

export interface SandboxPoolOptions {
  /** Processes kept booted and waiting, so an execution does not wait for one to start. */
  spares: number;
  /** Executions running at once; more wait for a free slot (the wait does not count against their time). */
  maxConcurrent: number;
  /** V8 heap of each sandbox process (the script's own memory is the separate, capped WASM memory). */
  heapMb: number;
}

export const DEFAULT_POOL_OPTIONS: SandboxPoolOptions = { spares: 2, maxConcurrent: 8, heapMb: 192 };

/** A process serves at most this many executions before it is replaced. */
const RUNS_PER_PROCESS = 100;
/** Outcomes after which a process is not reused: it stopped a script at a limit. */
const RETIRING_EXIT_CODES: number[] = [EXIT_CODES.timeout, EXIT_CODES.memory];
/** Time a process gets past its wall limit to report by itself before it is killed. */
const KILL_GRACE_MS = 1_000;
/**
 * A script still running after this long gets a lower CPU priority (niceness), so long or runaway scripts yield
 * the CPU to the API that started them while short ones run at full speed. A process cannot raise its priority
 * again, so it is not reused afterwards.
 */
const DEMOTE_AFTER_MS = 250;
const SANDBOX_NICENESS = 19;
const STDERR_KEPT = 4_096;

interface SandboxProcess {
  child: ChildProcess;
  ready: Promise<void>;
  stderr: () => string;
  runs: number;
  demoted: boolean;
}

function startProcess(heapMb: number): SandboxProcess {
  // No inherited environment: secrets of the API (tokens, database URLs) never reach the sandbox process.
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${heapMb}`, ...nodeScript(import.meta.url, 'sandbox-process')],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: childEnv({}, ['PATH']),
      cwd: os.tmpdir(),
    },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  child.on('error', () => undefined); // reported through 'exit' and the ready promise
  const ready = new Promise<void>((resolve, reject) => {
    const onMessage = (message: SandboxMessage) => {
      if (message.type !== 'ready') return;
      child.off('message', onMessage);
      resolve();
    };
    child.on('message', onMessage);
    child.once('exit', (code, signal) =>
      reject(new Error(`沙箱进程无法启动 / the sandbox process did not start (${signal ?? code}): ${stderr.trim()}`)),
    );
  });
  ready.catch(() => undefined);
  setIdle(child, true);
  return { child, ready, stderr: () => stderr, runs: 0, demoted: false };
}

function demote(sandbox: SandboxProcess): void {
  if (!sandbox.child.pid) return;
  try {
    os.setPriority(sandbox.child.pid, SANDBOX_NICENESS);
    sandbox.demoted = true;
  } catch {
    // not permitted here, or already gone: the script keeps its priority
  }
}

const isAlive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null && child.connected;

/**
 * Runs scripts in separate processes, one execution per process at a time, taken from a few booted spares.
 * A script cannot block the host's event loop, grow the host's memory, or outlive its limits: its process has a
 * capped WASM memory and heap, stops the script at its time and CPU limits, and is killed if it does not. Killing
 * one never touches another execution. Each script gets a fresh engine instance; a process that stopped a script
 * at a limit, was demoted for running long, or has served many, is replaced rather than reused.
 */
export class SandboxPool {
  private readonly options: SandboxPoolOptions;
  /** Booted (or booting) processes waiting for a script, booted ones first. */
  private readonly spares: SandboxProcess[] = [];
  private readonly running = new Set<ChildProcess>();
  private readonly waiting: Array<() => void> = [];
  private slotsTaken = 0;
  private warm = false;
  private closed = false;

  constructor(options: Partial<SandboxPoolOptions> = {}) {
    this.options = { ...DEFAULT_POOL_OPTIONS, ...options };
  }

  /** Boots the spares now, so the first execution does not pay for a process start; resolves once they are up. */
  async prepare(): Promise<void> {
    this.warm = true;
    this.refill();
    // Whoever waits here keeps the host alive until the spares are up; idle again afterwards.
    const booting = [...this.spares];
    for (const spare of booting) setIdle(spare.child, false);
    await Promise.allSettled(booting.map((s) => s.ready));
    for (const spare of booting) if (this.spares.includes(spare)) setIdle(spare.child, true);
  }

  async run(script: Script, files: ScriptFiles, limits: SandboxLimits): Promise<ExecuteResponse> {
    if (this.closed) throw new Error('sandbox pool is closed');
    await this.slot();
    try {
      const sandbox = this.spares.shift() ?? this.start();
      setIdle(sandbox.child, false);
      try {
        await sandbox.ready;
      } catch (error) {
        return { output: (error as Error).message, exitCode: EXIT_CODES.error, truncated: false };
      }
      const response = await this.execute(sandbox, script, files, limits);
      this.giveBack(sandbox, response);
      return response;
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.spares.map((s) => s.child), ...this.running];
    this.spares.length = 0;
    await Promise.all(
      all.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            setIdle(child, false); // awaited: keep the host alive until the process is gone
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
  }

  private execute(
    sandbox: SandboxProcess,
    script: Script,
    files: ScriptFiles,
    limits: SandboxLimits,
  ): Promise<ExecuteResponse> {
    const { child } = sandbox;
    this.running.add(child);
    return new Promise<ExecuteResponse>((resolve) => {
      // File requests are answered one after another, and none once the run has ended: a script that queued
      // thousands of writes and was then stopped writes nothing more, and holds up nobody's next run.
      let requests = Promise.resolve();
      let settled = false;
      let killed = false;
      const finish = (response: ExecuteResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(demotion);
        this.running.delete(child);
        child.off('message', onMessage);
        child.off('exit', onExit);
        // The run is over once the file request in hand (if any) is: nothing is written after it ends.
        void requests.then(() => resolve(response));
      };
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, limits.timeoutMs + KILL_GRACE_MS);
      const demotion = setTimeout(() => demote(sandbox), DEMOTE_AFTER_MS);
      const onMessage = (message: SandboxMessage) => {
        if (message.type === 'done') finish(message.response);
        else if (message.type === 'fs')
          requests = requests.then(() => (settled ? undefined : this.answer(child, message, files)));
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        if (killed) return finish({ output: timeoutMessage(limits), exitCode: EXIT_CODES.timeout, truncated: false });
        if (/heap out of memory|Allocation failed/i.test(sandbox.stderr())) {
          return finish({ output: memoryMessage(limits), exitCode: EXIT_CODES.memory, truncated: false });
        }
        finish({
          output: `沙箱进程意外结束 / the sandbox process ended unexpectedly (${signal ?? `exit ${code}`})`,
          exitCode: EXIT_CODES.error,
          truncated: false,
        });
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ type: 'run', script, limits } satisfies ParentMessage);
    });
  }

  private async answer(
    child: ChildProcess,
    request: Extract<SandboxMessage, { type: 'fs' }>,
    files: ScriptFiles,
  ): Promise<void> {
    let reply: FileReply;
    try {
      const [first = '', second = ''] = request.args;
      const value =
        request.op === 'writeFile'
          ? await files.writeFile(first, second)
          : request.op === 'readFile'
            ? await files.readFile(first)
            : await files.listDir(first);
      reply = { id: request.id, ok: true, value };
    } catch (error) {
      reply = { id: request.id, ok: false, error: (error as Error).message };
    }
    if (child.connected) child.send({ type: 'fs', ...reply } satisfies ParentMessage, () => undefined);
  }

  /** A process that ended its script normally waits for the next one; any other is replaced. */
  private giveBack(sandbox: SandboxProcess, response: ExecuteResponse): void {
    sandbox.runs++;
    const alive = isAlive(sandbox.child);
    const reusable =
      alive &&
      !sandbox.demoted &&
      sandbox.runs < RUNS_PER_PROCESS &&
      !RETIRING_EXIT_CODES.includes(response.exitCode ?? EXIT_CODES.error);
    if (reusable && !this.closed) {
      // Reused first: it is booted; a spare still booting beyond the target is the one let go.
      setIdle(sandbox.child, true);
      this.spares.unshift(sandbox);
      while (this.spares.length > Math.max(1, this.options.spares)) this.spares.pop()?.child.kill('SIGKILL');
    } else if (alive) {
      sandbox.child.kill('SIGKILL');
    }
    this.warm = true;
    this.refill();
  }

  private start(): SandboxProcess {
    const sandbox = startProcess(this.options.heapMb);
    // A spare that dies while waiting is dropped, and replaced unless it never booted (no restart loop).
    let booted = false;
    sandbox.ready.then(
      () => {
        booted = true;
      },
      () => undefined,
    );
    sandbox.child.once('exit', () => {
      const index = this.spares.indexOf(sandbox);
      if (index < 0) return;
      this.spares.splice(index, 1);
      if (booted) this.refill();
    });
    return sandbox;
  }

  private refill(): void {
    if (this.closed || !this.warm) return;
    while (this.spares.length < this.options.spares) this.spares.push(this.start());
  }

  private slot(): Promise<void> {
    if (this.slotsTaken < this.options.maxConcurrent) {
      this.slotsTaken++;
      return Promise.resolve();
    }
    // The slot passes straight from the finishing execution to the next waiting one.
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.slotsTaken--;
  }
}
