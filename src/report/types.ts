import type { PolicyDecision } from "../policy/schema.js";

export type Outcome = "applied" | "discarded" | "dry-run" | "pending-approval" | "failed" | "stale" | "blocked";
export const OUTCOMES: readonly Outcome[] = ["applied", "discarded", "dry-run", "pending-approval", "failed", "stale", "blocked"];
export type Decision = PolicyDecision | "blocked";

export interface ReportFile {
  path: string;
  change: "modified" | "created" | "deleted";
  additions: number;
  deletions: number;
  beforeSha256: string | null;
  afterSha256: string | null;
}

export interface OutcomeRecord {
  id: string;
  fingerprint: string;
  label: string;
  sourceToolName: string;
  step: string;
  toolCallId: string;
  /** The resolve tool call that finalized this action. */
  resolveToolCallId: string;
  requested: { action: "apply" | "discard"; reason: string } | null;
  decision: Decision;
  rule: { name: string; index: number | null };
  approval: { by: string; via: "flag" | "approve-all" | "file" | "prompt" | "plan" } | null;
  action: "apply" | "discard";
  reason: string;
  outcome: Outcome;
  resultText: string;
  details: unknown;
  files: ReportFile[];
  diff: string;
  error: string | null;
  rolledBack?: boolean;
  durationMs: number;
}

export interface StepRecord {
  id: string;
  tool: string;
  toolCallId: string;
  params: unknown;
  status: "ok" | "error";
  resultText: string;
  details: unknown;
  actions: string[];
  durationMs: number;
}

export interface RunInfo {
  tool: "tollgate";
  version: string;
  command: string;
  recipe: { path: string; sha256: string; name: string | null };
  policy: { path: string | null; sha256: string | null };
  vars: Record<string, string | number | boolean>;
  cwd: string;
  git: { head: string | null; dirty: boolean | null };
  mode: string;
  dryRun: boolean;
  check: boolean;
  files: string[] | null;
  shard: { index: number; count: number } | null;
  startedAt: string;
  durationMs: number;
  interrupted: boolean;
  /** `--atomic` only: whether the run's applied actions were rolled back (and which files). */
  atomic?: { rolledBack: boolean; files: string[]; error: string | null };
}

export interface Summary {
  steps: number;
  stepErrors: number;
  actions: number;
  outcomes: Record<Outcome, number>;
  filesChanged: number;
  additions: number;
  deletions: number;
  exitCode: number;
}

export interface Report {
  $schema?: string;
  schemaVersion: 1;
  run: RunInfo;
  steps: StepRecord[];
  outcomes: OutcomeRecord[];
  summary: Summary;
  exitCode: number;
}
