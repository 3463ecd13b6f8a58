import { createHash } from "node:crypto";

/** Restricts which files tools see: pre-commit's positional files, `--changed-since` and `--shard i/n`. */
export interface FileScope {
  /** Workspace-relative POSIX paths named on the command line; when set, tools consider only these files. */
  files?: string[];
  /** `--changed-since REF`: tools consider only the files changed since the merge-base (with `files`: both). */
  changed?: ChangedScope;
  shard?: { index: number; count: number };
  /**
   * Workspace-relative paths no tool should treat as input: tollgate's own output files
   * (`--report`, `--patch`, `--summary`, `--out`, the plan being applied), which users often
   * write inside the workspace and which a later run must not rewrite or count as sources.
   */
  exclude?: string[];
}

/** The files changed since a merge-base, as `--changed-since REF` resolved them. */
export interface ChangedScope {
  ref: string;
  /** The merge-base commit the set was computed from (`plan` records it, `apply` reuses it). */
  base: string;
  /**
   * Workspace-relative POSIX paths changed since `base` (deleted files left out), or null when
   * every file is in scope: the recipe, the policy or a file the recipe uses changed (`inputs`).
   */
  files: string[] | null;
  /** The recipe's own inputs that changed since `base` (why `files` is null). */
  inputs?: string[];
}

/**
 * The files tools are restricted to (before the shard): the named files, the changed files, or
 * both's intersection; undefined when neither restricts the run.
 */
export function scopeFiles(scope: FileScope | undefined): string[] | undefined {
  const changed = scope?.changed?.files ?? undefined;
  if (changed === undefined) return scope?.files;
  if (scope?.files === undefined) return changed;
  const named = new Set(scope.files);
  return changed.filter((f) => named.has(f));
}

/**
 * The shard (1-based) that owns a workspace-relative path: a hash of the path, so the partition
 * is the same on every machine and independent of which other files exist.
 */
export function shardOf(rel: string, count: number): number {
  const digest = createHash("sha1").update(rel).digest();
  return (digest.readUInt32BE(0) % count) + 1;
}

/**
 * Why a file a step names explicitly (edit, write) lies outside the run's scope, or undefined
 * when it is inside. Positional files and `--shard i/n` restrict every tool, not
 * only the ones that discover files: a pre-commit check must not stage an edit of a file that
 * is not being committed, and each shard must own a disjoint set of files (merged shard reports
 * would otherwise hold the same change once per shard).
 */
export function outsideScope(scope: FileScope, rel: string): string | undefined {
  if (scope.files !== undefined && !scope.files.includes(rel)) return `${rel} is not among the run's files`;
  if (scope.changed?.files && !scope.changed.files.includes(rel)) return `${rel} has not changed since ${scope.changed.ref}`;
  if (scope.shard) {
    const owner = shardOf(rel, scope.shard.count);
    if (owner !== scope.shard.index) return `${rel} belongs to shard ${owner}/${scope.shard.count}`;
  }
  return undefined;
}
