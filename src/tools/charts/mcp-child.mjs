/**
 * The chart MCP server's own process: the unmodified `@antv/mcp-server-chart` tools (its `createServer`), served
 * over streamable HTTP on a loopback address only, to callers with the bearer token, with no CORS headers. AntV's
 * own HTTP server answers any origin without authentication, so it is not used. Started by `mcp-server.ts`, which
 * passes the address, token and renderer in the environment (and nothing else of its own). Plain JavaScript, so it
 * starts as fast as AntV's own command, without a TypeScript loader.
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
// AntV exports only `./sdk`; its server module sits beside it. Its MCP SDK is the one it resolves itself.
const antvDir = path.dirname(require.resolve('@antv/mcp-server-chart/sdk'));
const antv = createRequire(path.join(antvDir, 'server.js'));
const { createServer } = antv('./server.js');
const { StreamableHTTPServerTransport } = antv('@modelcontextprotocol/sdk/server/streamableHttp.js');

const MAX_BODY_BYTES = 1024 * 1024;
const token = Buffer.from(process.env.PROCURA_CHART_MCP_TOKEN ?? '');
const host = process.env.PROCURA_CHART_MCP_HOST ?? '127.0.0.1';
const port = Number(process.env.PROCURA_CHART_MCP_PORT);
if (token.length < 16 || !Number.isInteger(port)) {
  console.error('chart MCP child: PROCURA_CHART_MCP_TOKEN (≥ 16 characters) and PROCURA_CHART_MCP_PORT are required');
  process.exit(2);
}
// AntV's createServer adds a SIGINT listener per server, and this process makes one per request.
process.setMaxListeners(0);

/** Whether the Authorization header carries the token (compared in constant time). */
function authorized(header) {
  const given = Buffer.from(/^Bearer (\S+)$/i.exec(header ?? '')?.[1] ?? '');
  return given.length === token.length && timingSafeEqual(given, token);
}

function reply(res, status, message, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req) {
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RangeError('body too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://chart-mcp');
  if (url.pathname !== '/mcp') return reply(res, 404, 'not found');
  if (!authorized(req.headers.authorization))
    return reply(res, 401, 'missing or invalid bearer token', { 'www-authenticate': 'Bearer' });
  if (req.method !== 'POST') return reply(res, 405, 'POST only (stateless)', { allow: 'POST' });
  let body;
  try {
    body = await readJson(req);
  } catch (error) {
    return reply(res, error instanceof RangeError ? 413 : 400, error.message);
  }
  // Stateless, as AntV serves it: one server and transport per request.
  const mcp = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  try {
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  } catch (error) {
    console.error('chart MCP request failed', error);
    if (!res.headersSent) reply(res, 500, 'internal error');
  }
});
server.listen(port, host, () => console.log(`chart MCP listening on http://${host}:${port}/mcp`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
