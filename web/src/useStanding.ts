import { useCallback, useEffect, useState } from 'react';
import {
  coversCall,
  describeScope,
  type HumanDecision,
  type InterruptData,
  type StandingScope,
  standingScope,
} from '../../src/protocol/index.ts';
import type { SessionView } from './session.ts';

// Versioned: permissions saved before they were scoped to one resource, its parts and an amount are not carried over.
const STANDING_KEY = 'procura.standing.v3';

/** A call the user allowed for the rest of a session (its tool, method, path template and target resource), with
 *  the label its approval card showed and the scope as a person reads it. */
export interface StandingPermission {
  key: string;
  scope: StandingScope;
  label: string;
  text: string;
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
 * Standing permissions, as in the terminal: "always allow in this session" answers later approvals in the same
 * session with an ordinary approve when they are the same tool, method, path template and target resource, and for
 * order lines the approved parts up to the approved amount (the rule in `src/protocol/standing.ts`), until the user
 * revokes it. They live in this browser only and only save the
 * clicks: the ERP still checks the user's role and applies its approval policy to every write.
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
      const scope = standingScope(interrupt.tool, interrupt.args, interrupt.details);
      const key = JSON.stringify(scope);
      if (!current.some((p) => p.key === key))
        update(view.id, [
          ...current,
          {
            key,
            scope,
            label: interrupt.label ?? interrupt.tool,
            text: describeScope(scope, interrupt.details),
          },
        ]);
      decide(interrupt.interrupt_id, { type: 'approve' });
    },
    [all, decide, update, view.id],
  );

  const revoke = useCallback(
    (key: string) => {
      if (view.id)
        update(
          view.id,
          (all[view.id] ?? []).filter((p) => p.key !== key),
        );
    },
    [all, update, view.id],
  );

  // A later approval of an allowed tool is answered as soon as it arrives.
  useEffect(() => {
    if (busy) return;
    const standing = view.pending.find(
      (p): p is Approval =>
        p.kind === 'approval' && permissions.some((s) => s.scope && coversCall(s.scope, p.tool, p.args, p.details)),
    );
    if (standing) decide(standing.interrupt_id, { type: 'approve' });
  }, [view.pending, busy, permissions, decide]);

  return { permissions, allowAlways, revoke };
}
