import { useEffect, useState } from 'react';
import { useT } from '../i18n.ts';
import type { Step } from '../session.ts';

function duration(step: Step, now: number): string {
  if (step.startedAt === 0) return '';
  const ms = (step.endedAt ?? now) - step.startedAt;
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const ORDER = ['orchestrator', 'procurement-analyst', 'procurement-order', 'procurement-sourcing'];

/** The live step list: steps upserted by id, grouped per agent, with status and duration; `paused` while a run waits for the user. */
export function Steps({ steps, live, paused }: { steps: Step[]; live: boolean; paused: boolean }) {
  const t = useT();
  // Timers tick only while the run works: a stopped or broken-off run's steps stand still.
  const running = live && !paused && steps.some((s) => s.status === 'running');
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  if (!steps.length) return <p className="empty-small">{t('noSteps')}</p>;
  const agents = [...new Set(steps.map((s) => s.agent))].sort(
    (a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99),
  );
  return (
    <div className="steps" data-testid="steps">
      {agents.map((agent) => (
        <section key={agent} className="step-group">
          <h4>{t(`agent_${agent}`)}</h4>
          <ol>
            {steps
              .filter((s) => s.agent === agent)
              .map((step) => (
                <li
                  key={step.id}
                  className={`step step-${step.status}`}
                  data-step={step.id}
                  data-status={step.status}
                  title={step.detail}
                >
                  <span className="step-icon" aria-hidden>
                    {step.status === 'running' ? (
                      paused ? (
                        <span className="pause" />
                      ) : (
                        <span className="spinner" />
                      )
                    ) : step.status === 'completed' ? (
                      '✓'
                    ) : step.status === 'stopped' ? (
                      '■'
                    ) : (
                      '✕'
                    )}
                  </span>
                  <span className="step-title">{step.title}</span>
                  <span className="step-time">
                    {paused && step.status === 'running' ? t('waitingForYou') : duration(step, now)}
                  </span>
                </li>
              ))}
          </ol>
        </section>
      ))}
    </div>
  );
}
