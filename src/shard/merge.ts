import { formatPatch, parsePatch } from "diff";
import { InputError } from "../errors.js";
import type { Preview, PreviewFile } from "../report/patch.js";
import { sha256 } from "../util/hash.js";
import { summarize } from "../report/build.js";
import type { OutcomeRecord, Report, StepRecord } from "../report/types.js";
import type { SpillStore } from "../spill/store.js";
import { copyLazily } from "./read.js";

interface ShardReport {
  file: string;
  report: Report;
}

interface MergeInfo {
  reports: Array<{ path: string; shard: { index: number; count: number } | null; exitCode: number }>;
  /** Shard count when every input is a shard of the same count; null otherwise. */
  shardCount: number | null;
  /** Shard indexes (1-based) that no input covered. */
  missingShards: number[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks that a parsed JSON value is a tollgate report; a wrong file is an input error. */
export function asReport(file: string, data: unknown): Report {
  const ok =
    isObject(data) &&
    data.schemaVersion === 1 &&
    isObject(data.run) &&
    isObject(data.run.recipe) &&
    typeof data.run.recipe.sha256 === "string" &&
    Array.isArray(data.steps) &&
    Array.isArray(data.outcomes);
  if (!ok) throw new InputError(`${file}: not a tollgate report (schemaVersion 1 with run, steps and outcomes)`);
  return data as unknown as Report;
}

function mergeSteps(ordered: ShardReport[]): StepRecord[] {
  const byId = new Map<string, StepRecord[]>();
  for (const { report } of ordered) {
    for (const step of report.steps) {
      const list = byId.get(step.id) ?? [];
      list.push(step);
      byId.set(step.id, list);
    }
  }
  return [...byId.values()].map((list) => {
    const first = list[0]!;
    if (list.length === 1) return first;
    const texts = [...new Set(list.map((s) => s.resultText))];
    return {
      ...first,
      status: list.some((s) => s.status === "error") ? "error" : "ok",
      resultText: texts.length === 1 ? texts[0]! : texts.join("\n"),
      details: { shards: list.map((s) => s.details) },
      actions: list.flatMap((s) => s.actions),
      durationMs: Math.max(...list.map((s) => s.durationMs)),
    };
  });
}

/**
 * Combines shard reports (`--shard i/n`) into one: outcomes concatenated in shard order (then argument
 * order for reports without a shard), steps merged by id, summary and exit code recomputed.
 * Reports of different recipes or policies, or two reports of the same shard, are refused.
 */
export function mergeReports(inputs: ShardReport[]): Report & { merged: MergeInfo } {
  if (inputs.length === 0) throw new InputError("Name at least one report to merge");
  const first = inputs[0]!.report;
  const problems: string[] = [];
  for (const { file, report } of inputs.slice(1)) {
    if (report.run.recipe.sha256 !== first.run.recipe.sha256) problems.push(`${file}: made from a different recipe than ${inputs[0]!.file}`);
    if ((report.run.policy?.sha256 ?? null) !== (first.run.policy?.sha256 ?? null)) {
      problems.push(`${file}: made with a different policy than ${inputs[0]!.file}`);
    }
  }
  const seen = new Map<string, string>();
  for (const { file, report } of inputs) {
    const s = report.run.shard;
    if (!s) continue;
    const key = `${s.index}/${s.count}`;
    if (seen.has(key)) problems.push(`${file}: shard ${key} is also in ${seen.get(key)}`);
    seen.set(key, file);
  }
  const counts = new Set(inputs.map((i) => i.report.run.shard?.count ?? null));
  if (counts.size > 1 && !counts.has(null)) problems.push(`shard counts differ: ${[...counts].join(", ")}`);
  if (problems.length > 0) throw new InputError(problems.join("\n"));

  const ordered = inputs
    .map((input, position) => ({ input, position }))
    .sort((a, b) => (a.input.report.run.shard?.index ?? Infinity) - (b.input.report.run.shard?.index ?? Infinity) || a.position - b.position)
    .map((x) => x.input);
  const outcomes: OutcomeRecord[] = ordered.flatMap(({ report }) =>
    // copied with their diff getters intact: a spread would read every diff into memory
    report.outcomes.map((o) => (report.run.shard ? copyLazily(o, { shard: report.run.shard }) : o)),
  );
  const steps = mergeSteps(ordered);
  const check = inputs.some((i) => i.report.run.check);
  const interrupted = inputs.some((i) => i.report.run.interrupted);
  const summary = summarize(
    steps,
    outcomes,
    check,
    interrupted,
    ordered.map((i) => i.report.run.shard?.index),
  );
  const shardCount = counts.size === 1 && !counts.has(null) ? [...counts][0]! : null;
  const covered = new Set(inputs.map((i) => i.report.run.shard?.index));
  const missingShards = shardCount === null ? [] : Array.from({ length: shardCount }, (_, i) => i + 1).filter((i) => !covered.has(i));
  const starts = inputs.map((i) => Date.parse(i.report.run.startedAt)).filter((t) => !Number.isNaN(t));
  return {
    ...first,
    run: {
      ...first.run,
      command: "merge-reports",
      files: null,
      shard: null,
      startedAt: starts.length > 0 ? new Date(Math.min(...starts)).toISOString() : first.run.startedAt,
      durationMs: Math.max(...inputs.map((i) => i.report.run.durationMs ?? 0)),
      interrupted,
      check,
    },
    steps,
    outcomes,
    summary,
    exitCode: summary.exitCode,
    merged: {
      reports: inputs.map(({ file, report }) => ({ path: file, shard: report.run.shard ?? null, exitCode: report.exitCode })),
      shardCount,
      missingShards,
    },
  };
}

/**
 * Unapplied previews of a merged report, from its diffs (the shard reports hold diffs, not whole
 * texts), so `merge-reports --patch` writes one patch. A file that is not as the shard saw it
 * (sha256 differs) is left out and returned in `skipped`. Files are read one at a time, and each
 * file's part of a diff waits in `spill` until the patch is written.
 */
export function rebuildPreviews(report: Report, read: (path: string) => string | null, spill: SpillStore): { previews: Preview[]; skipped: string[] } {
  const previews: Preview[] = [];
  const skipped: string[] = [];
  for (const o of report.outcomes) {
    if (o.outcome !== "dry-run" && o.outcome !== "pending-approval") continue;
    const patches = parsePatch(o.diff);
    const files: PreviewFile[] = [];
    o.files.forEach((f, i) => {
      const patch = patches[i];
      const before = read(f.path);
      if (patch === undefined || (before === null ? null : sha256(before)) !== f.beforeSha256) {
        skipped.push(f.path);
        return;
      }
      files.push({ path: f.path, kind: f.change, beforeSha256: f.beforeSha256, diff: spill.put(formatPatch(patch)) });
    });
    if (files.length > 0) previews.push({ id: o.id, files });
  }
  return { previews, skipped };
}
