import path from "node:path";

/** `p` with POSIX separators: how tollgate writes a path it shows or stores. */
export function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

/**
 * Whether `target` is `root` or lies under it, lexically (no symlinks resolved). A name that
 * merely starts with two dots (`..foo`) is inside; only a first segment that is exactly `..`
 * leads out. Both paths are resolved against the process cwd first.
 */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * `target` relative to `root` with POSIX separators when it lies strictly inside, else
 * undefined (outside, or the root itself).
 */
export function relativeInside(root: string, target: string): string | undefined {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  if (rel === "" || !isInside(root, target)) return undefined;
  return toPosix(rel);
}

/**
 * How a file is named in messages: relative to `base` (POSIX separators) when it lies inside,
 * `.` for `base` itself, else `file` as given (an absolute path stays absolute).
 */
export function displayPath(file: string, base: string): string {
  if (path.resolve(base) === path.resolve(file)) return ".";
  return relativeInside(base, file) ?? file;
}

/** The same test for a workspace-relative POSIX path (journal entries, plan paths). */
export function isContainedPosix(rel: string): boolean {
  const norm = path.posix.normalize(rel);
  return norm !== "." && norm !== ".." && !norm.startsWith("../") && !path.posix.isAbsolute(norm);
}
