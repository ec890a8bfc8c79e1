import net from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, startApiHarness } from '../api/harness.ts';
import { buildUi, hasChromium, launchChromium, screenshot, WIDTHS } from './browser.ts';

const RUN_MS = 150_000;

/**
 * A TCP relay in front of the chat API that can drop every connection it carries and refuse new ones, the way a
 * network outage looks to the browser, while the API and its runs go on untouched.
 */
async function startRelay(target: URL): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const open = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
      from.on('error', () => to.destroy());
      from.pipe(to);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      refusing = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Two phrasings of a request whose run takes several model calls and ends in a long cited answer. */
const REQUESTS = ['看看哪些零件需要补货，给我库存预警', '哪些物料库存不足了？列一下库存预警'];

describe.skipIf(!hasChromium)('browser UI: a run whose connection drops', () => {
  let h: ApiHarness;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await buildUi();
    // Each model call takes a while, so the outage falls in the middle of the run.
    h = await startApiHarness({}, { PROCURA_OFFLINE_LATENCY_MS: '500' });
    relay = await startRelay(new URL(h.url));
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'zh-CN' })).newPage();
    await page.goto(relay.url);
    await page.locator('input[name=token]').fill(h.tokens.laoxiao);
    await page.getByRole('button', { name: '登录' }).click();
    await page.getByTestId('composer').waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await h?.close();
  });

  const send = async (message: string) => {
    await page.getByTestId('new-chat').click();
    await page.getByTestId('composer').fill(message);
    await page.getByTestId('send').click();
  };
  const idle = () => page.getByTestId('send').waitFor({ timeout: RUN_MS });
  /** The answer's text; trace ids and chart addresses are new on every run, so they are set aside. */
  const answer = async () =>
    (await page.getByTestId('message-assistant').last().innerText({ timeout: 5_000 }))
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<trace>')
      .replace(/\/charts\/[\w.-]+/g, '/charts/<chart>');
  const sessionId = () => new URL(page.url()).hash.replace('#/s/', '');
  /** Whether the server still works on the session's run (read past the relay). */
  const serverRunning = async (id: string) =>
    Boolean((await h.call('GET', `/api/v1/history/sessions/${id}`)).body.active_run);

  for (const [index, request] of REQUESTS.entries())
    it(
      `rejoins with Last-Event-ID after an outage mid-run: the answer is the uninterrupted one (${request})`,
      async () => {
        // The same request, uninterrupted, for the answer to compare with.
        await send(request);
        await idle();
        const expected = await answer();
        expect(expected.length).toBeGreaterThan(40);
        const steps = page.locator('[data-testid=steps] .step');
        const expectedSteps = await steps.allInnerTexts();

        await send(request);
        await page.locator('[data-testid=steps] .step').first().waitFor({ timeout: 30_000 });
        relay.cut();
        const banner = page.getByTestId('connection-banner');
        await banner.waitFor({ timeout: 15_000 });
        // One banner, both languages, never the error banner of a request that was not sent.
        expect(await banner.innerText()).toMatch(/连接中断.*connection lost/);
        expect(await page.locator('.main > .banner:not([data-testid=offline-banner])').count()).toBe(1);
        expect(await page.getByTestId('error-banner').count()).toBe(0);
        expect(await page.getByTestId('reconnect-now').isVisible()).toBe(true);
        if (index === 0)
          for (const width of WIDTHS) {
            await page.setViewportSize({ width, height: 900 });
            await screenshot(page, 'reconnect', `connection-lost-${width}`);
            const box = await page.getByTestId('reconnect-now').boundingBox();
            expect(box && box.x + box.width <= width).toBe(true);
          }
        await page.setViewportSize({ width: 1440, height: 900 });
        // It keeps trying by itself, waiting longer each time.
        await expect
          .poll(async () => Number((await page.getByTestId('reconnect-attempt').innerText()).match(/\d+/)?.[0]), {
            timeout: 20_000,
          })
          .toBeGreaterThanOrEqual(3);
        // The run goes on on the server meanwhile; the first request lets it get past where the browser left.
        const id = sessionId();
        if (index === 0) await expect.poll(() => serverRunning(id), { timeout: RUN_MS, interval: 500 }).toBe(false);
        relay.restore();
        if (index === 0) await page.getByTestId('reconnect-now').click();
        await idle();
        expect(await page.getByTestId('connection-banner').count()).toBe(0);
        expect(await page.getByTestId('error-banner').count()).toBe(0);
        expect(await answer()).toBe(expected);
        const statuses = await page
          .locator('[data-testid=steps] .step')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
        expect(statuses).not.toContain('running');
        expect(await page.getByTestId('stop').count()).toBe(0);
        // Nothing was shown twice: the same steps as the uninterrupted run.
        expect(await steps.count()).toBe(expectedSteps.length);
      },
      RUN_MS * 3,
    );
});
