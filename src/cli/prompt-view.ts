// What the approval prompt shows: the diff against each file as it is now (an action applied
// earlier in this run may have changed it), and a summary instead of a diff too long to read.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { FileChange } from "../domain/types.js";
import { sha256 } from "../util/hash.js";
import { applyEdits } from "../workspace/change.js";
import { fileDiff } from "../workspace/diff.js";
import { plural } from "../util/plural.js";

/** Above this many diff lines the prompt shows a per-file summary, not the diff. */
export const MAX_PROMPT_DIFF_LINES = 400;
const MAX_LISTED_FILES = 20;
/** Actions touching more files than this are summarised from their staged counts, files unread. */
const MAX_REREAD_FILES = 200;

function currentText(file: string): string | null | undefined {
  try {
    if (!statSync(file).isFile()) return undefined;
    return readFileSync(file, "utf8");
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

interface PromptView {
  /** The diff to show, or undefined when `summary` replaces it. */
  diff: string | undefined;
  summary: string[];
  notes: string[];
}

/** The view of one action's changes, against the files as they are now under `root`. */
export function promptView(changes: readonly FileChange[], root: string, maxLines = MAX_PROMPT_DIFF_LINES): PromptView {
  const notes: string[] = [];
  const parts: Array<{ path: string; text: string; additions: number; deletions: number; kind: string }> = [];
  for (const change of changes) {
    const staged = () => ({ path: change.path, text: change.diff.text(), additions: change.additions, deletions: change.deletions, kind: change.kind });
    if (changes.length > MAX_REREAD_FILES) {
      parts.push({ ...staged(), text: "" });
      continue;
    }
    const now = currentText(path.join(root, change.path));
    const nowSha = typeof now === "string" ? sha256(now) : now === null ? null : undefined;
    if (nowSha === undefined || nowSha === change.beforeSha256) {
      parts.push(staged());
      continue;
    }
    // The file changed since this action was staged (an earlier action of this run wrote it).
    const edits = typeof now === "string" && change.rebase ? change.rebase(now) : undefined;
    const after = edits && typeof now === "string" ? applyEdits(now, edits) : undefined;
    if (after === undefined || typeof now !== "string") {
      notes.push(`${change.path} changed since this action was staged; applying it re-checks the file (it may be stale)`);
      parts.push(staged());
      continue;
    }
    const d = fileDiff({ path: change.path, before: now, after });
    notes.push(`${change.path}: shown against the file as it is now (changed since this action was staged)`);
    parts.push({ path: change.path, text: d.text, additions: d.additions, deletions: d.deletions, kind: change.kind });
  }
  const diff = parts.map((p) => p.text).join("\n");
  const lines = diff.split("\n").length;
  if (changes.length <= MAX_REREAD_FILES && lines <= maxLines) return { diff, summary: [], notes };
  const add = parts.reduce((n, p) => n + p.additions, 0);
  const del = parts.reduce((n, p) => n + p.deletions, 0);
  const summary = [
    `${plural(parts.length, "file")}, +${add} −${del}: too long to show here${changes.length <= MAX_REREAD_FILES ? ` (${lines} diff lines)` : ""}; the full diff: --patch FILE or --report FILE`,
    ...parts.slice(0, MAX_LISTED_FILES).map((p) => `  ${p.kind.padEnd(8)} ${p.path} (+${p.additions} −${p.deletions})`),
    ...(parts.length > MAX_LISTED_FILES ? [`  … and ${parts.length - MAX_LISTED_FILES} more files`] : []),
  ];
  return { diff: undefined, summary, notes };
}
