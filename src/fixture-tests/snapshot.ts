import { createTwoFilesPatch } from "diff";
import type { Report } from "../report/types.js";

/**
 * What `expected-report.json` pins down: the run's decisions and texts, nothing that varies
 * between runs or machines (no durations, times, tool-call ids, hashes, fingerprints, absolute
 * paths, git HEAD). File contents are checked by the expected tree, so diffs are left out too.
 */
interface ReportSnapshot {
  exitCode: number;
  steps: Array<{ id: string; tool: string; status: string; resultText: string }>;
  outcomes: Array<{
    id: string;
    label: string;
    sourceToolName: string;
    step: string;
    requested: { action: string; reason: string } | null;
    decision: string;
    rule: { name: string; index: number | null };
    approval: { by: string; via: string } | null;
    action: string;
    reason: string;
    outcome: string;
    resultText: string;
    error: string | null;
    files: Array<{ path: string; change: string; additions: number; deletions: number }>;
  }>;
  summary: { actions: number; outcomes: Record<string, number>; filesChanged: number; additions: number; deletions: number };
}

/** Replaces machine-specific paths with stable placeholders. */
export function pathScrubber(replacements: Array<[string, string]>): (text: string) => string {
  const pairs = replacements
    .flatMap(([from, to]): Array<[string, string]> => [
      [from, to],
      [from.split("\\").join("/"), to],
    ])
    .filter(([from]) => from.length > 1)
    .sort((a, b) => b[0].length - a[0].length);
  return (text) => pairs.reduce((t, [from, to]) => t.split(from).join(to), text);
}

export function snapshotOf(report: Report, scrub: (text: string) => string): ReportSnapshot {
  return {
    exitCode: report.exitCode,
    steps: report.steps.map((s) => ({ id: s.id, tool: s.tool, status: s.status, resultText: scrub(s.resultText) })),
    outcomes: report.outcomes.map((o) => ({
      id: o.id,
      label: scrub(o.label),
      sourceToolName: o.sourceToolName,
      step: o.step,
      requested: o.requested ? { action: o.requested.action, reason: scrub(o.requested.reason) } : null,
      decision: o.decision,
      rule: o.rule,
      approval: o.approval,
      action: o.action,
      reason: scrub(o.reason),
      outcome: o.outcome,
      resultText: scrub(o.resultText),
      error: o.error === null ? null : scrub(o.error),
      files: o.files.map((f) => ({ path: f.path, change: f.change, additions: f.additions, deletions: f.deletions })),
    })),
    summary: {
      actions: report.summary.actions,
      outcomes: Object.fromEntries(Object.entries(report.summary.outcomes).filter(([, n]) => n > 0)),
      filesChanged: report.summary.filesChanged,
      additions: report.summary.additions,
      deletions: report.summary.deletions,
    },
  };
}

export function snapshotText(snapshot: ReportSnapshot): string {
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

/** A unified diff from the stored snapshot to the actual one, or "" when they are equal. */
export function snapshotDiff(expectedText: string, actual: ReportSnapshot): string {
  let normalized = expectedText;
  try {
    normalized = snapshotText(JSON.parse(expectedText) as ReportSnapshot);
  } catch {
    // Not JSON: diff the raw text, which shows what is wrong with it.
  }
  const actualText = snapshotText(actual);
  if (normalized === actualText) return "";
  return createTwoFilesPatch("expected-report.json", "actual report", normalized, actualText, "", "", { context: 3 })
    .replace(/^=+\n/, "")
    .replace(/\t\n/g, "\n");
}
