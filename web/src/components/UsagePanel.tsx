import { useEffect, useState } from 'react';
import type { ChatClient, RunUsage, UsageReport } from '../../../src/protocol/index.ts';
import { useT } from '../i18n.ts';
import { Panel } from './Panel.tsx';

/** `$0.0123 · 1,234 tokens`: what a run or a conversation cost. */
export function formatUsage(usage: RunUsage, t: (key: string) => string): string {
  const tokens = usage.input_tokens + usage.output_tokens;
  return `$${usage.cost.toFixed(4)} · ${tokens.toLocaleString()} ${t('tokens')}`;
}

/** Admins: model usage per user per day over the last 30 days, with the daily budget when one is set. */
export function UsagePanel({ client, onClose }: { client: ChatClient; onClose: () => void }) {
  const t = useT();
  const [data, setData] = useState<UsageReport>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    client
      .usage(30)
      .then(setData)
      .catch((e: Error) => setError(e.message));
  }, [client]);
  return (
    <Panel title={t('usageTitle')} testId="usage-panel" error={error} onClose={onClose}>
      {!data && !error && <p className="muted">{t('loading')}</p>}
      {data && (
        <>
          {data.prices && (
            <p className="muted" data-testid="usage-prices">
              {t('usagePrices')}: {data.prices.date} · {data.prices.source}
            </p>
          )}
          {data.daily_tokens !== null && (
            <p className="muted">
              {t('usageBudget')}: {data.daily_tokens.toLocaleString()} {t('tokens')}
            </p>
          )}
          {data.items.length === 0 ? (
            <p className="muted">{t('usageNone')}</p>
          ) : (
            <table className="table">
              <thead>
                <tr>
                  {['usageDay', 'usageUser', 'usageRuns', 'usageCalls', 'usageInput', 'usageOutput', 'usageCost'].map(
                    (k) => (
                      <th key={k}>{t(k)}</th>
                    ),
                  )}
                </tr>
              </thead>
              <tbody>
                {data.items.map((r) => (
                  <tr key={`${r.day}:${r.user}`} data-testid="usage-row">
                    <td>{r.day}</td>
                    <td>{r.user}</td>
                    <td>{r.runs}</td>
                    <td>{r.calls}</td>
                    <td>{r.input_tokens.toLocaleString()}</td>
                    <td>{r.output_tokens.toLocaleString()}</td>
                    <td>{r.cost.toFixed(4)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </Panel>
  );
}
