/**
 * The unified diff as it was computed before hunks were built from the edits (jsdiff's Myers over
 * line windows around the edits, or over the whole texts): the oracle the edit-built hunks are
 * compared with, byte for byte.
 */
import { formatPatch, structuredPatch } from "diff";
import type { ChangeKind, TextEdit } from "../../src/domain/types.js";
import { lastAtOrBefore, lineStarts } from "../../src/workspace/text.js";

function changeKind(before: string | null, after: string | null): ChangeKind {
  if (before === null) return "created";
  if (after === null) return "deleted";
  return "modified";
}

type Patch = ReturnType<typeof structuredPatch> & { isGit: true; isCreate: boolean; isDelete: boolean };

const CONTEXT = 3;

/**
 * Diffs stay near-linear (never hang): Myers' algorithm costs about (lines of both
 * texts) × (edit length), quadratic for a file whose every line changed (19 s at 8,000 lines).
 * The edit length is bounded so that product stays under WORK_BUDGET; past it the diff falls back
 * to one hunk replacing everything between the common first and last lines (still a valid patch
 * that `git apply` accepts, only coarser). Deterministic: the bound depends on sizes, not time.
 */
const WORK_BUDGET = 2_000_000;
const MIN_EDIT_LENGTH = 64;

type StructuredPatch = NonNullable<ReturnType<typeof structuredPatch>>;

function linesOf(text: string): string[] {
  if (text === "") return [];
  const out = text.split("\n").map((l) => `${l}\n`);
  if (text.endsWith("\n")) out.pop();
  else out.push(out.pop()!.slice(0, -1));
  return out;
}

/** structuredPatch with bounded work: the exact diff, or one replacement hunk past the bound. */
function boundedPatch(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  const b = linesOf(before);
  const a = linesOf(after);
  const maxEditLength = Math.max(MIN_EDIT_LENGTH, Math.floor(WORK_BUDGET / Math.max(1, b.length + a.length)));
  const exact = structuredPatch(oldName, newName, before, after, undefined, undefined, { context: CONTEXT, maxEditLength });
  if (exact) return exact;
  return { oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks: [replacementHunk(b, a)] };
}

/** One hunk: common context, every old line of the changed middle removed, every new one added. */
function replacementHunk(b: readonly string[], a: readonly string[]): StructuredPatch["hunks"][number] {
  let p = 0;
  while (p < b.length && p < a.length && b[p] === a[p]) p++;
  let s = 0;
  while (s < b.length - p && s < a.length - p && b[b.length - 1 - s] === a[a.length - 1 - s]) s++;
  const from = p - Math.min(p, CONTEXT);
  const tail = Math.min(s, CONTEXT);
  const bTo = b.length - s + tail;
  const aTo = a.length - s + tail;
  const raw = [
    ...b.slice(from, p).map((l) => ` ${l}`),
    ...b.slice(p, b.length - s).map((l) => `-${l}`),
    ...a.slice(p, a.length - s).map((l) => `+${l}`),
    ...b.slice(b.length - s, bTo).map((l) => ` ${l}`),
  ];
  // as jsdiff does: drop each line's "\n", mark a line without one
  const lines: string[] = [];
  for (const l of raw) {
    if (l.endsWith("\n")) lines.push(l.slice(0, -1));
    else lines.push(l, "\\ No newline at end of file");
  }
  return { oldStart: from + 1, oldLines: bTo - from, newStart: from + 1, newLines: aTo - from, lines };
}

interface TextChange {
  path: string;
  before: string | null;
  after: string | null;
  edits?: readonly TextEdit[] | undefined;
}

function computePatch(change: TextChange): Patch {
  const kind = changeKind(change.before, change.after);
  const oldName = kind === "created" ? "/dev/null" : `a/${change.path}`;
  const newName = kind === "deleted" ? "/dev/null" : `b/${change.path}`;
  const windowed =
    change.edits && change.edits.length > 0 && change.before !== null && change.after !== null
      ? windowedPatch(oldName, newName, change.before, change.after, change.edits)
      : undefined;
  const p = windowed ?? boundedPatch(oldName, newName, change.before ?? "", change.after ?? "");
  return { ...p, isGit: true, isCreate: kind === "created", isDelete: kind === "deleted" };
}

/**
 * The same unified diff as a whole-text comparison would give, computed only over line windows
 * around known edits (ast_edit knows exactly where it changed a file): a few lines per edit
 * instead of whole files of hundreds of kilobytes. Outside the edits the texts are identical,
 * so a line before an edit has the same number in both texts, and the lines after an edit
 * correspond one to one. Each window carries CONTEXT unchanged lines on both sides; windows
 * that touch are merged, as a whole-text diff merges hunks whose context meets. Returns
 * undefined (whole-text diff) when the edits do not reproduce `after`.
 */
function windowedPatch(
  oldName: string,
  newName: string,
  before: string,
  after: string,
  edits: readonly TextEdit[],
): ReturnType<typeof structuredPatch> | undefined {
  let rebuilt = "";
  let pos = 0;
  for (const e of edits) {
    if (e.start < pos || e.end < e.start || e.end > before.length) return undefined;
    rebuilt += before.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  if (rebuilt.length + before.length - pos !== after.length || rebuilt + before.slice(pos) !== after) return undefined;

  const bStarts = lineStarts(before);
  const aStarts = lineStarts(after);
  const bLines = bStarts.length;
  const aLines = aStarts.length;
  // Windows as [first line, end line) in both texts.
  const windows: Array<{ b0: number; b1: number; a0: number; a1: number }> = [];
  let delta = 0;
  for (const e of edits) {
    const aStart = e.start + delta;
    const aEnd = aStart + e.text.length;
    delta += e.text.length - (e.end - e.start);
    const first = lastAtOrBefore(bStarts, e.start);
    const b0 = Math.max(0, first - CONTEXT);
    const b1 = Math.min(bLines, lastAtOrBefore(bStarts, e.end) + 1 + CONTEXT);
    const a1 = Math.min(aLines, lastAtOrBefore(aStarts, aEnd) + 1 + CONTEXT);
    const last = windows[windows.length - 1];
    if (last && b0 <= last.b1) {
      last.b1 = Math.max(last.b1, b1);
      last.a1 = Math.max(last.a1, a1);
    } else windows.push({ b0, b1, a0: b0 + (lastAtOrBefore(aStarts, aStart) - first), a1 });
  }
  const slice = (text: string, starts: readonly number[], from: number, to: number) => text.slice(starts[from], to < starts.length ? starts[to]! : text.length);
  const hunks: ReturnType<typeof structuredPatch>["hunks"] = [];
  for (const w of windows) {
    const part = boundedPatch(oldName, newName, slice(before, bStarts, w.b0, w.b1), slice(after, aStarts, w.a0, w.a1));
    for (const h of part.hunks) hunks.push({ ...h, oldStart: h.oldStart + w.b0, newStart: h.newStart + w.a0 });
  }
  return { oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks };
}

/** One file's git-style unified diff (`git apply` accepts it) and its added/removed line counts. */
export function oracleFileDiff(change: TextChange): { text: string; additions: number; deletions: number } {
  const patch = computePatch(change);
  let additions = 0;
  let deletions = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
    }
  }
  return { text: formatPatch(patch), additions, deletions };
}
