/**
 * ast_scan findings as the report holds them (in their step's details), and what they mean for
 * the run: an error-severity finding whose fix was not applied (or that has none) keeps the
 * exit code at least 1. Read from the report, so merge-reports and SARIF see the
 * same thing as the run.
 */
import type { OutcomeRecord, StepRecord } from "./types.js";

export interface ReportFinding {
  rule: string;
  severity: "error" | "warning" | "info" | "hint";
  message: string;
  note?: string;
  url?: string;
  path: string;
  start: { line: number; column: number };
  end: { line: number; column: number };
  text?: string;
  fix?: string;
  replacement?: { start: { line: number; column: number }; end: { line: number; column: number }; text: string };
}

interface FindingCounts {
  error: number;
  warning: number;
  info: number;
  hint: number;
  /** Error-severity findings not fixed by an applied action. */
  unfixedErrors: number;
}

const SEVERITIES = new Set(["error", "warning", "info", "hint"]);

function isFinding(v: unknown): v is ReportFinding {
  const f = v as ReportFinding | null;
  return Boolean(
    f &&
    typeof f === "object" &&
    typeof f.rule === "string" &&
    typeof f.path === "string" &&
    SEVERITIES.has(f.severity) &&
    f.start &&
    typeof f.start.line === "number",
  );
}

/**
 * Every finding of the report's ast_scan steps, with the step that produced it. A merged report
 * holds each shard's details under `shards` (merge-reports), in shard order.
 */
export function findingsOf(
  steps: readonly StepRecord[],
  shards: ReadonlyArray<number | undefined> = [],
): Array<ReportFinding & { step: string; shard?: number }> {
  const out: Array<ReportFinding & { step: string; shard?: number }> = [];
  const add = (details: unknown, step: string, shard: number | undefined) => {
    const list = (details as { findings?: unknown } | null)?.findings;
    if (!Array.isArray(list)) return;
    for (const f of list) if (isFinding(f)) out.push({ ...f, step, ...(shard !== undefined ? { shard } : {}) });
  };
  for (const s of steps) {
    if (s.tool !== "ast_scan") continue;
    const parts = (s.details as { shards?: unknown } | null)?.shards;
    if (Array.isArray(parts)) parts.forEach((d, i) => add(d, s.id, shards[i]));
    else add(s.details, s.id, undefined);
  }
  return out;
}

/** Keys (`<shard>:<id>`) of actions whose changes were written and kept. */
export function appliedIds(outcomes: readonly OutcomeRecord[]): Set<string> {
  return new Set(outcomes.filter((o) => o.outcome === "applied" && !o.rolledBack).map((o) => appliedKey(o.id, o.shard?.index)));
}

export function appliedKey(id: string, shard: number | undefined): string {
  return `${shard ?? ""}:${id}`;
}

/** Shard index of each `shards` entry of a merged step: the shards the outcomes name, in order. */
export function shardOrder(outcomes: readonly OutcomeRecord[], mergedFrom?: ReadonlyArray<{ shard: { index: number } | null }>): Array<number | undefined> {
  if (mergedFrom) return mergedFrom.map((r) => r.shard?.index).sort((a, b) => (a ?? Infinity) - (b ?? Infinity));
  return [...new Set(outcomes.map((o) => o.shard?.index))];
}

export function countFindings(
  steps: readonly StepRecord[],
  outcomes: readonly OutcomeRecord[],
  shards: ReadonlyArray<number | undefined> = [],
): FindingCounts | undefined {
  const findings = findingsOf(steps, shards);
  if (findings.length === 0 && !steps.some((s) => s.tool === "ast_scan")) return undefined;
  const applied = appliedIds(outcomes);
  const counts: FindingCounts = { error: 0, warning: 0, info: 0, hint: 0, unfixedErrors: 0 };
  for (const f of findings) {
    counts[f.severity]++;
    if (f.severity === "error" && !(f.fix && applied.has(appliedKey(f.fix, f.shard)))) counts.unfixedErrors++;
  }
  return counts;
}
