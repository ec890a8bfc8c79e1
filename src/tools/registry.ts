import { z } from 'zod';
import {
  type ApprovalDetails,
  type HumanDecision,
  type HumanRequest,
  isReadOnly,
  type Role,
} from '../protocol/index.ts';

/** Who a tool runs for. Everything a tool needs to act as the user travels here, never in the model's arguments. */
export interface ToolContext {
  userId: string;
  role: Role;
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
  /** Set only by the human-approval step (or a human at the CLI / an MCP client that approved itself), never from
   *  model arguments. A call that needs approval is refused without it. */
  approved?: boolean;
  /** Sends an event to the user's stream (front-end tools emit `tool_call` through it). */
  emit?: (event: ToolStreamEvent) => void;
  /**
   * Asks the person the tool runs for (a server's elicitation): their decision, or a thrown pause of the run that a
   * resume ends by calling the tool again, when this ask returns the decision.
   */
  ask?: (request: HumanRequest) => HumanDecision;
}

/** A `tool_call` event for the browser: a front-end action such as rendering a chart. */
export interface ToolStreamEvent {
  tool: string;
  params: Record<string, unknown>;
}

export interface ToolSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Chinese label for the UI and the step list. */
  label: string;
  description: string;
  schema: S;
  safety: 'read-only' | 'write';
  /** A write that may change or remove what exists (default for writes); `false` for one that only adds. */
  destructive?: boolean;
  /** The same call again has no further effect (default for reads). */
  idempotent?: boolean;
  approval?: 'none' | 'required';
  /** With `approval: 'required'`, narrows it to the inputs that need it (e.g. only an HTTP write). */
  approvalWhen?: (input: z.infer<S>) => boolean;
  execution?: 'parallel' | 'sequential';
  background?: true;
  /** Prefix group (`supplier`, `part`, `order`, `inventory`, `web`, `chart`, …) that agents select tools by. */
  group: string;
  /** Current facts appended to the description when the tool is bound (valid categories, statuses, …);
   *  `host` is the instance that serves `ctx` (e.g. the ERP client bound to the user's token). */
  liveValues?: (ctx: ToolContext, host: unknown) => Promise<string | undefined>;
  /** Fields of the result that users other than the reader write (notes, comments): fenced for the model. */
  untrusted?: readonly string[];
  /** What the approval card shows besides the arguments (e.g. the text a skill would persist), read as the user. */
  approvalDetails?: (input: z.infer<S>, host: unknown) => Promise<ApprovalDetails | undefined>;
  /** The MCP server the tool comes from (an agent's YAML may select all of a server's tools by its name). */
  server?: string;
  /** The shape of a successful result (an object): MCP clients get it as `outputSchema` and the result as
   *  `structuredContent`. Failures are `ToolFailure`s whatever it says. */
  output?: z.ZodObject;
  /**
   * How the tool is offered where only reading is allowed (a viewer, a read-only agent), when some of its inputs
   * would need approval: those are refused there, so the model is shown only the rest (e.g. an HTTP call that may
   * only GET). Calls are still validated against `schema`.
   */
  readOnlyView?: { description: string; schema: z.ZodType };
}

export interface ToolDefinition
  extends Readonly<
    Required<
      Omit<
        ToolSpec,
        | 'background'
        | 'liveValues'
        | 'approvalWhen'
        | 'approvalDetails'
        | 'untrusted'
        | 'server'
        | 'output'
        | 'destructive'
        | 'idempotent'
        | 'readOnlyView'
      >
    >
  > {
  readonly untrusted?: readonly string[];
  readonly background: boolean;
  readonly server?: string;
  readonly liveValues?: ToolSpec['liveValues'];
  readonly approvalWhen?: (input: unknown) => boolean;
  readonly approvalDetails?: (input: unknown, host: unknown) => Promise<ApprovalDetails | undefined>;
  /** JSON schema of the input, frozen at declaration. */
  readonly jsonSchema: Readonly<Record<string, unknown>>;
  readonly output?: z.ZodObject;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  /** JSON schema of a successful result, when the tool declares one. */
  readonly outputJsonSchema?: Readonly<Record<string, unknown>>;
  /** What a read-only context is offered instead of `description` and `jsonSchema`, when the tool declares it. */
  readonly readOnlyView?: Readonly<{ description: string; jsonSchema: Readonly<Record<string, unknown>> }>;
}

