import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startErpServer } from '../../src/erp/index.ts';
import type { ToolContext } from '../../src/tools/index.ts';

/** A real, freshly seeded ERP on a free port, with its demo users' contexts. */
export async function startTestErp() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-tools-'));
  const erp = await startErpServer({ dataDir, host: '127.0.0.1', port: 0 });
  const baseUrl = `${erp.server.url}/api`;
  const context = (username: 'laoxiao' | 'viewer' | 'admin' | 'zhangwei', extra: Partial<ToolContext> = {}) =>
    ({
      userId: username,
      role: username === 'viewer' ? 'viewer' : username === 'admin' ? 'admin' : 'buyer',
      token: erp.demoTokens[username],
      traceId: `test-${username}`,
      sessionId: 's-1',
      ...extra,
    }) satisfies ToolContext;
  return {
    erp,
    baseUrl,
    dataDir,
    context,
    close: async () => {
      await erp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
