/**
 * A jscodeshift step's files' outcomes, summed up and put in words: pure functions of what the
 * workers answered, in file order, whatever order the answers came in.
 */
import { plural } from "../../util/plural.js";
import type { RunReply } from "./protocol.js";

/** A file's outcome: the worker's answer, or why the file could not be read. */
export type FileOutcome = RunReply | { type: "unreadable"; id: number; error: string };

/** The step's files, counted and listed by outcome. */
interface Tally {
  /** Indexes of the changed files, in file order. */
  changed: number[];
  unchanged: number;
  skipped: number;
  /** Files whose transform returned nothing (the first 1000). */
  skippedFiles: string[];
  errors: Array<{ path: string; error: string }>;
  reports: Array<{ path: string; message: string }>;
  stats: Record<string, number>;
  unreadable: Array<{ path: string; reason: string }>;
}

const MAX_SKIPPED_LISTED = 1000;

/** Sums up the outcomes of `files` (an outcome missing for a file leaves it out). */
export function tallyOutcomes(files: ReadonlyArray<{ rel: string }>, outcomes: ReadonlyArray<FileOutcome | undefined>): Tally {
  const t: Tally = { changed: [], unchanged: 0, skipped: 0, skippedFiles: [], errors: [], reports: [], stats: {}, unreadable: [] };
  files.forEach((f, i) => {
    const o = outcomes[i];
    if (!o) return;
    if (o.type === "unreadable") {
      t.unreadable.push({ path: f.rel, reason: o.error });
      return;
    }
    for (const message of o.reports) t.reports.push({ path: f.rel, message });
    for (const [name, n] of Object.entries(o.stats)) t.stats[name] = (t.stats[name] ?? 0) + n;
    if (o.status === "changed") t.changed.push(i);
    else if (o.status === "unchanged") t.unchanged++;
    else if (o.status === "skip") {
      t.skipped++;
      if (t.skippedFiles.length < MAX_SKIPPED_LISTED) t.skippedFiles.push(f.rel);
    } else t.errors.push({ path: f.rel, error: o.error ?? "unknown error" });
  });
  return t;
}

/** What the result text says: the step's transform, its files and what became of them. */
export interface StepSummary {
  transform: string;
  /** The transform's own exported parser, when it has one. */
  transformParser?: string | undefined;
  files: number;
  /** Paths of the changed files staged. */
  changed: readonly string[];
  unchanged: number;
  skipped: number;
  errors: Tally["errors"];
  unreadable: Tally["unreadable"];
  reports: Tally["reports"];
  stats: Record<string, number>;
}

export const PREVIEW_REMINDER = "Preview only: no file has been modified yet. Resolving this pending action with apply writes these changes.";

/** The pending action's label: `Jscodeshift: <transform>: <N> file(s)`. */
export const stepLabel = (transform: string, changed: number): string => `Jscodeshift: ${transform}: ${plural(changed, "file")}`;

/** The result text's lines (the preview reminder last when something was staged). */
export function resultLines(s: StepSummary): string[] {
  const n = s.changed.length;
  // Every file is in one count: one not read as text (not UTF-8, binary) is neither skipped by the transform nor failed.
  const notRead = s.unreadable.length > 0 ? `, ${s.unreadable.length} not read` : "";
  const counts = `${plural(s.files, "file")}: ${n} changed, ${s.unchanged} unchanged, ${s.skipped} skipped, ${s.errors.length} failed${notRead}`;
  const lines = [n > 0 ? `${stepLabel(s.transform, n)} (${counts})` : `No changes: jscodeshift ${s.transform} (${counts})`];
  if (s.transformParser !== undefined) lines.push(`Parser: ${s.transformParser} (exported by the transform)`);
  for (const c of s.changed) lines.push(`- ${c}`);
  const block = (title: string, items: string[]) => {
    if (items.length > 0) lines.push("", title, ...items);
  };
  block(
    `Errors (${plural(s.errors.length, "file")}; the transform threw or did not finish in time):`,
    s.errors.map((e) => `- ${e.path}: ${e.error}`),
  );
  block(
    `Not transformed (${plural(s.unreadable.length, "file")} not readable as text):`,
    s.unreadable.map((u) => `- ${u.path}: ${u.reason}`),
  );
  block(
    "Reports:",
    s.reports.map((r) => `${r.path}: ${r.message}`),
  );
  block(
    "Stats:",
    Object.keys(s.stats)
      .sort()
      .map((name) => `${name}: ${s.stats[name]}`),
  );
  if (n > 0) lines.push("", PREVIEW_REMINDER);
  return lines;
}

/** The text of a step whose transform failed on some files (and `allowErrors` is not set). */
export function failureText(s: StepSummary, lines: readonly string[]): string {
  const n = s.changed.length;
  const staged = n > 0 ? ` The ${plural(n, "changed file")} ${n === 1 ? "is" : "are"} staged and resolved by the policy.` : "";
  return `jscodeshift ${s.transform}: the transform failed on ${plural(s.errors.length, "file")} (allowErrors: true accepts this).${staged}\n\n${lines.join("\n")}`;
}
