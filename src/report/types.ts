// Report types are derived from the TypeBox schema in ./schema.ts.
import type { Decision, Outcome } from "./schema.js";
export type { Decision, Outcome, OutcomeRecord, Report, ReportFile, RunInfo, StepRecord, Summary } from "./schema.js";

export const OUTCOMES: readonly Outcome[] = ["applied", "discarded", "dry-run", "pending-approval", "failed", "stale", "blocked"];

/** What a policy would decide for an action, and by which rule (a plan's `wouldDecide`). */
export interface WouldDecide {
  decision: Decision;
  rule: { name: string; index: number | null };
}
