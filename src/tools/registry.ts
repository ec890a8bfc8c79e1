import { z } from 'zod';

/** Who a tool runs for. Everything a tool needs to act as the user travels here, never in the model's arguments. */
export interface ToolContext {
  userId: string;
  role: 'admin' | 'buyer' | 'viewer';
  /** The user's ERP bearer token (forwarded on every ERP call). */
  token?: string;
  projectId?: string;
  traceId: string;
  /** A run marked read-only (or a viewer's run) is never offered write tools. */
  readOnly?: boolean;
  sessionId?: string;
}

/** Execution control only — never domain input. */
export interface ToolControl {
  signal?: AbortSignal;
  progress?: (message: string) => void;
  /** Stable id of this call (e.g. the model's tool-call id): writes derive their idempotency key from it. */
  callId?: string;
}

export interface ToolSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Chinese label for the UI and the step list. */
  label: string;
  description: string;
  schema: S;
  safety: 'read-only' | 'write';
  approval?: 'none' | 'required';
  execution?: 'parallel' | 'sequential';
  background?: true;
  /** Prefix group (`supplier`, `part`, `order`, `inventory`, `web`, `chart`, …) that agents select tools by. */
  group: string;
  /** Current facts appended to the description when the tool is bound (valid categories, statuses, …). */
  liveValues?: (ctx: ToolContext) => Promise<string | undefined>;
}

export interface ToolDefinition extends Readonly<Required<Omit<ToolSpec, 'background' | 'liveValues'>>> {
  readonly background: boolean;
  readonly liveValues?: ToolSpec['liveValues'];
  /** JSON schema of the input, frozen at declaration. */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
}

/** A known failure the model can act on; tools never throw into the run. */
export interface ToolFailure {
  success: false;
  error: string;
  stateChanged: false;
  suggestion: string;
}

/** Thrown inside a tool for a failure the model should correct (bad name, not found, …). */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly suggestion: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export const isToolFailure = (value: unknown): value is ToolFailure =>
  typeof value === 'object' && value !== null && (value as { success?: unknown }).success === false;

type ToolMethod<S extends z.ZodType> = (input: z.infer<S>, control: ToolControl) => Promise<unknown>;

/** Declarations by method function; `ToolRegistry.register` finds a class's tools through its prototype. */
const declared = new Map<ToolMethod<z.ZodType>, ToolDefinition>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * Declares a public instance method as a tool. The method body is the implementation; the declaration is
 * frozen and validated once. Refuses private/static methods and duplicate names.
 */
