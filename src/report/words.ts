// What people read about an outcome: one word per outcome, and under `plan` what
// the policy would decide and why. The report's `action` stays what resolve was called with.
import type { Outcome, Report, WouldDecide } from "./types.js";

export const OUTCOME_WORD: Readonly<Record<Outcome, string>> = {
  applied: "Accept",
  discarded: "Discard",
  "dry-run": "Preview",
  "pending-approval": "Awaiting approval",
  failed: "Failed",
  stale: "Stale",
  blocked: "Blocked",
};

const NO_LABEL = "pending action";

/** `<Word>: <summary> [<Source>]`: the label split at its first ": " as the original renderer does. */
export function outcomeLine(outcome: Outcome, rawLabel: string): string {
  const word = `${OUTCOME_WORD[outcome]}:`;
  const label = rawLabel.trim() ? rawLabel : NO_LABEL;
  const cut = label.indexOf(": ");
  if (cut < 0) return `${word} ${label}`;
  return `${word} ${label.slice(cut + 2)} [${label.slice(0, cut)}]`;
}

const VERB: Readonly<Record<string, string>> = {
  "auto-apply": "would auto-apply",
  "require-approval": "would require approval",
  "dry-run": "would dry-run",
  discard: "would discard",
  blocked: "would block",
};

/** `would auto-apply, rule "x"` / `would require approval, policy default`. */
export function wouldDecideText(would: WouldDecide): string {
  const why = would.rule.index === null ? "policy default" : `rule "${would.rule.name}"`;
  return `${VERB[would.decision] ?? `would ${would.decision}`}, ${why}`;
}

/** Per action id, what a plan's policy would decide (empty for a report that is not a plan). */
export function plannedDecisions(report: Report): Map<string, string> {
  // a plan file is a report with a plan block (plan/types.ts), read here by shape
  const plan = (report as { plan?: { actions?: ReadonlyArray<{ id: string; wouldDecide: WouldDecide | null }> } }).plan;
  const out = new Map<string, string>();
  for (const a of plan?.actions ?? []) if (a.wouldDecide) out.set(a.id, wouldDecideText(a.wouldDecide));
  return out;
}