/** A known failure the model can act on; tools never throw into the run. */
export interface ToolFailure {
  success: false;
  error: string;
  stateChanged: false;
  suggestion: string;
  /** The service that is down (`ERP`, an MCP server's name): an outage, not an answer — nothing was looked up. */
  unavailable?: string;
}

/** Thrown inside a tool for a failure the model should correct (bad name, not found, …), or an outage. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly suggestion: string,
    /** The service that is down, when the failure is an outage. */
    readonly unavailable?: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export const isToolFailure = (value: unknown): value is ToolFailure =>
  typeof value === 'object' && value !== null && (value as { success?: unknown }).success === false;

/** The service a tool result says is down, if the result is an outage. */
export const unavailableService = (value: unknown): string | undefined =>
  isToolFailure(value) && typeof value.unavailable === 'string' ? value.unavailable : undefined;

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
    declared.set(method as ToolMethod<z.ZodType>, define(spec));
  };
}

/** The frozen definition of a spec; `jsonSchema` is given for tools described in JSON Schema (remote MCP tools). */
function define(spec: ToolSpec, jsonSchema?: Record<string, unknown>): ToolDefinition {
  const inputSchema = (zod: z.ZodType): Record<string, unknown> => {
    const { $schema: _, ...schema } = z.toJSONSchema(zod, { io: 'input', unrepresentable: 'any' });
    return schema;
  };
  const schema = jsonSchema ? { ...jsonSchema } : inputSchema(spec.schema);
  delete schema.$schema;
  const outputSchema = spec.output && { ...z.toJSONSchema(spec.output, { io: 'output', unrepresentable: 'any' }) };
  delete outputSchema?.$schema;
  return Object.freeze({
    name: spec.name,
    label: spec.label,
    description: spec.description,
    schema: spec.schema,
    safety: spec.safety,
    destructive: spec.safety === 'write' && spec.destructive !== false,
    idempotent: spec.idempotent ?? spec.safety === 'read-only',
    approval: spec.approval ?? (spec.safety === 'write' ? 'required' : 'none'),
    approvalWhen: spec.approvalWhen as ((input: unknown) => boolean) | undefined,
    approvalDetails: spec.approvalDetails as ToolDefinition['approvalDetails'],
    untrusted: spec.untrusted ? Object.freeze([...spec.untrusted]) : undefined,
    execution: spec.execution ?? (spec.safety === 'write' ? 'sequential' : 'parallel'),
    background: spec.background === true,
    group: spec.group,
    liveValues: spec.liveValues,
    server: spec.server,
    jsonSchema: deepFreeze(schema),
    output: spec.output,
    outputJsonSchema: outputSchema && deepFreeze(outputSchema),
    readOnlyView: spec.readOnlyView && {
      description: spec.readOnlyView.description,
      jsonSchema: deepFreeze(inputSchema(spec.readOnlyView.schema)),
    },
  });
}

interface Entry {
  definition: ToolDefinition;
  host: (ctx: ToolContext) => unknown;
  run: (ctx: ToolContext, input: unknown, control: ToolControl) => Promise<unknown>;
}

