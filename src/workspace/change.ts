import { isAscii } from "node:buffer";
import type { SpillStore } from "../spill/store.js";
import type { FileChange, StagedDiff, TextEdit } from "../domain/types.js";
import { sha256 } from "../util/hash.js";
import { changeKind, fileDiff } from "./diff.js";

/**
 * `text` with sorted, non-overlapping edits applied, or undefined when they are not (an edit out
 * of range, or one starting before the previous one ended).
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string | undefined {
  let out = "";
  let pos = 0;
  for (const e of edits) {
    if (!(e.start >= pos && e.end >= e.start && e.end <= text.length) || typeof e.text !== "string") return undefined;
    out += text.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  return pos === 0 && edits.length === 0 ? text : out + text.slice(pos);
}

/**
 * applyEdits done on a file's bytes when they are ASCII text (no NUL in the part read for the
 * binary check): UTF-16 offsets are byte offsets then, so the new content is made without
 * decoding the file or encoding the result, byte for byte what the text path writes. Undefined
 * for any other file or for edits that do not fit: the text path then decides.
 */
export function applyEditsToAscii(bytes: Uint8Array, edits: readonly TextEdit[]): Buffer | undefined {
  if (!isAscii(bytes) || bytes.subarray(0, 8000).includes(0)) return undefined;
  const parts: Uint8Array[] = [];
  let pos = 0;
  for (const e of edits) {
    if (!(e.start >= pos && e.end >= e.start && e.end <= bytes.length) || typeof e.text !== "string") return undefined;
    parts.push(bytes.subarray(pos, e.start), Buffer.from(e.text, "utf8"));
    pos = e.end;
  }
  parts.push(bytes.subarray(pos));
  return Buffer.concat(parts);
}

/**
 * The one edit that turns `before` into `after`: the span between their common prefix and
 * suffix. How whole contents (`write`, `pi.files.stage`) become edits, so a staged change keeps
 * only what differs.
 */
export function editBetween(before: string, after: string): TextEdit[] {
  if (before === after) return [];
  const max = Math.min(before.length, after.length);
  let head = 0;
  while (head < max && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < max - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  // never split a surrogate pair (the edit's text must be valid UTF-16 on its own)
  if (head > 0 && isHighSurrogate(before.charCodeAt(head - 1))) head--;
  if (tail > 0 && isLowSurrogate(before.charCodeAt(before.length - tail))) tail--;
  return [{ start: head, end: before.length - tail, text: after.slice(head, after.length - tail) }];
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** What buildChange is given: the texts in hand at staging or apply time and the edits between them. */
interface ChangeInput {
  path: string;
  before: string | null;
  beforeSha256: string | null;
  after: string | null;
  edits: readonly TextEdit[];
  rebase?: FileChange["rebase"];
  movable?: boolean;
  /** `after` is applyEdits(before, edits). */
  applied?: boolean;
}

/** The parts of a change derived from its texts: the after hash, the line counts and the diff. */
export function stagedDiff(input: ChangeInput): StagedDiff {
  const { path, before, after, edits } = input;
  const d = fileDiff({ path, before, after, edits: before !== null && after !== null ? edits : undefined, applied: input.applied });
  return { afterSha256: after === null ? null : sha256(after), additions: d.additions, deletions: d.deletions, diff: d.text };
}

/**
 * A FileChange from the texts in hand at staging or apply time: the hashes, the edits, the line
 * counts and the diff (spilled). `before`/`after` are released by the caller afterwards; the
 * change keeps neither. `derived` is stagedDiff(input) when the caller has it already.
 */
export function buildChange(spill: SpillStore, input: ChangeInput, derived: StagedDiff = stagedDiff(input)): FileChange {
  const { path, before, after, edits } = input;
  return {
    path,
    kind: changeKind(before, after),
    beforeSha256: input.beforeSha256,
    afterSha256: derived.afterSha256,
    edits: after === null ? [] : edits,
    additions: derived.additions,
    deletions: derived.deletions,
    ...(input.movable ? { movable: true } : {}),
    diff: spill.put(derived.diff),
    ...(input.rebase ? { rebase: input.rebase } : {}),
  };
}
