import { useCallback, useEffect, useState } from 'react';
import type { HumanDecision, InterruptData } from '../../src/protocol/index.ts';
import type { SessionView } from './session.ts';

const STANDING_KEY = 'procura.standing';

/** A tool the user allowed for the rest of a session, with the label its approval card showed. */
export interface StandingPermission {
  tool: string;
  label: string;
}

type Approval = Extract<InterruptData, { kind: 'approval' }>;

function load(): Record<string, StandingPermission[]> {
  try {
    return JSON.parse(localStorage.getItem(STANDING_KEY) ?? '{}') as Record<string, StandingPermission[]>;
  } catch {
    return {};
  }
}

/**
 * Standing permissions, as in the terminal: "always allow this tool in this session" answers later approvals of that
 * tool in the same session with an ordinary approve, until the user revokes it. They live in this browser only and
 * only save the clicks: the ERP still checks the user's role and applies its approval policy to every write.
 */
export function useStandingPermissions(
  view: SessionView,
  busy: boolean,
  decide: (interruptId: string, decision: HumanDecision) => void,
) {
  const [all, setAll] = useState(load);
  const permissions = (view.id && all[view.id]) || [];

  const update = useCallback((sessionId: string, next: StandingPermission[]) => {
    setAll((current) => {
      const saved = { ...current, [sessionId]: next };
      if (!next.length) delete saved[sessionId];
      localStorage.setItem(STANDING_KEY, JSON.stringify(saved));
      return saved;
    });
  }, []);

  const allowAlways = useCallback(
    (interrupt: Approval) => {
      if (!view.id) return;
      const current = all[view.id] ?? [];
      if (!current.some((p) => p.tool === interrupt.tool))
        update(view.id, [...current, { tool: interrupt.tool, label: interrupt.label ?? interrupt.tool }]);
      decide(interrupt.interrupt_id, { type: 'approve' });
    },
    [all, decide, update, view.id],
  );

  const revoke = useCallback(
    (tool: string) => {
      if (view.id)
        update(
          view.id,
          (all[view.id] ?? []).filter((p) => p.tool !== tool),
        );
    },
    [all, update, view.id],
  );

  // A later approval of an allowed tool is answered as soon as it arrives.
  useEffect(() => {
    if (busy) return;
    const standing = view.pending.find(
      (p): p is Approval => p.kind === 'approval' && permissions.some((s) => s.tool === p.tool),
    );
    if (standing) decide(standing.interrupt_id, { type: 'approve' });
  }, [view.pending, busy, permissions, decide]);

  return { permissions, allowAlways, revoke };
}
