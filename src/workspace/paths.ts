import { realpathSync } from "node:fs";
import path from "node:path";
import { BlockedError } from "../errors.js";

/** Paths tollgate never writes, whatever the policy says. */
export const ALWAYS_PROTECTED = [".git", ".tollgate"];

export function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** realpath of the deepest existing ancestor, with the missing tail appended. */
function realpathLoose(abs: string): string {
  const tail: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      return path.join(realpathSync.native(cur), ...tail.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return abs;
      tail.push(path.basename(cur));
      cur = parent;
    }
  }
}

/**
 * Containment: maps a user path to an absolute path inside `root` and its workspace-relative
 * POSIX form, or throws BlockedError. Symlinks (of the file or any parent) are resolved, so a
 * link pointing out of the workspace is refused.
 */
export function containPath(root: string, userPath: string): { abs: string; rel: string } {
  if (userPath.includes("\0")) throw new BlockedError(`Path contains a NUL byte: ${JSON.stringify(userPath)}`, [userPath]);
  const realRoot = realpathLoose(path.resolve(root));
  const abs = path.resolve(root, userPath);
  if (!isInside(path.resolve(root), abs) && !isInside(realRoot, abs)) {
    throw new BlockedError(`Path is outside the workspace: ${userPath}`, [userPath]);
  }
  const real = realpathLoose(abs);
  if (!isInside(realRoot, real)) {
    throw new BlockedError(`Path resolves outside the workspace (symlink): ${userPath}`, [userPath]);
  }
  const rel = toPosix(path.relative(isInside(path.resolve(root), abs) ? path.resolve(root) : realRoot, abs)) || ".";
  return { abs, rel };
}

export function isAlwaysProtected(rel: string): boolean {
  const first = rel.split("/")[0]?.toLowerCase();
  return first !== undefined && ALWAYS_PROTECTED.includes(first);
}
