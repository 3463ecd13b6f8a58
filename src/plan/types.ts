import type { Report, WouldDecide } from "../report/types.js";

/** One planned action: what `apply` matches by `id` and accepts only with the same fingerprint. */
export interface PlannedAction {
  id: string;
  fingerprint: string;
  label: string;
  sourceToolName: string;
  step: string;
  files: Array<{ path: string; beforeSha256: string | null; afterSha256: string | null }>;
  /** What the policy would decide at apply time (the plan itself previews everything). */
  wouldDecide: WouldDecide | null;
}

/**
 * Everything `apply` needs to re-run the same thing. Paths of recipe and policy are
 * workspace-relative (POSIX) when they lie inside the workspace, so a plan made in one checkout
 * applies in another; otherwise absolute.
 */
export interface PlanInfo {
  version: 1;
  recipe: { path: string; sha256: string };
  policy: { path: string | null; sha256: string | null };
  /** The `--var name=value` overrides, exactly as given. */
  vars: string[];
  mode: string | null;
  cwd: string;
  files: string[] | null;
  shard: { index: number; count: number } | null;
  /** `--changed-since`: the ref and the merge-base the plan's files were changed since; apply reuses the merge-base. */
  changedSince?: { ref: string; base: string };
  actions: PlannedAction[];
}

/** A plan file: the plan run's report plus the plan block. */
export interface PlanFile extends Report {
  plan: PlanInfo;
}

/** A planned action that did not come back when the plan was applied. */
export interface MissingAction {
  id: string;
  fingerprint: string;
  label: string;
  /** true when every file it touches already has the planned result (applied before). */
  alreadyApplied: boolean;
}
