/**
 * Rebasing staged edits over this run's own earlier writes. Every change the
 * workspace writes is recorded as edits from one sha256 to the next; a later change staged
 * against an older version of the file is moved over those edits when none of its own edits
 * overlaps one of them. So, resolved in LIFO order, independent edits of several actions to
 * one file all apply, and an edit that does overlap names the action whose write it overlaps.
 * Serves any producer that stages explicit edits (FileChange.edits).
 */
import type { TextEdit } from "../domain/types.js";
import { applyEdits } from "./change.js";

interface WrittenChange {
  beforeSha256: string;
  afterSha256: string;
  edits: readonly TextEdit[];
  /** Id of the action that wrote it (`<step-id>#<n>`), when known. */
  owner?: string | undefined;
}

/** Whether `edits` turn `before` into `after` (they are a hint that may be wrong). */
export function editsReproduce(change: { before: string | null; after: string | null; edits?: readonly TextEdit[] | undefined }): boolean {
  if (!change.edits || change.before === null || change.after === null) return false;
  return applyEdits(change.before, change.edits) === change.after;
}

function overlaps(a: TextEdit, b: TextEdit): boolean {
  if (a.start < b.end && b.start < a.end) return true;
  // two insertions at one point, or an insertion strictly inside a replaced range
  if (a.start === a.end && b.start === b.end) return a.start === b.start;
  if (a.start === a.end) return b.start < a.start && a.start < b.end;
  if (b.start === b.end) return a.start < b.start && b.start < a.end;
  return false;
}

/** Moves `edits` over one earlier write; returns the overlapping earlier edit instead when there is one. */
function over(edits: readonly TextEdit[], earlier: readonly TextEdit[]): { edits: TextEdit[] } | { overlap: TextEdit } {
  const out: TextEdit[] = [];
  for (const e of edits) {
    let delta = 0;
    for (const w of earlier) {
      if (overlaps(e, w)) return { overlap: w };
      if (w.end <= e.start && !(w.start === w.end && w.start === e.start && e.start !== e.end)) delta += w.text.length - (w.end - w.start);
    }
    out.push({ start: e.start + delta, end: e.end + delta, text: e.text });
  }
  return { edits: out };
}

type RebaseResult = { ok: true; edits: TextEdit[] } | { ok: false; overlap?: { owner?: string | undefined } };

/** Per-file history of the writes made through one workspace. */
export class EditLedger {
  readonly #byPath = new Map<string, WrittenChange[]>();

  record(path: string, change: WrittenChange): void {
    const list = this.#byPath.get(path) ?? [];
    list.push(change);
    this.#byPath.set(path, list);
  }

  /** Earlier writes leading from `fromSha` to `toSha`, or undefined when the file changed otherwise. */
  chain(path: string, fromSha: string, toSha: string): WrittenChange[] | undefined {
    const list = this.#byPath.get(path);
    if (!list) return undefined;
    const out: WrittenChange[] = [];
    let cur = fromSha;
    const used = new Set<WrittenChange>();
    while (cur !== toSha) {
      const next = [...list].reverse().find((w) => w.beforeSha256 === cur && !used.has(w));
      if (!next) return undefined;
      used.add(next);
      out.push(next);
      cur = next.afterSha256;
    }
    return out;
  }

  /** `edits` (against the version `fromSha`) moved onto the version `toSha`. */
  rebase(path: string, edits: readonly TextEdit[], fromSha: string, toSha: string): RebaseResult {
    const chain = this.chain(path, fromSha, toSha);
    if (!chain) return { ok: false };
    let cur: TextEdit[] = [...edits];
    for (const w of chain) {
      const r = over(cur, w.edits);
      if ("overlap" in r) return { ok: false, overlap: { owner: w.owner } };
      cur = r.edits;
    }
    return { ok: true, edits: cur };
  }
}
