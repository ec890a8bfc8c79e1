import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import quickjsNgExport from '@jitl/quickjs-ng-wasmfile-release-sync';
import type { ExecuteResponse } from 'deepagents';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';

// The variant package's typings are CommonJS-shaped; at run time its ESM default export is the variant itself.
const quickjsNg = quickjsNgExport as unknown as QuickJSSyncVariant;

let compiledEngine: Promise<WebAssembly.Module> | undefined;

type QuickJSWasmMemory = NonNullable<Parameters<typeof newVariant>[1]>['wasmMemory'] & { buffer: ArrayBuffer };

// Node's WebAssembly object; @types/node declares only its types, not the value.
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<WebAssembly.Module>;
      Memory: new (descriptor: { initial: number; maximum: number }) => QuickJSWasmMemory;
    };
  }
).WebAssembly;

/** The engine compiled once per process; each run then only instantiates it (a few ms instead of tens). */
export function compileEngine(): Promise<WebAssembly.Module> {
  compiledEngine ??= (async () => {
    const wasmFile = createRequire(import.meta.url).resolve('@jitl/quickjs-ng-wasmfile-release-sync/wasm');
    return wasm.compile(await readFile(wasmFile));
  })().catch((error) => {
    compiledEngine = undefined;
    throw error;
  });
  return compiledEngine;
}

export interface SandboxLimits {
  /** Script heap: the WASM memory is created with this much room past its start and can never grow further. */
  memoryBytes: number;
  /** Wall-clock limit for one execution, file I/O included. */
  timeoutMs: number;
  /** CPU time of the process that runs the script. */
  cpuMs: number;
  /** Interpreter stack; above ~512 KiB deep recursion overflows the host's own stack first. */
  stackBytes: number;
  /** Captured console output kept; the rest is cut and the response marked truncated. */
  outputChars: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  memoryBytes: 64 * 1024 * 1024,
  timeoutMs: 30_000,
  cpuMs: 20_000,
  stackBytes: 512 * 1024,
  outputChars: 50_000,
};

/** Exit codes, shell-like so the model reads them the usual way. */
export const EXIT_CODES = { ok: 0, error: 1, usage: 2, timeout: 124, unknownCommand: 127, memory: 137 } as const;

export interface DirectoryEntry {
  path: string;
  isDir: boolean;
  size: number;
}

/** The only host capabilities a script gets: text files of its own workspace. */
export interface ScriptFiles {
  readFile(path: string): Promise<string>;
  writeFile(path: string, text: string): Promise<void>;
  listDir(path: string): Promise<DirectoryEntry[]>;
}

/** JavaScript ready to evaluate (TypeScript already stripped). */
export interface Script {
  code: string;
  /** Shown in stack traces and syntax errors, e.g. `/analysis/analyze.ts`. */
  filename: string;
}

/** Initial WASM heap of a fresh QuickJS-ng instance, before any script allocates. */
const INITIAL_WASM_BYTES = 16 * 1024 * 1024;

const WASM_PAGE = 64 * 1024;

type StopReason = 'timeout' | 'cpu' | 'memory';

/**
 * Runs one script as an ES module (top-level `await` allowed) in a fresh QuickJS-ng WASM instance with no host
 * access except `fs.readFile / fs.writeFile / fs.listDir` (workspace text files, async) and `console.*` (captured).
 * Every outcome — syntax error, exception, timeout, memory — comes back as an `ExecuteResponse`; nothing throws.
 * Each run gets its own instance and its own WASM memory, capped at creation, that are dropped afterwards.
 */
export async function runScript(script: Script, files: ScriptFiles, limits: SandboxLimits): Promise<ExecuteResponse> {
  const output = new OutputBuffer(limits.outputChars);
  try {
    return await evaluate(script.code, script.filename, files, limits, output);
  } catch (error) {
    // A failure of the engine itself (e.g. the host stack overflowing inside WASM) still ends as a response.
    const message = error instanceof RangeError ? '栈溢出 / stack overflow (recursion too deep)' : String(error);
    output.write(`沙箱执行失败 / sandbox failure: ${message}`);
    return output.response(EXIT_CODES.error);
  }
}

