import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { type Logger, ProblemError } from '../shared/index.ts';
import { chartTypeOfTool } from './catalog.ts';
import type { ChartService, RenderedChart } from './service.ts';

/** The GPT-Vis request: `{type, ...args}` for charts, `{serviceId, tool, input}` for the map tools. */
const visRequest = z.union([
  z.object({ tool: z.string().min(1), input: z.record(z.string(), z.unknown()) }).loose(),
  z.object({ type: z.string().min(1) }).loose(),
]);

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Constant-time comparison, so the answer time does not reveal how much of a guessed token was right. */
function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The renderer's HTTP face. Drawing (which costs CPU and disk) is only served under `/<token>/…`: the token
 * is a path segment because the unmodified AntV server can carry nothing but a URL (`VIS_REQUEST_SERVER`).
 * A missing or wrong token is a plain 404. Images stay readable at `/charts/<id>`: browsers load them from
 * reports, and an id is the hash of the whole chart input, so only whoever drew a chart knows its address.
 *
 * `POST /<token>/api/gpt-vis` answers in the GPT-Vis shape `{success, errorMessage, resultObj}`;
 * its failures are HTTP 200 with `success: false`, because that is where the protocol carries them (the AntV
 * server reads the body of 2xx answers only, so a 4xx would reach the model as a bare status code).
 * `POST /api/charts/:type` is the plain REST form with ordinary 4xx problems.
 */
export function createChartsApp(service: ChartService, log: Logger, token: string, publicUrl?: string): Hono {
  const app = new Hono();
  const imageUrl = (origin: string, chart: RenderedChart) => `${publicUrl ?? origin}/charts/${chart.id}.png`;

  app.onError((error, c) => {
    if (error instanceof ProblemError)
      return c.json(
        { type: 'about:blank', title: error.code, status: error.status, detail: error.message, ...error.extra },
        error.status as 400,
        {
          'content-type': 'application/problem+json',
        },
      );
    log.error({ err: error }, 'chart request failed');
    return c.json({ title: 'internal', status: 500, detail: '渲染失败 / rendering failed' }, 500);
  });

  app.get('/api/health', (c) => c.json({ ok: true, types: service.types }));

  app.use('/:token/api/*', async (c, next) => {
    if (!sameToken(c.req.param('token'), token))
      throw new ProblemError(404, 'not_found', '没有这个地址 / no such address');
    await next();
    // The AntV server keeps its connections open with no idle limit of its own and only notices that this server
    // closed an idle one when it sends the next chart on it ("socket hang up"); a drawing connection therefore ends
    // with its answer, which costs a loopback connect per chart.
    c.header('Connection', 'close');
  });

  app.post('/:token/api/gpt-vis', async (c) => {
    const origin = new URL(c.req.url).origin;
    const parsed = visRequest.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      return c.json({
        success: false,
        errorMessage: '请求须为 {type, ...} 或 {tool, input} / body must be {type, ...} or {tool, input}',
        resultObj: null,
      });
    try {
      if ('tool' in parsed.data && typeof parsed.data.tool === 'string') {
        const type = chartTypeOfTool(parsed.data.tool);
        if (!type)
          return c.json({
            success: false,
            errorMessage: `未知工具 / unknown tool: ${parsed.data.tool}`,
            resultObj: null,
          });
        const chart = await service.render(type, parsed.data.input);
        const content = [chart.notes.join('\n'), imageUrl(origin, chart)].filter(Boolean).reverse();
        return c.json({
          success: true,
          errorMessage: '',
          resultObj: { content: content.map((text) => ({ type: 'text', text })) },
        });
      }
      const { type, source: _source, ...args } = parsed.data as { type: string; source?: string };
      const chart = await service.render(type, args);
      return c.json({ success: true, errorMessage: '', resultObj: imageUrl(origin, chart) });
    } catch (error) {
      if (!(error instanceof ProblemError)) log.error({ err: error }, 'chart rendering failed');
      return c.json({ success: false, errorMessage: messageOf(error), resultObj: null });
    }
  });

  app.post('/:token/api/charts/:type', async (c) => {
    const body = await c.req.json().catch(() => {
      throw new ProblemError(400, 'bad_request', '请求体须为 JSON / body must be JSON');
    });
    const chart = await service.render(c.req.param('type'), body);
    const origin = publicUrl ?? new URL(c.req.url).origin;
    return c.json({ ...chart, png: `${origin}/charts/${chart.id}.png`, svg: `${origin}/charts/${chart.id}.svg` });
  });

  app.get('/charts/:file{[0-9a-f]{24}\\.(png|svg)}', async (c) => {
    const [id, format] = c.req.param('file').split('.') as [string, 'png' | 'svg'];
    const image = await service.image(id, format);
    if (!image) throw new ProblemError(404, 'not_found', `没有这张图 / no chart ${id}`);
    return c.body(new Uint8Array(image), 200, {
      'content-type': format === 'png' ? 'image/png' : 'image/svg+xml; charset=utf-8',
      // content-addressed: the bytes behind a URL never change
      'cache-control': 'public, max-age=31536000, immutable',
    });
  });

  return app;
}
