import { applyPatch, structuredPatch } from "diff";
import type { FileChange } from "../session/types.js";
import { gitDiff } from "../workspace/diff.js";
import type { Report } from "./types.js";

/** An unapplied preview (dry-run, pending-approval) with its exact file changes. */
export interface Preview {
  id: string;
  changes: ReadonlyArray<Pick<FileChange, "path" | "before" | "after">>;
}

export interface CombinedPatch {
  patch: string;
  /** Changes left out because they no longer fit the file after the previews before them. */
  skipped: Array<{ id: string; path: string }>;
}

/**
 * One git patch for all unapplied previews, against the files as they are after the run (what
 * the user has on disk, so `git apply` works there). Previews are combined per file in push
 * order: a change staged against the same text is taken as is, one staged against an older text
 * is re-applied as a patch (independent hunks compose; context may differ, removed lines must match); a change that cannot be fitted is left
 * out and listed in `skipped`, so the patch always applies.
 */
export function combinePreviews(previews: readonly Preview[], current: (path: string) => string | null): CombinedPatch {
  const byPath = new Map<string, Array<{ id: string; change: Preview["changes"][number] }>>();
  for (const p of previews) {
    for (const change of p.changes) {
      const list = byPath.get(change.path) ?? [];
      list.push({ id: p.id, change });
      byPath.set(change.path, list);
    }
  }
  const skipped: CombinedPatch["skipped"] = [];
  const out: Array<{ path: string; before: string | null; after: string | null }> = [];
  for (const path of [...byPath.keys()].sort()) {
    const base = current(path);
    let text = base;
    for (const { id, change } of byPath.get(path)!) {
      if (change.before === text) {
        text = change.after;
        continue;
      }
      if (text !== null && change.before !== null && change.after !== null) {
        const next = applyPatch(text, structuredPatch(path, path, change.before, change.after, undefined, undefined, { context: 3 }), { fuzzFactor: 2 });
        if (next !== false) {
          text = next;
          continue;
        }
      }
      skipped.push({ id, path });
    }
    if (text !== base) out.push({ path, before: base, after: text });
  }
  return { patch: gitDiff(out), skipped };
}

// The previews of a report, kept beside it (not in the JSON: they hold whole file texts) so every
// command that runs executeRun and writeOutputs gets `--patch` without passing them around.
const previewsOf = new WeakMap<Report, Preview[]>();

export function attachPreviews(report: Report, previews: Preview[]): void {
  previewsOf.set(report, previews);
}

export function previewsFor(report: Report): Preview[] {
  return previewsOf.get(report) ?? [];
}