async function evaluate(
  code: string,
  filename: string,
  files: ScriptFiles,
  limits: SandboxLimits,
  output: OutputBuffer,
): Promise<ExecuteResponse> {
  // quickjs-ng in WASM cannot measure small allocations (no malloc_usable_size), so its own limit only stops
  // large ones; a WASM memory that cannot grow past its maximum is the hard limit (malloc fails → out of memory).
  const memoryCeiling = INITIAL_WASM_BYTES + limits.memoryBytes;
  const wasmMemory = new wasm.Memory({
    initial: INITIAL_WASM_BYTES / WASM_PAGE,
    maximum: Math.ceil(memoryCeiling / WASM_PAGE),
  });
  const engine = await newQuickJSWASMModuleFromVariant(
    newVariant(quickjsNg, { wasmModule: await compileEngine(), wasmMemory }),
  );
  const runtime = engine.newRuntime();
  const deadline = Date.now() + limits.timeoutMs;
  const cpuAtStart = process.cpuUsage();
  const cpuMs = () => {
    const used = process.cpuUsage(cpuAtStart);
    return (used.user + used.system) / 1000;
  };
  let stop: StopReason | undefined;
  let finished = false;
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => {
    if (finished) return true;
    if (Date.now() > deadline) stop ??= 'timeout';
    else if (cpuMs() > limits.cpuMs) stop ??= 'cpu';
    return stop !== undefined;
  });
  const context = runtime.newContext();
  installConsole(context, output);
  const pump = installFiles(context, runtime, files, () => finished);

  const stopped = (reason: StopReason) => {
    finished = true;
    if (reason === 'timeout') {
      output.write(timeoutMessage(limits));
      return output.response(EXIT_CODES.timeout);
    }
    if (reason === 'cpu') {
      output.write(cpuMessage(limits));
      return output.response(EXIT_CODES.timeout);
    }
    output.write(memoryMessage(limits));
    return output.response(EXIT_CODES.memory);
  };
  const failed = (errorHandle: QuickJSHandle) => {
    const error = context.dump(errorHandle);
    errorHandle.dispose();
    if (stop) return stopped(stop);
    // Out of memory can leave QuickJS unable to allocate even the error object: it then throws null.
    if (isOutOfMemory(error) || (error == null && wasmMemory.buffer.byteLength >= memoryCeiling * 0.9)) {
      return stopped('memory');
    }
    finished = true;
    output.write(describeError(error));
    return output.response(EXIT_CODES.error);
  };

  const evaluated = context.evalCode(code, filename, { type: 'module' });
  if (evaluated.error) return failed(evaluated.error);
  const settled = context.resolvePromise(evaluated.value);
  evaluated.value.dispose();
  const jobFailure = pump();
  if (jobFailure) return failed(jobFailure);

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  const outcome = await Promise.race([settled.then((result) => ({ result })), timedOut, pump.failure]);
  clearTimeout(timer);
  if (outcome === 'timeout') return stopped('timeout');
  if ('jobError' in outcome) return failed(outcome.jobError);
  if (outcome.result.error) return failed(outcome.result.error);
  outcome.result.value.dispose();
  finished = true;
  return output.response(EXIT_CODES.ok);
}

/** Pending-job pump: runs queued promise jobs; a job that throws uncatchably (interrupt) fails the run. */
interface Pump {
  (): QuickJSHandle | undefined;
  failure: Promise<{ jobError: QuickJSHandle }>;
}

function installFiles(context: QuickJSContext, runtime: QuickJSRuntime, files: ScriptFiles, isFinished: () => boolean) {
  let reportFailure: (failure: { jobError: QuickJSHandle }) => void = () => undefined;
  const pump = (() => {
    if (isFinished()) return undefined;
    const result = runtime.executePendingJobs();
    if (!result.error) return undefined;
    reportFailure({ jobError: result.error });
    return result.error;
  }) as Pump;
  pump.failure = new Promise((resolve) => {
    reportFailure = resolve;
  });

  const fs = context.newObject();
  const bridge = (name: keyof ScriptFiles, call: (args: unknown[]) => Promise<unknown>) => {
    const fn = context.newFunction(name, (...argHandles) => {
      const args = argHandles.map((h) => (context.typeof(h) === 'string' ? exactString(context, h) : context.dump(h)));
      const deferred = context.newPromise();
      call(args).then(
        (value) => {
          if (isFinished() || !deferred.alive) return;
          const handle = value === undefined ? context.undefined : toGuest(context, value);
          deferred.resolve(handle);
          if (handle !== context.undefined) handle.dispose();
          pump();
        },
        (error: Error) => {
          if (isFinished() || !deferred.alive) return;
          const handle = context.newError({ name: 'Error', message: error.message });
          deferred.reject(handle);
          handle.dispose();
          pump();
        },
      );
      return deferred.handle;
    });
    context.setProp(fs, name, fn);
    fn.dispose();
  };
  bridge('readFile', ([path]) => files.readFile(pathArgument(path)));
  bridge('writeFile', ([path, text]) => {
    if (typeof text !== 'string') {
      return Promise.reject(
        new Error('writeFile 只接受字符串，请先 JSON.stringify / writeFile takes a string: JSON.stringify it first'),
      );
    }
    return files.writeFile(pathArgument(path), text);
  });
  bridge('listDir', ([path]) => files.listDir(path === undefined ? '/' : pathArgument(path)));
  context.setProp(context.global, 'fs', fs);
  fs.dispose();
  return pump;
}