/** How a tool without a class (a remote MCP tool) runs. */
export type ToolRunner = (input: unknown, ctx: ToolContext, control: ToolControl) => Promise<unknown>;

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
        this.add({
          definition,
          host: create,
          run: (ctx, input, control) => (method as ToolMethod<z.ZodType>).call(create(ctx), input, control),
        });
        found++;
      }
    }
    if (found === 0) throw new Error(`${target.name} declares no @Tool methods`);
    return this;
  }

  /** Registers a tool declared as data rather than on a class (a remote MCP tool, described by its JSON schema). */
  registerRemote(spec: ToolSpec, jsonSchema: Record<string, unknown>, run: ToolRunner): this {
    if (!/^[a-z][a-z0-9_]{1,63}$/i.test(spec.name)) throw new Error(`tool ${spec.name}: invalid name`);
    return this.add({
      definition: define(spec, jsonSchema),
      host: () => undefined,
      run: (ctx, input, control) => run(input, ctx, control),
    });
  }

  private add(entry: Entry): this {
    if (this.entries.has(entry.definition.name)) throw new Error(`tool ${entry.definition.name} is already registered`);
    this.entries.set(entry.definition.name, entry);
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
    return [...this.entries.values()]
      .map((e) => e.definition)
      .filter((d) => !(isReadOnly(ctx) && d.safety === 'write'))
      .filter((d) => !filter || filter.groups?.includes(d.group) || filter.names?.includes(d.name));
  }

  /** The description the model sees: the declared text plus live values, when the tool has them. */
  async describe(name: string, ctx: ToolContext): Promise<string> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`unknown tool ${name}`);
    const { definition } = entry;
    let live: string | undefined;
    try {
      live = await definition.liveValues?.(ctx, entry.host(ctx));
    } catch {
      live = undefined; // live values are a hint; the declared description still stands
    }
    const declared = this.offered(definition, ctx).description;
    return live ? `${declared}\n${live}` : declared;
  }

  /** The description and input schema the tool is offered with in `ctx` (its read-only view where only reading is allowed). */
  offered(
    definition: ToolDefinition,
    ctx?: Pick<ToolContext, 'role' | 'readOnly'>,
  ): { description: string; jsonSchema: Readonly<Record<string, unknown>> } {
    return isReadOnly(ctx) && definition.readOnlyView ? definition.readOnlyView : definition;
  }

  /** Whether this call needs a human's approval before it runs. */
  requiresApproval(name: string, input: unknown): boolean {
    const definition = this.get(name);
    if (definition?.approval !== 'required') return false;
    if (!definition.approvalWhen) return true;
    const parsed = definition.schema.safeParse(input);
    return parsed.success && definition.approvalWhen(parsed.data); // invalid input never runs anyway
  }

  /** What the tool's declaration adds to its approval card for this call, read as the user; undefined without. */
  async approvalDetails(name: string, input: unknown, ctx: ToolContext): Promise<ApprovalDetails | undefined> {
    const entry = this.entries.get(name);
    const parsed = entry?.definition.approvalDetails && entry.definition.schema.safeParse(input);
    if (!entry || !parsed?.success) return undefined;
    return entry.definition.approvalDetails?.(parsed.data, entry.host(ctx));
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
    if (entry.definition.safety === 'write' && isReadOnly(ctx)) {
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
    // A call that would need approval writes: a read-only context is refused outright, with nothing to approve.
    if (isReadOnly(ctx) && this.requiresApproval(name, parsed.data)) {
      return failure(
        `只读会话只能读取，这次 ${name} 调用会修改数据 / a read-only context cannot make this ${name} call: it writes`,
        '只查询，不修改数据 / read only, do not change data',
      );
    }
    if (!control.approved && this.requiresApproval(name, parsed.data)) {
      return failure(
        `${name} 需要用户审批后才能执行 / ${name} needs the user's approval before it runs`,
        '向用户说明要做的操作并等待批准，不要自行重试 / explain the action to the user and wait for approval; do not retry on your own',
      );
    }
    try {
      return await entry.run(ctx, parsed.data, control);
    } catch (error) {
      // A graph interrupt (waiting for a human) is control flow, not a failure: let the graph see it.
      if ((error as { is_bubble_up?: boolean } | undefined)?.is_bubble_up === true) throw error;
      if (error instanceof ToolError) return failure(error.message, error.suggestion, error.unavailable);
      const known = knownFailure(error);
      if (known) return known;
      onUnexpected?.(error);
      return failure(
        `工具 ${name} 执行出错 / ${name} failed: ${error instanceof Error ? error.message : String(error)}`,
        `稍后重试，或换一种方式完成任务（trace ${ctx.traceId}）/ retry later or take another route (trace ${ctx.traceId})`,
      );
    }
  }
}

export function failure(error: string, suggestion: string, unavailable?: string): ToolFailure {
  return { success: false, error, stateChanged: false, suggestion, ...(unavailable ? { unavailable } : {}) };
}

/** Errors that carry an HTTP status (e.g. from the ERP client) map to the seed's guidance per status. */
function knownFailure(error: unknown): ToolFailure | undefined {
  const status = (error as { status?: unknown })?.status;
  const message = error instanceof Error ? error.message : String(error);
  const down = (error as { unavailable?: unknown })?.unavailable;
  if (typeof down === 'string')
    return failure(
      `服务不可用 / unavailable: ${message}`,
      `${down} 暂时不可用，稍后重试；不要把它当作查询结果为空 / ${down} is down: retry later, and never read this as an empty result`,
      down,
    );
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  // The ERP's four-eyes refusal is not a missing role: someone else has to do it.
  if ((error as { code?: unknown }).code === 'four_eyes')
    return failure(
      message,
      '四眼原则：请订单创建人或管理员修改或取消；审批须由未创建、未修改此订单的另一位管理员完成。不要重试 / four eyes: the order’s creator or an admin changes or cancels it, and another admin who neither created nor last changed it approves it. Do not retry',
    );
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
