import { formatPatch, structuredPatch } from "diff";
import type { ChangeKind, FileChange, TextEdit } from "../domain/types.js";

export type { ChangeKind };

export function changeKind(before: string | null, after: string | null): ChangeKind {
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
  /** The caller made `after` by applying `edits` to `before` (applyEdits): not compared again. */
  applied?: boolean | undefined;
}

function computePatch(change: TextChange): Patch {
  const kind = changeKind(change.before, change.after);
  const oldName = kind === "created" ? "/dev/null" : `a/${change.path}`;
  const newName = kind === "deleted" ? "/dev/null" : `b/${change.path}`;
  const windowed =
    change.edits && change.edits.length > 0 && change.before !== null && change.after !== null
      ? windowedPatch(oldName, newName, change.before, change.after, change.edits, change.applied === true)
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
 * that touch are merged, as a whole-text diff merges hunks whose context meets. A window's hunks
 * are built from its edits' lines (blockHunks) where that diff is the only one possible, else by
 * jsdiff over the window. Returns undefined (whole-text diff) when the edits do not reproduce
 * `after` (checked unless the caller made `after` from them).
 */
function windowedPatch(
  oldName: string,
  newName: string,
  before: string,
  after: string,
  edits: readonly TextEdit[],
  applied: boolean,
): ReturnType<typeof structuredPatch> | undefined {
  if (!applied && !reproduces(before, after, edits)) return undefined;
  const hunks: ReturnType<typeof structuredPatch>["hunks"] = [];
  for (const w of windowsOf(before, edits)) {
    const oldText = before.slice(w.bFrom, w.bTo);
    const newText = after.slice(w.aFrom, w.aTo);
    const part = blockHunks(oldText, newText, w.blocks) ?? boundedPatch(oldName, newName, oldText, newText).hunks;
    for (const h of part) hunks.push({ ...h, oldStart: h.oldStart + w.b0, newStart: h.newStart + w.a0 });
  }
  return { oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks };
}

/** Whether applying `edits` (sorted, non-overlapping) to `before` gives `after`, compared piece by piece. */
function reproduces(before: string, after: string, edits: readonly TextEdit[]): boolean {
  let pos = 0;
  let at = 0;
  const same = (from: number, to: number) => to === from || before.slice(from, to) === after.slice(at, at + to - from);
  for (const e of edits) {
    if (e.start < pos || e.end < e.start || e.end > before.length || !same(pos, e.start)) return false;
    at += e.start - pos;
    if (after.slice(at, at + e.text.length) !== e.text) return false;
    at += e.text.length;
    pos = e.end;
  }
  return after.length - at === before.length - pos && same(pos, before.length);
}

/** Lines [o0, o1) of a window's old text that became lines [n0, n1) of its new text; the lines between such blocks are equal. */
interface Block {
  o0: number;
  o1: number;
  n0: number;
  n1: number;
}

/** A line window: lines [b0, …) of `before` at offsets [bFrom, bTo), lines [a0, …) of `after` at [aFrom, aTo), and its edits' lines. */
interface Window {
  b0: number;
  b1: number;
  a0: number;
  bFrom: number;
  bTo: number;
  aFrom: number;
  aTo: number;
  blocks: Block[];
}

/** Number of LFs in text[from, to). */
function newlines(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Start of the line holding offset `x`. */
function lineStartAt(text: string, x: number): number {
  return x === 0 ? 0 : text.lastIndexOf("\n", x - 1) + 1;
}

/** Start of the line before the one starting at `s` (> 0). */
function previousLineStart(text: string, s: number): number {
  return s >= 2 ? text.lastIndexOf("\n", s - 2) + 1 : 0;
}

/**
 * Where the window's old text ends after an edit whose last line is `last`: the start of line
 * last + 1 + CONTEXT, or the end of the text when it has fewer lines (`b1` is then the number of
 * lines). Found by walking the line ends after the edit, not by indexing the whole text.
 */
function windowEnd(text: string, end: number, last: number): { b1: number; bTo: number } {
  let p = end;
  for (let k = 1; k <= 1 + CONTEXT; k++) {
    const lf = text.indexOf("\n", p);
    if (lf === -1) return { b1: last + k, bTo: text.length };
    p = lf + 1;
  }
  return { b1: last + 1 + CONTEXT, bTo: p };
}

/**
 * The windows of the edits: CONTEXT lines around each edit's lines, merged where they touch.
 * Line numbers and offsets of `after` follow from those of `before` and the edits before: past a
 * window's last edit, line k of `after` is line k - dl of `before`, dc characters on. Only the
 * text between and around the edits is read (line ends counted as the edits go).
 */
function windowsOf(before: string, edits: readonly TextEdit[]): Window[] {
  const windows: Window[] = [];
  // lines and characters `after` has gained over `before` so far
  let dl = 0;
  let dc = 0;
  // the line of offset `pos` of `before`
  let pos = 0;
  let line = 0;
  for (const e of edits) {
    const first = line + newlines(before, pos, e.start);
    const last = first + newlines(before, e.start, e.end);
    pos = e.end;
    line = last;
    const added = newlines(e.text);
    const aFirst = first + dl;
    const b0 = Math.max(0, first - CONTEXT);
    if (!(windows.length > 0 && b0 <= windows[windows.length - 1]!.b1)) {
      let bFrom = lineStartAt(before, e.start);
      for (let k = first; k > b0; k--) bFrom = previousLineStart(before, bFrom);
      windows.push({ b0, b1: 0, a0: b0 + dl, bFrom, bTo: 0, aFrom: bFrom + dc, aTo: 0, blocks: [] });
    }
    const w = windows[windows.length - 1]!;
    dl += added - (last - first);
    dc += e.text.length - (e.end - e.start);
    const { b1, bTo } = windowEnd(before, e.end, last);
    w.b1 = b1;
    w.bTo = bTo;
    w.aTo = bTo + dc;
    addBlock(w.blocks, { o0: first - w.b0, o1: last + 1 - w.b0, n0: aFirst - w.a0, n1: aFirst + added + 1 - w.a0 });
  }
  return windows;
}

/** Adds an edit's lines to a window's blocks; edits that share a line are one block. */
function addBlock(blocks: Block[], b: Block): void {
  const prev = blocks[blocks.length - 1];
  if (prev && b.o0 < prev.o1) {
    prev.o1 = Math.max(prev.o1, b.o1);
    prev.n1 = Math.max(prev.n1, b.n1);
  } else blocks.push(b);
}

/**
 * A window's hunks built from its blocks, as jsdiff would give them, or undefined when another
 * diff of the window is as short (jsdiff's choice among them is its own): each block less the
 * lines it keeps at its ends, adjacent blocks joined, is a removal and an addition; that diff is
 * the only shortest one when no changed line equals an unchanged line of the window and no
 * removed line equals an added one (no other line can then be matched).
 */
export function blockHunks(oldText: string, newText: string, edited: readonly Block[]): StructuredPatch["hunks"] | undefined {
  const b = linesOf(oldText);
  const a = linesOf(newText);
  const blocks: Block[] = [];
  for (const raw of edited) {
    let { o0, n0 } = raw;
    let o1 = Math.min(raw.o1, b.length);
    let n1 = Math.min(raw.n1, a.length);
    for (; o0 < o1 && n0 < n1 && b[o0] === a[n0]; o0++) n0++;
    for (; o1 > o0 && n1 > n0 && b[o1 - 1] === a[n1 - 1]; o1--) n1--;
    if (o0 === o1 && n0 === n1) continue;
    const prev = blocks[blocks.length - 1];
    if (o0 - (prev?.o1 ?? 0) !== n0 - (prev?.n1 ?? 0)) return undefined;
    if (prev && prev.o1 === o0) {
      prev.o1 = o1;
      prev.n1 = n1;
    } else blocks.push({ o0, o1, n0, n1 });
  }
  const tail = blocks[blocks.length - 1];
  if (b.length - (tail?.o1 ?? 0) !== a.length - (tail?.n1 ?? 0)) return undefined;
  if (!onlyDiff(b, a, blocks)) return undefined;
  const parts: Array<{ mark: " " | "-" | "+"; lines: readonly string[] }> = [];
  let o = 0;
  for (const k of blocks) {
    if (k.o0 > o) parts.push({ mark: " ", lines: b.slice(o, k.o0) });
    if (k.o1 > k.o0) parts.push({ mark: "-", lines: b.slice(k.o0, k.o1) });
    if (k.n1 > k.n0) parts.push({ mark: "+", lines: a.slice(k.n0, k.n1) });
    o = k.o1;
  }
  if (o < b.length) parts.push({ mark: " ", lines: b.slice(o) });
  return hunksOf(parts);
}

/** Whether no removed line is added and no changed line equals a kept one (see blockHunks). */
function onlyDiff(b: readonly string[], a: readonly string[], blocks: readonly Block[]): boolean {
  const kept = new Set<string>();
  const removed = new Set<string>();
  let o = 0;
  for (const k of blocks) {
    for (let i = o; i < k.o0; i++) kept.add(b[i]!);
    for (let i = k.o0; i < k.o1; i++) removed.add(b[i]!);
    o = k.o1;
  }
  for (let i = o; i < b.length; i++) kept.add(b[i]!);
  for (const line of removed) if (kept.has(line)) return false;
  for (const k of blocks) for (let i = k.n0; i < k.n1; i++) if (kept.has(a[i]!) || removed.has(a[i]!)) return false;
  return true;
}

/** A hunk line as jsdiff gives it: without its "\n", or followed by the marker when it has none. */
function pushLine(out: string[], mark: string, line: string): void {
  if (line.endsWith("\n")) out.push(mark + line.slice(0, -1));
  else out.push(mark + line, "\\ No newline at end of file");
}

/**
 * jsdiff's hunks (structuredPatch's, context CONTEXT) of a line diff given as its parts in order:
 * kept, removed and added lines (each with its line end). A hunk opens CONTEXT kept lines before
 * a change, runs on over at most 2 × CONTEXT kept lines between changes, and closes CONTEXT kept
 * lines after; its lines lose their "\n", a line without one is marked.
 */
function hunksOf(parts: ReadonlyArray<{ mark: " " | "-" | "+"; lines: readonly string[] }>): StructuredPatch["hunks"] {
  const hunks: StructuredPatch["hunks"] = [];
  const all = [...parts, { mark: " " as const, lines: [] as readonly string[] }];
  let oldStart = 0;
  let newStart = 0;
  let cur: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (let i = 0; i < all.length; i++) {
    const { mark, lines } = all[i]!;
    if (mark !== " ") {
      if (!oldStart) {
        const context = (all[i - 1]?.lines ?? []).slice(-CONTEXT);
        cur = [];
        for (const l of context) pushLine(cur, " ", l);
        oldStart = oldLine - context.length;
        newStart = newLine - context.length;
      }
      for (const l of lines) pushLine(cur, mark, l);
      if (mark === "+") newLine += lines.length;
      else oldLine += lines.length;
      continue;
    }
    if (oldStart && lines.length <= CONTEXT * 2 && i < all.length - 2) for (const l of lines) pushLine(cur, " ", l);
    else if (oldStart) {
      const size = Math.min(lines.length, CONTEXT);
      for (let k = 0; k < size; k++) pushLine(cur, " ", lines[k]!);
      hunks.push({ oldStart, oldLines: oldLine - oldStart + size, newStart, newLines: newLine - newStart + size, lines: cur });
      oldStart = 0;
      newStart = 0;
      cur = [];
    }
    oldLine += lines.length;
    newLine += lines.length;
  }
  return hunks;
}

/** One file's git-style unified diff (`git apply` accepts it) and its added/removed line counts. */
export function fileDiff(change: TextChange): { text: string; additions: number; deletions: number } {
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

/** Git-style unified diff for a set of whole-text changes (files joined as git joins them). */
export function textDiff(changes: readonly TextChange[]): string {
  return changes.map((c) => fileDiff(c).text).join("\n");
}

/** The unified diff of staged changes: their spilled per-file diffs, joined. */
export function gitDiff(changes: ReadonlyArray<Pick<FileChange, "diff">>): string {
  return changes.map((c) => c.diff.text()).join("\n");
}

/** Added and removed line counts of one whole-text change. */
export function lineStats(change: TextChange): { additions: number; deletions: number } {
  const { additions, deletions } = fileDiff(change);
  return { additions, deletions };
}