export const timeoutMessage = (limits: SandboxLimits) =>
  `执行超时 / timed out: the script ran longer than ${limits.timeoutMs / 1000} s`;
export const cpuMessage = (limits: SandboxLimits) =>
  `CPU 时间超出限制 / CPU time limit exceeded (${limits.cpuMs / 1000} s)`;
export const memoryMessage = (limits: SandboxLimits) =>
  `内存超出限制 / memory limit exceeded (${Math.round(limits.memoryBytes / 1024 / 1024)} MiB)`;

function pathArgument(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0) throw new Error('路径必须是字符串 / a path must be a string');
  return path;
}

/**
 * A guest string with every character: reading it directly stops at the first NUL, which would turn the path
 * `/a\0b` into `/a` and cut file contents short. Through the guest's JSON.stringify the NUL survives as `\u0000`.
 */
function exactString(context: QuickJSContext, handle: QuickJSHandle): string {
  const jsonObject = context.getProp(context.global, 'JSON');
  const stringify = context.getProp(jsonObject, 'stringify');
  const json = context.unwrapResult(context.callFunction(stringify, jsonObject, handle));
  const text = JSON.parse(context.getString(json)) as string;
  for (const h of [json, jsonObject, stringify]) h.dispose();
  return text;
}

/** Plain data (JSON-compatible) into the guest, via the guest's own JSON.parse. */
function toGuest(context: QuickJSContext, value: unknown): QuickJSHandle {
  // newString would stop at a NUL; JSON carries it as \u0000.
  if (typeof value === 'string' && !value.includes('\0')) return context.newString(value);
  const json = context.newString(JSON.stringify(value));
  const jsonObject = context.getProp(context.global, 'JSON');
  const parse = context.getProp(jsonObject, 'parse');
  const parsed = context.unwrapResult(context.callFunction(parse, jsonObject, json));
  for (const handle of [json, jsonObject, parse]) handle.dispose();
  return parsed;
}

function installConsole(context: QuickJSContext, output: OutputBuffer): void {
  const consoleObject = context.newObject();
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const fn = context.newFunction(level, (...args) => {
      output.write(args.map((a) => formatValue(context.dump(a))).join(' '));
    });
    context.setProp(consoleObject, level, fn);
    fn.dispose();
  }
  context.setProp(context.global, 'console', consoleObject);
  consoleObject.dispose();
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isErrorLike(value)) return `${value.name}: ${value.message}`;
  return inspect(value, { depth: 6, breakLength: 120, maxArrayLength: 200 });
}

interface ErrorLike {
  name: string;
  message: string;
  stack?: string;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ErrorLike).name === 'string' &&
    typeof (value as ErrorLike).message === 'string'
  );
}

function isOutOfMemory(error: unknown): boolean {
  return isErrorLike(error) && error.name === 'InternalError' && /out of memory/i.test(error.message);
}

function describeError(error: unknown): string {
  if (!isErrorLike(error)) return `未捕获的异常 / uncaught exception: ${formatValue(error)}`;
  const stack = error.stack?.trim() ? `\n${error.stack.trimEnd()}` : '';
  if (error.name === 'RangeError' && /call stack/i.test(error.message)) {
    return `RangeError: 栈溢出 / stack overflow (${error.message})${stack}`;
  }
  return `${error.name}: ${error.message}${stack}`;
}

/** Console output, capped: once the cap is hit the rest is dropped and the response says so. */
export class OutputBuffer {
  private readonly lines: string[] = [];
  private size = 0;
  private truncated = false;

  constructor(private readonly cap: number) {}

  write(line: string): void {
    if (this.truncated) return;
    if (this.size + line.length > this.cap) {
      this.lines.push(`${line.slice(0, Math.max(0, this.cap - this.size))}\n… 输出已截断 / output truncated`);
      this.truncated = true;
      return;
    }
    this.lines.push(line);
    this.size += line.length + 1;
  }

  response(exitCode: number): ExecuteResponse {
    return { output: this.lines.join('\n'), exitCode, truncated: this.truncated };
  }
}
