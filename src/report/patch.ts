import { applyPatch, parsePatch } from "diff";
import type { ChangeKind, TextEdit } from "../domain/types.js";
import { sha256 } from "../util/hash.js";
import { applyEdits } from "../workspace/change.js";
import { fileDiff } from "../workspace/diff.js";

/** One file of an unapplied preview: what it was staged against, and how it changes it. */
export interface PreviewFile {
  path: string;
  kind: ChangeKind;
  beforeSha256: string | null;
  /** Exact edits against the text whose hash is `beforeSha256`, when known. */
  edits?: readonly TextEdit[];
  /** This file's unified diff (read when the file moved since staging, to fit it as a patch). */
  diff: { text(): string };
}

/** An unapplied preview (dry-run, pending-approval), in push order. */
export interface Preview {
  id: string;
  files: readonly PreviewFile[];
}

/**
 * The new text of one file after a preview, or false when the preview cannot be fitted. A file
 * still as staged takes the change exactly; one that moved (an earlier preview of the same
 * file, or a write since) gets the diff re-applied as a patch (independent hunks compose;
 * context may differ, removed lines must match).
 */
function fit(text: string | null, file: PreviewFile): string | null | false {
  const asStaged = (text === null ? null : sha256(text)) === file.beforeSha256;
  if (asStaged) {
    if (file.kind === "deleted") return null;
    if (file.edits) return applyEdits(text ?? "", file.edits) ?? false;
    const [patch] = parsePatch(file.diff.text());
    return patch ? applyPatch(text ?? "", patch) : false;
  }
  if (text === null || file.kind !== "modified") return false;
  const [patch] = parsePatch(file.diff.text());
  return patch ? applyPatch(text, patch, { fuzzFactor: 2 }) : false;
}

/**
 * One git patch for all unapplied previews, against the files as they are after the run (what
 * the user has on disk, so `git apply` works there), written piece by piece: previews are
 * combined per file in push order, one file's texts in hand at a time. A change that cannot be
 * fitted is left out and reported to `onSkipped`, so the patch always applies.
 */
export async function writeCombinedPatch(
  previews: readonly Preview[],
  current: (path: string) => string | null,
  write: (chunk: string) => Promise<void> | void,
  onSkipped: (skipped: { id: string; path: string }) => void = () => {},
): Promise<void> {
  const byPath = new Map<string, Array<{ id: string; file: PreviewFile }>>();
  for (const p of previews) {
    for (const file of p.files) {
      const list = byPath.get(file.path) ?? [];
      list.push({ id: p.id, file });
      byPath.set(file.path, list);
    }
  }
  let first = true;
  for (const path of [...byPath.keys()].sort()) {
    const base = current(path);
    const entries = byPath.get(path)!;
    const lone = entries.length === 1 ? entries[0]!.file : undefined;
    if (lone && !lone.edits && (base === null ? null : sha256(base)) === lone.beforeSha256) {
      // Known only by its diff (merge-reports) and the file is as it was staged: that diff is this
      // file's patch, computed at staging; fitting and diffing again costs a whole-text diff.
      await write(`${first ? "" : "\n"}${lone.diff.text()}`);
      first = false;
      continue;
    }
    let text = base;
    for (const { id, file } of entries) {
      const next = fit(text, file);
      if (next === false) onSkipped({ id, path });
      else text = next;
    }
    if (text === base) continue;
    // One preview taken exactly: its edits say where the file changed (a windowed diff).
    const only = entries.length === 1 ? entries[0]!.file : undefined;
    const edits = only?.edits && base !== null && text !== null && sha256(base) === only.beforeSha256 ? only.edits : undefined;
    await write(`${first ? "" : "\n"}${fileDiff({ path, before: base, after: text, edits }).text}`);
    first = false;
  }
}

/** The same patch as one string (tests, small runs). */
export async function combinePreviews(
  previews: readonly Preview[],
  current: (path: string) => string | null,
): Promise<{ patch: string; skipped: Array<{ id: string; path: string }> }> {
  let patch = "";
  const skipped: Array<{ id: string; path: string }> = [];
  await writeCombinedPatch(
    previews,
    current,
    (chunk) => void (patch += chunk),
    (s) => skipped.push(s),
  );
  return { patch, skipped };
}
