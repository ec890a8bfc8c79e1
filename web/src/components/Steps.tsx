import { useContext, useEffect, useState } from 'react';
import { type AgentLabel, agentRank, agentTitle } from '../../../src/protocol/index.ts';
import { LangContext, useT } from '../i18n.ts';
import type { Step } from '../session.ts';

function duration(step: Step, now: number): string {
  if (step.startedAt === 0) return '';
  const ms = (step.endedAt ?? now) - step.startedAt;
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * The live step list: steps upserted by id, grouped per agent in the configured agents' order and named by their
 * labels (an agent the list does not know by its raw name), with status and duration; `paused` while a run waits
 * for the user.
 */
export function Steps({
  steps,
  agents,
  live,
  paused,
}: {
  steps: Step[];
  agents: readonly AgentLabel[];
  live: boolean;
  paused: boolean;
}) {
  const t = useT();
  const lang = useContext(LangContext);
  // Timers tick only while the run works: a stopped or broken-off run's steps stand still.
  const running = live && !paused && steps.some((s) => s.status === 'running');
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  if (!steps.length) return <p className="empty-small">{t('noSteps')}</p>;
  const groups = [...new Set(steps.map((s) => s.agent))].sort((a, b) => agentRank(agents, a) - agentRank(agents, b));
  return (
    <div className="steps" data-testid="steps">
      {groups.map((agent) => (
        <section key={agent} className="step-group" data-agent={agent}>
          <h4>{agentTitle(agents, agent, lang)}</h4>
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
