import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { ProblemError, ProblemSchema } from '../shared/index.ts';
import { type ApiEnv, parseInput, parseJson } from './http.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One answer of an operation: JSON of a schema, an SSE stream, a file, a page for a browser, or nothing. */
export interface ResponseDoc {
  description: string;
  json?: z.ZodType;
  sse?: true;
  /** An HTML page, errors too (a browser is sent here, not a client of the API). */
  html?: true;
  /** Media types of a file answer. */
  file?: string[];
}

/**
 * An operation of the chat API, declared once: the route serves it, its schemas validate what arrives, and the
 * OpenAPI document is generated from the same declaration.
 */
export interface Operation {
  method: Method;
  /** The path in OpenAPI form (`/history/sessions/{id}`), relative to `/api/v1`. */
  path: string;
  /**
   * A last path parameter that may hold slashes (`/files/{session_id}/{path}`): served as the rest of the path
   * (`*`), which the handler reads itself.
   */
  restParam?: string;
  operationId: string;
  summary: string;
  tags: string[];
  /** Answered without a bearer token. */
  public?: boolean;
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  /** Request headers the operation reads, by lower-case name. */
  headers?: Record<string, z.ZodType>;
  body?: z.ZodType;
  responses: Record<number, ResponseDoc>;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type OutMap<T> = T extends Record<string, z.ZodType> ? { [K in keyof T]: z.output<T[K]> } : undefined;

/** What a handler gets: the request's parts, each already checked against the operation's schemas. */
export interface Input<O extends Operation> {
  params: OutMap<O['params']>;
  query: Out<O['query']>;
  headers: OutMap<O['headers']>;
  body: Out<O['body']>;
}

/**
 * A feature's routes with their declarations: `add` serves an operation and validates its input (a path parameter,
 * query or header as a 422 naming it, a body as 415/400/422), and `operations` feeds the OpenAPI document.
 */
export class ApiRoutes {
  readonly app = new Hono<ApiEnv>();
  readonly operations: Operation[] = [];

  add<const O extends Operation>(
    op: O,
    handler: (c: Context<ApiEnv>, input: Input<O>) => Response | Promise<Response>,
  ): void {
    this.operations.push(op);
    const rest = op.restParam && `{${op.restParam}}`;
    const path = (rest ? op.path.replace(rest, '*') : op.path).replace(/\{(\w+)\}/g, ':$1');
    this.app.on(op.method.toUpperCase(), path, async (c) => {
      const input = {
        params: op.params && mapValues(op.params, (schema, name) => parseInput(schema, c.req.param(name), name)),
        query: op.query && parseInput(op.query, queryOf(c), 'query'),
        headers: op.headers && mapValues(op.headers, (schema, name) => parseInput(schema, c.req.header(name), name)),
        body: op.body && (await parseJson(c, op.body)),
      };
      const response = await handler(c, input as Input<O>);
      if (CHECK_RESPONSES) await checkResponse(op, response);
      return response;
    });
  }
}

/**
 * Holds every JSON answer to the schema its operation publishes (`PROCURA_CHECK_RESPONSES=1`, which the tests set):
 * an answer outside it fails as a 500 naming the operation and the fields, so a document that drifts from what the
 * API sends is caught by whichever test meets the answer. Off in production, where the check would cost a parse.
 */
const CHECK_RESPONSES = process.env.PROCURA_CHECK_RESPONSES === '1';

async function checkResponse(op: Operation, response: Response): Promise<void> {
  const schema = op.responses[response.status]?.json;
  if (!schema || !response.headers.get('content-type')?.includes('application/json')) return;
  const checked = schema.safeParse(await response.clone().json());
  if (!checked.success)
    throw new ProblemError(
      500,
      'response_contract',
      `${op.operationId} 的 ${response.status} 应答不符合其文档 / answered outside its documented schema: ${z.prettifyError(checked.error)}`,
    );
}

/** The query string: a key given once as its value, a key repeated (`?mode=a&mode=b`) as the list of its values. */
function queryOf(c: Context<ApiEnv>): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0] : values]),
  );
}

function mapValues<T, U>(record: Record<string, T>, fn: (value: T, key: string) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value, key)]));
}

/** JSON Schema (2020-12, as OpenAPI 3.1 takes it) of what a client sends or gets. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const optional = (schema: z.ZodType) => schema.safeParse(undefined).success;

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** The problems any operation can answer besides its own, from what it takes. */
function standardProblems(op: Operation) {
  const takesInput = op.params || op.query || op.headers || op.body;
  return {
    ...(!op.public && { 401: problem('缺少或无效的令牌 / missing or invalid bearer token') }),
    ...(op.body && {
      400: problem('请求体不是 JSON / the body does not parse as JSON'),
      413: problem('请求体过大 / body over 64 KiB'),
      415: problem('请求体须为 JSON / the body is not application/json'),
    }),
    ...(takesInput && { 422: problem('字段校验失败 / field errors, each named') }),
  };
}

function responseDoc(status: number, doc: ResponseDoc) {
  if (status >= 400 && !doc.json && !doc.html) return problem(doc.description);
  const content = doc.json
    ? { 'application/json': { schema: jsonSchema(doc.json, 'output') } }
    : doc.html
      ? { 'text/html': { schema: { type: 'string' } } }
      : doc.sse
        ? {
            'text/event-stream': {
              schema: { type: 'string', description: 'SSE: `id:` sequence, `event:`, `data:` JSON' },
            },
          }
        : doc.file
          ? Object.fromEntries(doc.file.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]))
          : undefined;
  return { description: doc.description, ...(content && { content }) };
}

function operationDoc(op: Operation) {
  const parameters = [
    ...Object.entries(op.params ?? {}).map(([name, schema]) => ({
      name,
      in: 'path',
      required: true,
      schema: jsonSchema(schema, 'input'),
    })),
    ...(op.restParam
      ? [{ name: op.restParam, in: 'path', required: true, description: 'may hold `/`', schema: { type: 'string' } }]
      : []),
    ...Object.entries(op.query?.shape ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: !optional(schema as z.ZodType),
      schema: jsonSchema(schema as z.ZodType, 'input'),
    })),
    ...Object.entries(op.headers ?? {}).map(([name, schema]) => ({
      name,
      in: 'header',
      required: !optional(schema),
      schema: jsonSchema(schema, 'input'),
    })),
  ];
  const responses = {
    ...standardProblems(op),
    ...Object.fromEntries(Object.entries(op.responses).map(([status, doc]) => [status, responseDoc(+status, doc)])),
  };
  return {
    operationId: op.operationId,
    summary: op.summary,
    tags: op.tags,
    ...(op.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(op.body && {
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body, 'input') } } },
    }),
    responses,
  };
}

/** The chat API's OpenAPI 3.1 document, generated from the declared operations. */
export function openApiDocument(operations: Operation[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = operationDoc(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Procura chat API',
      version: '1.0.0',
      description:
        '采购助手的对话接口：SSE 对话、续接、确认、历史 / the procurement agent: SSE chat, rejoin, decisions, history',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ Bearer: [] }],
    components: {
      securitySchemes: { Bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Problem: jsonSchema(ProblemSchema, 'output') },
    },
    paths,
  };
}
