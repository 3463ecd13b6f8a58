import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { BlockedError } from "../errors.js";
import { isInside, toPosix } from "../util/inside.js";
import { STATE_DIR } from "../util/state-dir.js";

/**
 * realpath of the deepest existing ancestor, with the missing tail appended. A component of the
 * tail that exists as a symlink whose target is missing (a dangling link) is reported, since
 * writing through it could create a file wherever it points.
 */
function realpathLoose(abs: string): { real: string; dangling?: string } {
  const tail: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      return { real: path.join(realpathSync.native(cur), ...[...tail].reverse()) };
    } catch {
      let isLink = false;
      try {
        isLink = lstatSync(cur).isSymbolicLink();
      } catch {
        // missing: keep walking up
      }
      if (isLink) return { real: cur, dangling: cur };
      const parent = path.dirname(cur);
      if (parent === cur) return { real: abs };
      tail.push(path.basename(cur));
      cur = parent;
    }
  }
}

/** realpath of a workspace root (the tree view keeps it: roots do not move during a run). */
export function realRoot(root: string): string {
  return realpathLoose(path.resolve(root)).real;
}

/**
 * Whether the filesystem holding `root` ignores case (macOS, Windows defaults): the root path
 * with its letters' case swapped names the same directory.
 */
export function isCaseInsensitiveFs(root: string): boolean {
  const real = realRoot(root);
  const swapped = Array.from(real)
    .map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()))
    .join("");
  return swapped !== real && existsSync(swapped);
}

export interface Contained {
  /** Absolute path as the user named it (inside the root). */
  abs: string;
  /** Workspace-relative POSIX path as the user named it. */
  rel: string;
  /** Absolute path after resolving symlinks: where reads and writes really go. */
  real: string;
  /** `real` relative to the real root (POSIX). */
  realRel: string;
}

/**
 * Containment: maps a user path to where it really is inside `root`, or throws
 * BlockedError. Refused: NUL bytes, `..` or absolute paths leading out, symlinks (the file or
 * any parent) resolving outside the root, dangling symlinks, and the root itself. `rroot` is
 * the root's realpath, when the caller keeps it.
 */
export function containPath(root: string, userPath: string, rroot = realRoot(root)): Contained {
  if (typeof userPath !== "string" || userPath.length === 0) {
    throw new BlockedError(`Path is empty`, [String(userPath)]);
  }
  if (userPath.includes("\0")) throw new BlockedError(`Path contains a NUL byte: ${JSON.stringify(userPath)}`, [userPath]);
  const base = path.resolve(root);
  const abs = path.resolve(base, userPath);
  const insideBase = isInside(base, abs);
  if (!insideBase && !isInside(rroot, abs)) {
    throw new BlockedError(`Path is outside the workspace: ${userPath}`, [userPath]);
  }
  const rel = toPosix(path.relative(insideBase ? base : rroot, abs));
  if (rel === "") throw new BlockedError(`Path is the workspace root itself: ${userPath}`, [userPath]);
  const { real, dangling } = realpathLoose(abs);
  if (dangling !== undefined) {
    throw new BlockedError(`Path goes through a dangling symlink (${toPosix(path.relative(base, dangling))}): ${userPath}`, [userPath]);
  }
  if (!isInside(rroot, real) || real === rroot) {
    throw new BlockedError(`Path resolves outside the workspace (symlink): ${userPath}`, [userPath]);
  }
  return { abs, rel, real, realRel: toPosix(path.relative(rroot, real)) };
}

/**
 * `.git` and `.tollgate` at any depth (submodules, nested repos), matched without regard to
 * case and to the trailing dots/spaces and 8.3 short names that Windows filesystems ignore.
 */
export function isAlwaysProtected(rel: string): boolean {
  for (const raw of rel.split("/")) {
    const seg = raw.toLowerCase().replace(/[. ]+$/, "");
    if (seg === ".git" || seg === STATE_DIR || seg === "git~1" || seg === "tollga~1") return true;
  }
  return false;
}
