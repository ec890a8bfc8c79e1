import { z } from 'zod';
import { ErpHttpError, erpUrl } from '../erp/index.ts';
import type { ErpClient } from './erp/client.ts';
import { Tool, type ToolControl, ToolError } from './registry.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const DynamicHttpInput = z.object({
  path: z.string().min(1).max(500).describe('相对 /api，如 /categories / path under /api'),
  method: z.enum(METHODS).default('GET'),
  arguments: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('GET/DELETE：查询参数；其余：JSON 请求体 / query for GET/DELETE, else JSON body'),
});
type DynamicHttpInput = z.infer<typeof DynamicHttpInput>;
/** What a read-only context is offered: the same call, GET only (any other method is refused there). */
const DynamicHttpGet = DynamicHttpInput.extend({
  method: z.enum(['GET']).default('GET'),
  arguments: z.record(z.string(), z.unknown()).default({}).describe('查询参数 / query parameters'),
});

/** The seed's guidance per ERP status, so the model knows what to fix. */
const GUIDANCE: Record<number, string> = {
  400: '检查工具参数 path/method/arguments 的格式 / check the path, method and arguments',
  401: '检查令牌：用户需要重新登录 / check the token: the user must sign in again',
  403: '检查令牌与项目权限 / the user or project lacks permission',
  404: '检查 path 是否正确 / check the path',
  409: '数据已变化，重新读取后再试 / changed meanwhile: re-read and retry',
  422: '检查 arguments 的字段名与类型 / check argument names and types',
};

/** A generic call to any ERP endpoint as the user (seed 004): for what no dedicated tool covers. */
export class DynamicHttpCall {
  /** `allowWrites` is false in a read-only context (a viewer, a read-only run): only GET is possible there. */
  constructor(
    private readonly erp: ErpClient,
    private readonly allowWrites: boolean,
  ) {}

  @Tool({
    name: 'dynamic_http_call',
    label: '调用 ERP 接口',
    description:
      '以当前用户身份调用 ERP 接口；非 GET 需用户审批。优先用专用工具。/ Call any ERP endpoint as the user; non-GET needs approval. Prefer the dedicated tools.',
    schema: DynamicHttpInput,
    readOnlyView: {
      description:
        '以当前用户身份 GET 任意 ERP 接口。优先用专用工具。/ GET any ERP endpoint as the user; prefer the dedicated tools.',
      schema: DynamicHttpGet,
    },
    safety: 'read-only',
    approval: 'required',
    approvalWhen: (input) => input.method !== 'GET',
    execution: 'sequential',
    group: 'http',
  })
  async call(input: DynamicHttpInput, control: ToolControl) {
    try {
      erpUrl(this.erp.connection.baseUrl, input.path);
    } catch (error) {
      throw new ToolError(
        `路径被拒绝 / path refused: ${(error as Error).message}`,
        'path 只写 ERP 接口路径，如 /parts/search / give only an ERP API path such as /parts/search',
      );
    }
    if (input.method !== 'GET' && !this.allowWrites) {
      throw new ToolError(
        `只读会话只能使用 GET / a read-only context may only GET`,
        '只查询，不修改数据 / read only, do not change data',
      );
    }
    const read = input.method === 'GET' || input.method === 'DELETE';
    try {
      const data = await this.erp.request<unknown>(input.method, input.path, {
        query: read ? input.arguments : undefined,
        body: read ? undefined : input.arguments,
        signal: control.signal,
      });
      return input.method === 'GET' ? data : { success: true, stateChanged: true, data };
    } catch (error) {
      if (!(error instanceof ErpHttpError)) throw error;
      const guidance =
        GUIDANCE[error.status] ??
        `服务端错误，记下 trace_id=${error.traceId} 结合后端日志排查 / server error: report trace_id=${error.traceId}`;
      throw new ToolError(error.message, guidance);
    }
  }
}
