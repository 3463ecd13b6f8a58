import type { Policy } from "../policy/policy.js";
import type { Recipe } from "../recipe/load.js";
import type { FileScope } from "../scope.js";
import { VERSION } from "../version.js";
import { sha256 } from "../util/hash.js";
import { countFindings } from "./findings.js";
import { OUTCOMES, type Outcome, type OutcomeRecord, type Report, type StepRecord, type Summary } from "./types.js";

/** What the report says about how the run was invoked (a narrow view of the runner's input). */
interface RunInfo {
  command?: string;
  cwd: string;
  dryRun?: boolean;
  check?: boolean;
  scope?: Pick<FileScope, "files" | "shard">;
  /** owner/name (or host/path) of the repository the run is in; null when unknown. */
  repository?: string | null;
}

interface ReportInput {
  recipe: Recipe;
  policy: Policy;
  options: RunInfo;
  steps: StepRecord[];
  outcomes: OutcomeRecord[];
  startedAt: number;
  durationMs: number;
  interrupted: boolean;
  git: { head: string | null; dirty: boolean | null };
}

const FAILURES: readonly Outcome[] = ["failed", "stale", "blocked"];

/**
 * Exit code: 3 when a step or an apply failed, else 1 when something awaits approval
 * (or `--check` found something staged, or an ast_scan error-severity finding is left unfixed),
 * else 0; 130 when interrupted.
 */
function exitCodeOf(summary: Omit<Summary, "exitCode">, check: boolean, interrupted: boolean): number {
  if (interrupted) return 130;
  if (summary.stepErrors > 0 || FAILURES.some((o) => summary.outcomes[o] > 0)) return 3;
  if (summary.outcomes["pending-approval"] > 0) return 1;
  if ((summary.findings?.unfixedErrors ?? 0) > 0) return 1;
  if (check && summary.actions > 0) return 1;
  return 0;
}

/** `shards`: for a merged report, the shard of each entry of a merged step's `details.shards`. */
export function summarize(
  steps: StepRecord[],
  outcomes: OutcomeRecord[],
  check: boolean,
  interrupted: boolean,
  shards?: ReadonlyArray<number | undefined>,
): Summary {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const files = new Set<string>();
  let additions = 0;
  let deletions = 0;
  for (const o of outcomes) {
    counts[o.outcome]++;
    if (o.outcome !== "applied" || o.rolledBack) continue;
    for (const f of o.files) {
      files.add(f.path);
      additions += f.additions;
      deletions += f.deletions;
    }
  }
  const partial = {
    steps: steps.length,
    stepErrors: steps.filter((s) => s.status === "error").length,
    actions: outcomes.length,
    outcomes: counts,
    filesChanged: files.size,
    additions,
    deletions,
  };
  const findings = countFindings(steps, outcomes, shards);
  if (findings) Object.assign(partial, { findings });
  return { ...partial, exitCode: exitCodeOf(partial, check, interrupted) };
}

export function buildReport(input: ReportInput): Report {
  const { recipe, policy, options } = input;
  const check = Boolean(options.check);
  const summary = summarize(input.steps, input.outcomes, check, input.interrupted);
  return {
    schemaVersion: 1,
    run: {
      tool: "tollgate",
      version: VERSION,
      command: options.command ?? "run",
      recipe: { path: recipe.file, sha256: sha256(recipe.text), name: recipe.name ?? null },
      policy: { path: policy.file ?? null, sha256: policy.text !== undefined ? sha256(policy.text) : null },
      vars: recipe.vars,
      cwd: options.cwd,
      git: input.git,
      repository: options.repository ?? null,
      mode: options.dryRun || check ? "dry-run" : policy.default,
      dryRun: Boolean(options.dryRun || check),
      check,
      files: options.scope?.files ?? null,
      shard: options.scope?.shard ?? null,
      startedAt: new Date(input.startedAt).toISOString(),
      durationMs: input.durationMs,
      interrupted: input.interrupted,
    },
    steps: input.steps,
    outcomes: input.outcomes,
    summary,
    exitCode: summary.exitCode,
  };
}

/**
 * The report of a run that could not start (workspace locked, unrecovered journal): no steps, no
 * outcomes, `run.error` says why, exit 3. `--report` is promised for exit 3 too.
 */
export function failedStartReport(input: Omit<ReportInput, "steps" | "outcomes" | "interrupted" | "git">, error: string): Report {
  const report = buildReport({ ...input, steps: [], outcomes: [], interrupted: false, git: { head: null, dirty: null } });
  report.run.error = error;
  report.summary.exitCode = 3;
  report.exitCode = 3;
  return report;
}
