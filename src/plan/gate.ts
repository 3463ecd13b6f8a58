import type { PlanGate } from "../runner/types.js";
import type { StagedAction } from "../domain/types.js";
import type { Workspace } from "../workspace/workspace.js";
import type { MissingAction, PlanInfo } from "./types.js";

/**
 * The apply-time gate: an action is matched to the plan by id; a changed fingerprint
 * makes it `stale` and one without a planned counterpart is discarded, so nothing unreviewed is
 * written. A matched, unchanged action is left to the policy and approvals (undefined).
 */
export function createPlanGate(plan: PlanInfo): { gate: PlanGate; seen: Set<string> } {
  const planned = new Map(plan.actions.map((a) => [a.id, a]));
  const seen = new Set<string>();
  const gate: PlanGate = ({ id, fingerprint }: StagedAction) => {
    const match = planned.get(id);
    if (!match) return { outcome: "discard", reason: `not in the plan: ${id} has no planned counterpart` };
    seen.add(id);
    if (match.fingerprint !== fingerprint) {
      return {
        outcome: "stale",
        reason: `changed since the plan: ${id} has fingerprint ${fingerprint.slice(0, 12)}, the plan has ${match.fingerprint.slice(0, 12)}`,
      };
    }
    return undefined;
  };
  return { gate, seen };
}

/**
 * Planned actions that did not come back. `alreadyApplied` tells "the change is already there"
 * (every file has the planned result) from "the change no longer arises".
 */
export async function missingActions(plan: PlanInfo, seen: ReadonlySet<string>, workspace: Workspace): Promise<MissingAction[]> {
  const out: MissingAction[] = [];
  for (const a of plan.actions) {
    if (seen.has(a.id)) continue;
    let alreadyApplied = a.files.length > 0;
    for (const f of a.files) {
      if (!alreadyApplied) break;
      const current = await workspace.readIfExists(f.path).catch(() => null);
      if ((current?.sha256 ?? null) !== f.afterSha256) alreadyApplied = false;
    }
    out.push({ id: a.id, fingerprint: a.fingerprint, label: a.label, alreadyApplied });
  }
  return out;
}
