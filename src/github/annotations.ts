import path from "node:path";
import type { Issue } from "../errors.js";
import type { Outcome, OutcomeRecord, Report, StepRecord } from "../report/types.js";
import { firstChangedLines } from "../report/diff-lines.js";
import { plannedDecisions } from "../report/words.js";

export { firstChangedLines };
import { command } from "./escape.js";
import { relativeInside } from "../util/inside.js";
import { appliedIds, appliedKey, findingsOf, shardOrder } from "../report/findings.js";
import { plural } from "../util/plural.js";

type AnnotationKind = "notice" | "warning" | "error";

/** notice: applied; error: failed, stale or blocked; warning: left unapplied. */
function kindOf(outcome: Outcome): AnnotationKind {
  if (outcome === "applied") return "notice";
  if (outcome === "failed" || outcome === "stale" || outcome === "blocked") return "error";
  return "warning";
}

interface Annotation {
  kind: AnnotationKind;
  file?: string;
  line?: number;
  col?: number;
  endLine?: number;
  endColumn?: number;
  title: string;
  message: string;
}

/** One annotation per changed file of every outcome (one without a file for opaque actions). */
function annotationsOf(o: OutcomeRecord, would?: string): Annotation[] {
  const kind = kindOf(o.outcome);
  // Under plan, what the policy would decide is what the reviewer needs, not "dry-run".
  const title = `tollgate: ${o.outcome}${would ? ` (${would})` : ""}`;
  const message = `${o.label} (${o.id}): ${would ? `${would}; ` : ""}${o.error ?? o.reason}`;
  if (o.files.length === 0) return [{ kind, title, message }];
  const lines = firstChangedLines(o.diff, o.outcome === "applied");
  return o.files.map((f, i) => ({ kind, file: f.path, line: lines.length === o.files.length ? lines[i]! : 1, title, message }));
}

const FINDING_KIND: Record<string, AnnotationKind> = { error: "error", warning: "warning", info: "notice", hint: "notice" };

/**
 * ast_scan findings still in the code (a finding whose fix was applied is gone), at their rule's
 * severity: error, warning, notice for info and hint.
 */
function findingAnnotations(report: Report): Annotation[] {
  const merged = (report as { merged?: { reports: Array<{ shard: { index: number } | null }> } }).merged;
  const applied = appliedIds(report.outcomes);
  const outcome = new Map(report.outcomes.map((o) => [appliedKey(o.id, o.shard?.index), o] as const));
  return findingsOf(report.steps ?? [], shardOrder(report.outcomes, merged?.reports))
    .filter((f) => !(f.fix && applied.has(appliedKey(f.fix, f.shard))))
    .map((f) => {
      const fix = f.fix ? outcome.get(appliedKey(f.fix, f.shard)) : undefined;
      return {
        kind: FINDING_KIND[f.severity] ?? "notice",
        file: f.path,
        line: f.start.line,
        col: f.start.column,
        endLine: f.end.line,
        // GitHub's end column is inclusive; a finding's (like SARIF's) is one past the end.
        endColumn: Math.max(1, f.end.column - 1),
        title: `tollgate: ${f.severity}[${f.rule}]`,
        message: `${f.message || f.text || f.rule}${fix ? ` (fix ${fix.id}: ${fix.outcome})` : ""}${f.note ? `\n${f.note}` : ""}`,
      };
    });
}

/** An error annotation for a step that failed (no file: the step's own text says where). */
function stepAnnotation(step: StepRecord): Annotation {
  const first = step.resultText.split("\n").find((l) => l.trim() !== "") ?? "failed";
  return { kind: "error", title: "tollgate: step error", message: `${step.id} (${step.tool}): ${first}` };
}

/**
 * The annotation lines for a report: at most `perKind` of each kind. GitHub drops anything past
 * 10 per kind per step, so when some are left out the last notice slot points to the summary.
 */
export function renderAnnotations(report: Report, options: { perKind?: number; prefix?: string } = {}): string[] {
  const perKind = options.perKind ?? 10;
  const would = plannedDecisions(report);
  // A failed step (tool error: exit 3) is an error annotation too, first: otherwise a run that
  // failed shows nothing in the annotations panel when the step staged nothing.
  const all = [
    ...(report.steps ?? []).filter((st) => st.status === "error").map(stepAnnotation),
    ...report.outcomes.flatMap((o) => annotationsOf(o, would.get(o.id))),
    ...findingAnnotations(report),
  ];
  const total = { notice: 0, warning: 0, error: 0 };
  for (const a of all) total[a.kind]++;
  const overflow = (k: AnnotationKind) => Math.max(0, total[k] - perKind);
  const some = overflow("notice") + overflow("warning") + overflow("error") > 0;
  const cap = { notice: some ? perKind - 1 : perKind, warning: perKind, error: perKind };
  const shown = { notice: 0, warning: 0, error: 0 };
  const out: string[] = [];
  for (const a of all) {
    if (shown[a.kind] >= cap[a.kind]) continue;
    shown[a.kind]++;
    const file = a.file === undefined ? undefined : options.prefix ? `${options.prefix}${a.file}` : a.file;
    out.push(command(a.kind, { file, line: a.line, col: a.col, endLine: a.endLine, endColumn: a.endColumn, title: a.title }, a.message));
  }
  const left = all.length - out.length;
  if (left > 0) {
    out.push(command("notice", { title: "tollgate" }, `${plural(left, "more annotation")} in the job summary and the JSON report`));
  }
  return out;
}

/**
 * Invalid input (exit 2) in GitHub Actions: one error annotation per problem, at its file, line
 * and column when it has them (recipe, policy, custom tool module), so the annotations panel
 * points at the line to fix. Paths are made relative to `$GITHUB_WORKSPACE` when inside it.
 */
export function inputErrorAnnotations(issues: readonly Issue[], env: NodeJS.ProcessEnv): string[] {
  const repo = env.GITHUB_WORKSPACE ? path.resolve(env.GITHUB_WORKSPACE) : undefined;
  return issues.slice(0, 10).map((issue) => {
    let file = issue.file;
    if (file && repo) {
      const rel = relativeInside(repo, file);
      if (rel !== undefined) file = rel;
    }
    const message = issue.path ? `${issue.path}: ${issue.message}` : issue.message;
    return command(
      "error",
      { file, line: issue.line, col: issue.line !== undefined ? (issue.col ?? 1) : undefined, title: "tollgate: invalid input" },
      message,
    );
  });
}
