import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Env } from "./process-host.js";

/**
 * tollgate's own git queries (file discovery, the report's HEAD and dirty flag) go through
 * node's execFile rather than execa: they need nothing execa adds, and not loading it keeps
 * a run without exec steps faster to start. `env` is the environment git runs with (it inherits
 * the process's): git's own variables there (GIT_DIR) decide where the repository is.
 */

/** Whether a `.git` (directory or file) exists at or above root, or GIT_DIR names one; git itself has the last word. */
export function insideGitWorkTree(root: string, env: Env): boolean {
  if (env.GIT_DIR) return true;
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
export async function gitState(root: string, env: Env): Promise<{ head: string | null; dirty: boolean | null }> {
  if (!insideGitWorkTree(root, env)) return { head: null, dirty: null };
  // One git process for both (a pre-commit hook pays for every spawn): porcelain v2's header
  // names the commit, and every other line is a changed tracked path.
  const status = await runGit(root, ["status", "--porcelain=v2", "--branch", "--untracked-files=no"], 10000);
  const lines = status === null ? [] : status.split("\n").filter((l) => l !== "");
  const oid = lines.find((l) => l.startsWith("# branch.oid "))?.slice("# branch.oid ".length);
  if (oid === undefined || !/^[0-9a-f]{40,64}$/.test(oid)) return { head: null, dirty: null };
  return { head: oid, dirty: lines.some((l) => !l.startsWith("#")) };
}

/** The work tree's top-level directory (for repository-relative paths), or null outside one. */
export async function gitTopLevel(root: string, env: Env): Promise<string | null> {
  if (!insideGitWorkTree(root, env)) return null;
  const out = await runGit(root, ["rev-parse", "--show-toplevel"], 5000);
  return out === null ? null : out.trim();
}

/** Why a `--changed-since` reference cannot be resolved; the CLI shows it with a hint (exit 2). */
export class ChangedSinceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChangedSinceError";
  }
}

/** A path that differs between a commit and the working tree, relative to the top level. */
interface ChangedPath {
  path: string;
  /** true when the working tree no longer has it (deleted, or the old side of a rename). */
  deleted: boolean;
}

/** What `--changed-since REF` resolved to: the merge-base and every changed path. */
export interface ChangeSet {
  /** The merge-base commit (full hash). */
  base: string;
  /** The work tree's top level (real path): `paths` are relative to it. */
  top: string;
  paths: ChangedPath[];
}

const GIT_TIMEOUT = 60_000;

/** `git merge-base REF HEAD`, or `base` itself when `exact` (apply reuses a plan's merge-base). */
async function mergeBase(root: string, ref: string, exact: boolean): Promise<string> {
  if (ref.startsWith("-")) throw new ChangedSinceError(`--changed-since ${ref}: not a git revision`);
  const commit = await runGit(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], GIT_TIMEOUT);
  if (commit === null) throw new ChangedSinceError(`--changed-since ${ref}: unknown revision in this repository`);
  if (exact) return commit.trim();
  const base = await runGit(root, ["merge-base", commit.trim(), "HEAD"], GIT_TIMEOUT);
  if (base === null) throw new ChangedSinceError(`--changed-since ${ref}: no merge-base with HEAD (the history between them is missing or unrelated)`);
  return base.trim();
}

/** NUL-separated git output as a list (the last, empty field dropped). */
const fields = (out: string): string[] => out.split("\0").filter((f) => f !== "");

/**
 * The files that differ between `git merge-base REF HEAD` and the working tree, with untracked
 * files that git does not ignore. Renames are listed as a deletion and an addition (the new path
 * is what tools see); submodules are left out (their commits are not files of this tree; an
 * untracked nested repository is listed by git as a directory and skipped). Paths are relative to
 * the top level; callers relativise them to the workspace.
 */
export async function changedSince(root: string, ref: string, options: { exact?: boolean; env: Env }): Promise<ChangeSet> {
  if (!insideGitWorkTree(root, options.env)) throw new ChangedSinceError(`--changed-since ${ref}: ${root} is not inside a git repository`);
  const topOut = await runGit(root, ["rev-parse", "--show-toplevel"], GIT_TIMEOUT);
  if (topOut === null) throw new ChangedSinceError(`--changed-since ${ref}: ${root} is not inside a git work tree`);
  const top = topOut.trim();
  const base = await mergeBase(root, ref, options.exact === true);
  const diff = await runGit(
    top,
    ["-c", "core.quotePath=false", "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", "--ignore-submodules=all", base, "--"],
    GIT_TIMEOUT,
  );
  const untracked = await runGit(top, ["ls-files", "--others", "--exclude-standard", "-z"], GIT_TIMEOUT);
  if (diff === null || untracked === null) throw new ChangedSinceError(`--changed-since ${ref}: git could not list the changes since ${base}`);
  const paths: ChangedPath[] = [];
  const f = fields(diff);
  for (let i = 0; i + 1 < f.length; i += 2) paths.push({ path: f[i + 1]!, deleted: f[i]!.startsWith("D") });
  for (const p of fields(untracked)) if (!p.endsWith("/")) paths.push({ path: p, deleted: false });
  return { base, top, paths };
}