export function Tool<S extends z.ZodType>(spec: ToolSpec<S>) {
  return (method: ToolMethod<S>, context: ClassMethodDecoratorContext): void => {
    if (context.private || context.static)
      throw new Error(`@Tool ${spec.name}: only public instance methods can be tools`);
    if (!/^[a-z][a-z0-9_]{1,63}$/.test(spec.name)) throw new Error(`@Tool ${spec.name}: names are snake_case`);
    for (const existing of declared.values()) {
      if (existing.name === spec.name) throw new Error(`@Tool ${spec.name}: declared twice`);
    }
    const jsonSchema = z.toJSONSchema(spec.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete jsonSchema.$schema;
    declared.set(
      method as ToolMethod<z.ZodType>,
      Object.freeze({
        name: spec.name,
        label: spec.label,
        description: spec.description,
        schema: spec.schema,
        safety: spec.safety,
        approval: spec.approval ?? (spec.safety === 'write' ? 'required' : 'none'),
        execution: spec.execution ?? (spec.safety === 'write' ? 'sequential' : 'parallel'),
        background: spec.background === true,
        group: spec.group,
        liveValues: spec.liveValues,
        jsonSchema: deepFreeze(jsonSchema),
      }),
    );
  };
}

interface Entry {
  definition: ToolDefinition;
  run: (ctx: ToolContext, input: unknown, control: ToolControl) => Promise<unknown>;
}

/** Describes the first five schema violations so a model can fix its next call. */
export function describeIssues(error: z.ZodError): string {
  const issues = error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`);
  const more = error.issues.length > 5 ? ` (+${error.issues.length - 5} more)` : '';
  return issues.join('; ') + more;
}

/** All tools of a process: one `execute` that validates first, and the single source for every adapter. */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();

  /** Registers every `@Tool` method of a class; `create` gives the instance that serves a context (e.g. bound to the user's token). */
  register<T extends object>(target: abstract new (...args: never[]) => T, create: (ctx: ToolContext) => T): this {
    let found = 0;
    for (let proto = target.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const key of Object.getOwnPropertyNames(proto)) {
        const method = Object.getOwnPropertyDescriptor(proto, key)?.value;
        const definition = typeof method === 'function' ? declared.get(method) : undefined;
        if (!definition) continue;
        if (this.entries.has(definition.name)) throw new Error(`tool ${definition.name} is already registered`);
        this.entries.set(definition.name, {
          definition,
          run: (ctx, input, control) => (method as ToolMethod<z.ZodType>).call(create(ctx), input, control),
        });
        found++;
      }
    }
    if (found === 0) throw new Error(`${target.name} declares no @Tool methods`);
    return this;
  }

  get(name: string): ToolDefinition | undefined {
    return this.entries.get(name)?.definition;
  }

  /** Tools visible in a context: a read-only context (viewer or read-only run) gets no write tools at all.
   *  With a filter, a tool is listed when its group or its name is selected. */
  list(
    ctx?: Pick<ToolContext, 'role' | 'readOnly'>,
    filter?: { groups?: readonly string[]; names?: readonly string[] },
  ): ToolDefinition[] {
    const readOnly = ctx ? ctx.readOnly === true || ctx.role === 'viewer' : false;
    return [...this.entries.values()]
      .map((e) => e.definition)
      .filter((d) => !(readOnly && d.safety === 'write'))
      .filter((d) => !filter || filter.groups?.includes(d.group) || filter.names?.includes(d.name));
  }

  /** The description the model sees: the declared text plus live values, when the tool has them. */
  async describe(name: string, ctx: ToolContext): Promise<string> {
    const definition = this.require(name);
    const live = await definition.liveValues?.(ctx).catch(() => undefined);
    return live ? `${definition.description}\n${live}` : definition.description;
  }

  /**
   * Validates `input` against the tool's schema, then runs it. Never throws: known failures and unexpected
   * exceptions both come back as a `ToolFailure` (unexpected ones are reported to `onUnexpected` for logging).
   */
  async execute(
    name: string,
    input: unknown,
    ctx: ToolContext,
    control: ToolControl = {},
    onUnexpected?: (error: unknown) => void,
  ): Promise<unknown> {
    const entry = this.entries.get(name);
    if (!entry)
      return failure(
        `未知工具 ${name} / unknown tool ${name}`,
        `可用工具 / available: ${[...this.entries.keys()].join(', ')}`,
      );
    if (entry.definition.safety === 'write' && (ctx.readOnly || ctx.role === 'viewer')) {
      return failure(
        `只读会话不能调用写工具 ${name} / read-only context cannot call ${name}`,
        '只能查询，不能修改数据 / only read operations are allowed',
      );
    }
    const parsed = entry.definition.schema.safeParse(input);
    if (!parsed.success) {
      return failure(
        `参数无效 / invalid arguments: ${describeIssues(parsed.error)}`,
        `按 ${name} 的参数说明修正后重试 / fix the arguments per the schema and retry`,
      );
    }
    try {
      return await entry.run(ctx, parsed.data, control);
    } catch (error) {
      if (error instanceof ToolError) return failure(error.message, error.suggestion);
      const known = knownFailure(error);
      if (known) return known;
      onUnexpected?.(error);
      return failure(
        `工具 ${name} 执行出错 / ${name} failed: ${error instanceof Error ? error.message : String(error)}`,
        `稍后重试，或换一种方式完成任务（trace ${ctx.traceId}）/ retry later or take another route (trace ${ctx.traceId})`,
      );
    }
  }

  private require(name: string): ToolDefinition {
    const definition = this.get(name);
    if (!definition) throw new Error(`unknown tool ${name}`);
    return definition;
  }
}

export function failure(error: string, suggestion: string): ToolFailure {
  return { success: false, error, stateChanged: false, suggestion };
}

/** Errors that carry an HTTP status (e.g. from the ERP client) map to the seed's guidance per status. */
function knownFailure(error: unknown): ToolFailure | undefined {
  const status = (error as { status?: unknown })?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const guidance: Record<number, string> = {
    400: '检查路径、方法和参数 / check path, method and arguments',
    401: '令牌缺失或无效，请用户重新登录 / the token is missing or invalid',
    403: '当前用户或项目无权执行该操作 / the user or project is not allowed to do this',
    404: '对象不存在，先用查询工具确认 id / not found: look the id up first',
    409: '数据已被修改或状态不允许，重新读取后再试 / changed meanwhile or not allowed in this status: re-read and retry',
    422: '按字段错误修正参数 / fix the listed fields',
  };
  return failure(message, guidance[status] ?? '检查请求 / check the request');
}
