import { formatPatch, structuredPatch } from "diff";
import type { FileChange } from "../session/types.js";

export type ChangeKind = "modified" | "created" | "deleted";

export function changeKind(change: Pick<FileChange, "before" | "after">): ChangeKind {
  if (change.before === null) return "created";
  if (change.after === null) return "deleted";
  return "modified";
}

type Patch = ReturnType<typeof structuredPatch> & { isGit: true; isCreate: boolean; isDelete: boolean };

/**
 * The last patch computed for a change object, reused while its path and texts are the same
 * (the runner asks for the diff and the line stats of the same change: one diff, not two).
 */
const memo = new WeakMap<object, { path: string; before: string | null; after: string | null; patch: Patch }>();

function patchOf(change: Pick<FileChange, "path" | "before" | "after">): Patch {
  const hit = memo.get(change);
  if (hit && hit.path === change.path && hit.before === change.before && hit.after === change.after) return hit.patch;
  const patch = computePatch(change);
  memo.set(change, { path: change.path, before: change.before, after: change.after, patch });
  return patch;
}

function computePatch(change: Pick<FileChange, "path" | "before" | "after">): Patch {
  const kind = changeKind(change);
  const oldName = kind === "created" ? "/dev/null" : `a/${change.path}`;
  const newName = kind === "deleted" ? "/dev/null" : `b/${change.path}`;
  const p = structuredPatch(oldName, newName, change.before ?? "", change.after ?? "", undefined, undefined, { context: 3 });
  return { ...p, isGit: true, isCreate: kind === "created", isDelete: kind === "deleted" };
}

/** Git-style unified diff (`git apply` accepts it) for a set of file changes. */
export function gitDiff(changes: ReadonlyArray<Pick<FileChange, "path" | "before" | "after">>): string {
  if (changes.length === 0) return "";
  return formatPatch(changes.map(patchOf) as never);
}

/** Added and removed line counts of one change. */
export function lineStats(change: Pick<FileChange, "path" | "before" | "after">): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const hunk of patchOf(change).hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
    }
  }
  return { additions, deletions };
}
