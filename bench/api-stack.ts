import os from 'node:os';
import path from 'node:path';
import { type AgentStorage, type AgentStorageOptions, createAgentStorage } from '../src/agent/backends/index.ts';
import { AgentRuntime } from '../src/agent/index.ts';
import { createApi } from '../src/api/index.ts';
import { createErp } from '../src/erp/index.ts';
import { listen } from '../src/shared/index.ts';

/** The value at fraction `p` (0–1) of `values`, 0 when there are none. */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};
export const round = (v: number) => Number(v.toFixed(1));
export const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
export const MIB = 1024 * 1024;

/**
 * The real chat API over HTTP in this process, on the offline model, with its ERP beside it: what a benchmark
 * measures the API's responsiveness on while heavy work (scripts, exports) runs elsewhere. The agent storage is
 * opened once and shared by the runtime and the benchmark.
 */
export async function startInProcessApi(dataDir: string, storageOptions: Partial<AgentStorageOptions> = {}) {
  const erp = await createErp({ dataDir: path.join(dataDir, 'erp') });
  const erpServer = await listen(erp.fetch, { host: '127.0.0.1', port: 0 });
  const erpUrl = `${erpServer.url}/api`;
  let storage: AgentStorage | undefined;
  const openStorage = async (o: { dataDir: string }) => {
    storage ??= await createAgentStorage({ ...storageOptions, dataDir: o.dataDir });
    return storage;
  };
  const runtime = new AgentRuntime({
    dataDir,
    erpUrl,
    env: { ...process.env, DEEPSEEK_API_KEY: '', OPENAI_BASE_URL: '' },
    storage: openStorage,
  });
  const api = await createApi({ runtime, erpUrl, dataDir });
  const server = await listen(api.fetch, { host: '127.0.0.1', port: 0 });
  return {
    erp,
    server,
    /** The agent storage the runtime uses, opened on first call. */
    storage: () => openStorage({ dataDir }),
    /**
     * `/api/v1/health` latencies in ms, asked one after another (with `pauseMs` between) until at least `minimum`
     * answered and `until()` holds.
     */
    async healthLatencies(until: () => boolean, minimum: number, pauseMs = 0): Promise<number[]> {
      const latencies: number[] = [];
      while (latencies.length < minimum || !until()) {
        const started = performance.now();
        const response = await fetch(`${server.url}/api/v1/health`);
        await response.text();
        if (response.status !== 200) throw new Error(`health answered ${response.status}`);
        latencies.push(performance.now() - started);
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
      return latencies;
    },
    async close() {
      await server.close();
      await api.close();
      await runtime.close();
      await storage?.close();
      await erpServer.close();
      await erp.close();
    },
  };
}

/** The table row of the health latency with nothing running: the floor the busy figures compare with. */
export function idleHealthRow(idleHealth: number[]) {
  return {
    figure: '/api/v1/health p99, nothing running',
    value: `${round(percentile(idleHealth, 0.99))} ms`,
    target: '(floor)',
    result: '',
    note: `${idleHealth.length} requests; p50 ${round(percentile(idleHealth, 0.5))} ms`,
  };
}

/** The machine's load, printed under the figures: timings on a shared machine compare only within one run. */
export function printLoadAverage(): void {
  console.log(
    `load average: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${os.cpus().length} cores (shared machine: compare within a run)`,
  );
}
