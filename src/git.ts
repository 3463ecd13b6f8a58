import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * tollgate's own git queries (file discovery, the report's HEAD and dirty flag) go through
 * node's execFile rather than execa: they need nothing execa adds, and not loading it keeps
 * a run without exec steps faster to start.
 */

/** Whether a `.git` (directory or file) exists at or above root; git itself has the last word. */
export function insideGitWorkTree(root: string): boolean {
  if (process.env.GIT_DIR) return true;
  let cur = path.resolve(root);
  for (;;) {
    if (existsSync(path.join(cur, ".git"))) return true;
    const parent = path.dirname(cur);
    if (parent === cur) return false;
    cur = parent;
  }
}

/** stdout of `git <args>` in root, or null when git fails, is missing or exceeds `timeout` (killed). */
export function runGit(root: string, args: string[], timeout?: number): Promise<string | null>;
export function runGit(root: string, args: string[], timeout: number, encoding: "buffer"): Promise<Buffer | null>;
export function runGit(root: string, args: string[], timeout = 0, encoding?: "buffer"): Promise<string | Buffer | null> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd: root, maxBuffer: 512 * 1024 * 1024, encoding: "buffer", timeout, killSignal: "SIGKILL" }, (err, stdout) => {
      if (err) resolve(null);
      else resolve(encoding === "buffer" ? stdout : stdout.toString("utf8"));
    });
  });
}

/** HEAD and whether tracked files differ from it; nulls outside a work tree. */
export async function gitState(root: string): Promise<{ head: string | null; dirty: boolean | null }> {
  if (!insideGitWorkTree(root)) return { head: null, dirty: null };
  const head = await runGit(root, ["rev-parse", "HEAD"], 5000);
  if (head === null) return { head: null, dirty: null };
  const status = await runGit(root, ["status", "--porcelain", "--untracked-files=no"], 10000);
  return { head: head.trim(), dirty: status === null ? null : status.trim().length > 0 };
}

/** The work tree's top-level directory (for repository-relative paths), or null outside one. */
export async function gitTopLevel(root: string): Promise<string | null> {
  if (!insideGitWorkTree(root)) return null;
  const out = await runGit(root, ["rev-parse", "--show-toplevel"], 5000);
  return out === null ? null : out.trim();
}
