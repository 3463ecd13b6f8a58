import { createHash } from "node:crypto";

/** Restricts which files tools see: pre-commit's positional files and `--shard i/n`. */
export interface FileScope {
  /** Workspace-relative POSIX paths; when set, tools consider only these files. */
  files?: string[];
  shard?: { index: number; count: number };
  /**
   * Workspace-relative paths no tool should treat as input: tollgate's own output files
   * (`--report`, `--patch`, `--summary`, `--out`, the plan being applied), which users often
   * write inside the workspace and which a later run must not rewrite or count as sources.
   */
  exclude?: string[];
}

/**
 * The shard (1-based) that owns a workspace-relative path: a hash of the path, so the partition
 * is the same on every machine and independent of which other files exist (SPEC 7).
 */
export function shardOf(rel: string, count: number): number {
  const digest = createHash("sha1").update(rel).digest();
  return (digest.readUInt32BE(0) % count) + 1;
}

/**
 * Why a file a step names explicitly (edit, write) lies outside the run's scope, or undefined
 * when it is inside. Positional files and `--shard i/n` restrict every tool (SPEC 5, 7), not
 * only the ones that discover files: a pre-commit check must not stage an edit of a file that
 * is not being committed, and each shard must own a disjoint set of files (merged shard reports
 * would otherwise hold the same change once per shard).
 */
export function outsideScope(scope: FileScope, rel: string): string | undefined {
  if (scope.files !== undefined && !scope.files.includes(rel)) return `${rel} is not among the run's files`;
  if (scope.shard) {
    const owner = shardOf(rel, scope.shard.count);
    if (owner !== scope.shard.index) return `${rel} belongs to shard ${owner}/${scope.shard.count}`;
  }
  return undefined;
}
