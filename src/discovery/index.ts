/**
 * Candidate files for the built-in tools: a `path` (file, directory or glob; comma
 * lists accepted), an optional `glob` filter relative to it, `.gitignore` honoured (git's own
 * rules inside a git work tree, a directory walk + `ignore` otherwise), `.git`, `.tollgate` and
 * `node_modules` always skipped, the run's file scope (positional files, `--shard i/n`)
 * applied, output sorted. Paths are workspace-relative POSIX paths.
 */
import { lstatSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { ToolError } from "../errors.js";
import { insideGitWorkTree, runGit } from "../git.js";
import { scopeFiles as restrictedFiles, shardOf, type FileScope } from "../scope.js";
import { containPath } from "../workspace/paths.js";
import { toPosix } from "../util/inside.js";
import { kindOf, readRegularFileSync } from "../util/regular.js";
import { assertGlobBounded } from "../policy/glob.js";
import { messageOf } from "../util/thrown.js";
import { STATE_DIR } from "../util/state-dir.js";
import type { Env } from "../process-host.js";

/** Directory names never entered, whatever the ignore files say. */
const ALWAYS_SKIPPED_DIRS = [".git", STATE_DIR, "node_modules"];

interface DiscoverOptions {
  /** Workspace root (absolute). */
  root: string;
  /** File, directory or glob, relative to the root; comma-separated lists allowed. Default ".". */
  path?: string | undefined;
  /** Glob filter relative to `path`. */
  glob?: string | undefined;
  /** Positional files / shard restriction of the run. */
  scope?: FileScope | undefined;
  /** Keep only files this predicate accepts (extension filters); applied before sharding. */
  accept?: ((rel: string) => boolean) | undefined;
  /** How long `git ls-files` may take before the tree is walked instead (default 15 s: a FIFO .gitignore blocks git). */
  gitTimeoutMs?: number | undefined;
  /** The environment git runs with: GIT_DIR there makes the tree a repository to ask (absent: no git variables set). */
  env?: Env | undefined;
}

interface DiscoveredFile {
  /** Workspace-relative POSIX path. */
  rel: string;
  abs: string;
  size: number;
}

export interface Discovery {
  /** The scope as the user named it, relative to the root (`.` for the root). */
  scopePath: string;
  /** Workspace-relative directory display paths are relative to (`.` for the root). */
  baseDir: string;
  /** True when the scope is exactly one file (displays drop directory headers). */
  singleFile: boolean;
  files: DiscoveredFile[];
  /** How the listing was made. */
  source: "git" | "walk" | "explicit";
  /**
   * Files left out that the user should hear of: FIFOs, devices and sockets (never
   * read: they block or never end), names that are not valid UTF-8, ignore files not read.
   */
  skipped: SkippedEntry[];
}

interface SkippedEntry {
  rel: string;
  message: string;
}

const GIT_LIST_TIMEOUT_MS = 15_000;

const NOT_UTF8_NAME = "its name is not valid UTF-8 (left out: tools work on UTF-8 paths)";

interface ScopeEntry {
  /** Workspace-relative base (file or directory). */
  base: string;
  /** Glob relative to base, if the entry carried one. */
  glob?: string;
  kind: "file" | "dir";
}

const GLOB_CHARS = /[*?[\]{}!]/;

function stripQuotes(p: string): string {
  const t = p.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    return t.slice(1, -1);
  }
  return t;
}

/** Splits a glob-bearing path into its literal directory prefix and the glob rest. */
function splitGlob(p: string): { base: string; glob?: string } {
  const parts = toPosix(p).split("/");
  const idx = parts.findIndex((part) => GLOB_CHARS.test(part));
  if (idx === -1) return { base: p };
  return { base: parts.slice(0, idx).join("/") || ".", glob: parts.slice(idx).join("/") };
}

function isSkippedRel(rel: string): boolean {
  if (rel === "." || rel === "") return false;
  return rel.split("/").some((seg) => ALWAYS_SKIPPED_DIRS.includes(seg));
}

export { shardOf };

function globFilter(glob: string): (rel: string) => boolean {
  try {
    assertGlobBounded(glob);
  } catch (err) {
    throw new ToolError(messageOf(err));
  }
  const matcher = picomatch(glob, { dot: true, basename: !glob.includes("/") });
  return (rel) => matcher(rel);
}

/**
 * Containment for a scope or working directory: like the workspace's, but the root itself is
 * allowed (it is where a search starts, not a file to write).
 */
export function containScope(root: string, userPath: string): { rel: string; abs: string } {
  const base = path.resolve(root);
  if (path.resolve(base, userPath) === base) return { rel: ".", abs: base };
  const { rel, real } = containPath(base, userPath);
  return { rel, abs: real };
}

function resolveScope(root: string, userPath: string | undefined): { entries: ScopeEntry[]; scopePath: string } {
  const raw = userPath === undefined || userPath.trim() === "" ? "." : userPath;
  const pieces = splitCommas(raw);
  const entries: ScopeEntry[] = [];
  const names: string[] = [];
  for (const piece of pieces.map(stripQuotes).filter((p) => p.length > 0)) {
    const { base, glob } = splitGlob(piece);
    let rel: string;
    let abs: string;
    try {
      ({ rel, abs } = containScope(root, base));
    } catch (err) {
      throw new ToolError(messageOf(err));
    }
    names.push(glob ? (rel === "." ? glob : `${rel}/${glob}`) : rel);
    let st;
    try {
      st = statSync(abs);
    } catch {
      throw new ToolError(`Path not found: ${glob ? `${rel}/${glob}`.replace(/^\.\//, "") : rel}`);
    }
    if (st.isFile()) {
      if (glob) throw new ToolError(`Path not found: ${rel}/${glob}`);
      entries.push({ base: rel, kind: "file" });
    } else if (st.isDirectory()) {
      entries.push({ base: rel, kind: "dir", ...(glob ? { glob } : {}) });
    } else {
      throw new ToolError(`Not a regular file: ${rel} is ${kindOf(st)}; only regular files are read`);
    }
  }
  if (entries.length === 0) throw new ToolError(`Path not found: ${raw}`);
  return { entries, scopePath: names.join(",") };
}

/** Splits a comma list, leaving commas inside `{...}` (brace globs) alone. */
function splitCommas(raw: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of raw) {
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function commonDir(dirs: string[]): string {
  if (dirs.length === 0) return ".";
  const split = dirs.map((d) => (d === "." ? [] : d.split("/")));
  const first = split[0]!;
  let n = first.length;
  for (const s of split.slice(1)) {
    let i = 0;
    while (i < n && i < s.length && s[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join("/") || ".";
}

/**
 * `git ls-files` of the whole root (tracked + untracked-not-ignored), or null outside a work tree
 * or when git fails or does not finish in time (then the walk lists the files). Names that are not
 * valid UTF-8 are reported in `skipped`, not mangled into paths that do not exist.
 */
async function gitList(root: string, dirs: string[], skipped: SkippedEntry[], plan: Pick<ScopePlan, "gitTimeoutMs" | "env">): Promise<string[] | null> {
  const timeoutMs = plan.gitTimeoutMs;
  if (!insideGitWorkTree(root, plan.env)) return null; // spares a process spawn outside repositories
  const specs = dirs.includes(".") ? ["."] : dirs;
  const out = await runGit(
    root,
    ["-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...specs],
    timeoutMs,
    "buffer",
  );
  if (out === null) return null;
  const names: string[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let start = 0;
  for (let i = out.indexOf(0); start < out.length; i = out.indexOf(0, start)) {
    const end = i === -1 ? out.length : i;
    const raw = out.subarray(start, end);
    start = end + 1;
    if (raw.length === 0) continue;
    try {
      names.push(decoder.decode(raw));
    } catch {
      skipped.push({ rel: raw.toString("utf8"), message: NOT_UTF8_NAME });
    }
  }
  return [...new Set(names)];
}

type IgnoreMatcher = { ignores(p: string): boolean };

async function ignoreFactory(): Promise<() => { add(p: string): IgnoreMatcher }> {
  const mod = await import("ignore");
  return mod.default ?? mod;
}

function readIgnore(make: () => { add(p: string): IgnoreMatcher }, file: string, root: string, skipped: SkippedEntry[]): IgnoreMatcher | undefined {
  let text: string;
  try {
    // never readFileSync: on the main thread a FIFO would block the process, signals included
    text = readRegularFileSync(file).toString("utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOTREG") {
      skipped.push({ rel: toPosix(path.relative(root, file)), message: `${messageOf(err)}: its ignore rules were not read` });
    }
    return undefined;
  }
  return make().add(text);
}

/**
 * Outside a git work tree: a directory walk (symlinks not followed) honouring every
 * `.gitignore` from the root down (`ignore` implements the gitignore rules); ignored
 * directories are pruned, not entered.
 */
async function walkList(root: string, dirs: string[], skipped: SkippedEntry[]): Promise<string[]> {
  const make = await ignoreFactory();
  const out: string[] = [];
  // Matchers of the ancestors of a directory: [dir rel, matcher][]
  type Chain = Array<[string, IgnoreMatcher]>;
  const chainFor = (rel: string): Chain => {
    const chain: Chain = [];
    const segs = rel === "." ? [] : rel.split("/");
    for (let i = 0; i <= segs.length; i++) {
      const dir = i === 0 ? "." : segs.slice(0, i).join("/");
      const m = readIgnore(make, path.join(root, dir, ".gitignore"), root, skipped);
      if (m) chain.push([dir, m]);
    }
    return chain;
  };
  const ignored = (chain: Chain, rel: string, isDir: boolean): boolean => {
    for (const [dir, m] of chain) {
      const sub = dir === "." ? rel : rel.slice(dir.length + 1);
      if (m.ignores(isDir ? `${sub}/` : sub)) return true;
    }
    return false;
  };
  const walk = (rel: string, chain: Chain) => {
    let entries;
    try {
      entries = readdirSync(rel === "." ? root : path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = rel === "." ? e.name : `${rel}/${e.name}`;
      // readdir decodes a name that is not UTF-8 lossily (U+FFFD): such a path does not exist
      if (e.name.includes("\uFFFD") && lstatSync(path.join(root, child), { throwIfNoEntry: false }) === undefined) {
        skipped.push({ rel: child, message: NOT_UTF8_NAME });
        continue;
      }
      if (e.isDirectory()) {
        if (ALWAYS_SKIPPED_DIRS.includes(e.name) || ignored(chain, child, true)) continue;
        const m = readIgnore(make, path.join(root, child, ".gitignore"), root, skipped);
        walk(child, m ? [...chain, [child, m]] : chain);
      } else if (e.isFile() || e.isFIFO() || e.isCharacterDevice() || e.isBlockDevice() || e.isSocket()) {
        // non-regular files are listed here and reported as skipped below
        if (!ignored(chain, child, false)) out.push(child);
      }
    }
  };
  for (const dir of dirs) {
    // The scope directory itself may sit below ignored ancestors' rules: check them first.
    const chain = chainFor(dir);
    if (dir !== "." && chain.some(([d, m]) => d !== dir && m.ignores(`${d === "." ? dir : dir.slice(d.length + 1)}/`))) continue;
    walk(dir, chain);
  }
  return out;
}

// Where a file sits in the directory entries: its path relative to the directory the `glob`
// parameter is relative to, or undefined when no entry holds it. A path glob may name files
// (src/**/*.ts) or directories (packages/*/src): then the file lies below a matching directory
// and `glob` applies from there (packages/*/src with glob **/*.ts).
function entryPlacer(dirEntries: readonly ScopeEntry[]): (rel: string) => string | undefined {
  const entryMatchers = dirEntries.map((e) => ({ e, match: e.glob ? globFilter(e.glob) : undefined }));
  return (rel) => {
    for (const { e, match } of entryMatchers) {
      const inside = e.base === "." ? true : rel.startsWith(`${e.base}/`);
      if (!inside) continue;
      const sub = e.base === "." ? rel : rel.slice(e.base.length + 1);
      if (!match || match(sub)) return sub;
      for (let i = sub.indexOf("/"); i !== -1; i = sub.indexOf("/", i + 1)) {
        if (match(sub.slice(0, i))) return sub.slice(i + 1);
      }
    }
    return undefined;
  };
}

/** The scope's entries, split, and where each listed file sits in them. */
interface ScopePlan {
  root: string;
  explicitFiles: string[];
  dirEntries: ScopeEntry[];
  placeInEntries: (rel: string) => string | undefined;
  gitTimeoutMs: number;
  env: Env;
}

/**
 * The candidate paths before the per-file filters: the run's positional files inside the
 * entries, or the explicit files plus the listing of the directory entries (git's, or the walk
 * where git cannot list).
 */
async function listCandidates(
  plan: ScopePlan,
  scope: FileScope | undefined,
  skipped: SkippedEntry[],
): Promise<{ listed: string[]; source: Discovery["source"] }> {
  const { root, explicitFiles, dirEntries, placeInEntries } = plan;
  const inDirEntry = (rel: string): boolean => placeInEntries(rel) !== undefined;
  const scopeFiles = restrictedFiles(scope);
  if (scopeFiles !== undefined) {
    const wanted = new Set<string>();
    for (const f of scopeFiles) {
      try {
        wanted.add(containScope(root, f).rel);
      } catch {
        continue; // positional files outside the root are never candidates
      }
    }
    return { listed: [...wanted].filter((rel) => explicitFiles.includes(rel) || inDirEntry(rel)), source: "explicit" };
  }
  const dirs = dirEntries.map((e) => e.base);
  if (dirs.length === 0) return { listed: [...explicitFiles], source: "explicit" };
  const git = await gitList(root, dirs, skipped, plan);
  if (git !== null) return { listed: [...explicitFiles, ...git.filter(inDirEntry)], source: "git" };
  skipped.length = 0;
  const walked = await walkList(root, dirs, skipped);
  return { listed: [...explicitFiles, ...walked.filter(inDirEntry)], source: "walk" };
}

/** Whether a listed path passes the scope's exclusions, the `glob`, `accept` and the shard (no file read). */
function wantedPath(rel: string, plan: ScopePlan, options: DiscoverOptions, userGlob: ((rel: string) => boolean) | undefined): boolean {
  if (options.scope?.exclude?.includes(rel)) return false;
  const explicit = plan.explicitFiles.includes(rel);
  if (isSkippedRel(rel) && !(explicit && !rel.split("/").some((s) => s === ".git" || s === STATE_DIR))) return false;
  if (userGlob) {
    const rest = explicit ? path.posix.basename(rel) : plan.placeInEntries(rel);
    if (rest === undefined || !userGlob(rest)) return false;
  }
  if (options.accept && !explicit && !options.accept(rel)) return false;
  return !(options.scope?.shard && shardOf(rel, options.scope.shard.count) !== options.scope.shard.index);
}

/** A wanted path as a file to hand out: a regular file (a non-regular one is reported as skipped). */
function regularFile(root: string, rel: string, skipped: SkippedEntry[]): DiscoveredFile | undefined {
  const abs = path.join(root, rel);
  let st;
  try {
    st = lstatSync(abs); // deleted-but-tracked files are listed by git: skip them
  } catch {
    return undefined;
  }
  if (st.isFIFO() || st.isCharacterDevice() || st.isBlockDevice() || st.isSocket()) {
    skipped.push({ rel, message: `${kindOf(st)}, not a regular file: never read` });
    return undefined;
  }
  if (!st.isFile()) return undefined; // symlinks are not followed, directories (submodules) skipped
  return { rel, abs, size: st.size };
}

const byRel = (a: { rel: string }, b: { rel: string }) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);

/**
 * Lists candidate files. Throws ToolError `Path not found: <scope>` for a missing path and a
 * containment error for a path outside the root.
 */
export async function discoverFiles(options: DiscoverOptions): Promise<Discovery> {
  const root = path.resolve(options.root);
  const { entries, scopePath } = resolveScope(root, options.path);
  const userGlob = options.glob !== undefined && options.glob.trim() !== "" ? globFilter(options.glob.trim()) : undefined;

  // A file path given explicitly is taken as is (explicit beats ignore rules, as in ast-grep).
  const dirEntries = entries.filter((e) => e.kind === "dir");
  const plan: ScopePlan = {
    root,
    explicitFiles: entries.filter((e) => e.kind === "file").map((e) => e.base),
    dirEntries,
    placeInEntries: entryPlacer(dirEntries),
    gitTimeoutMs: options.gitTimeoutMs ?? GIT_LIST_TIMEOUT_MS,
    env: options.env ?? {},
  };
  const singleFile = entries.length === 1 && entries[0]!.kind === "file";
  const baseDir = singleFile
    ? path.posix.dirname(entries[0]!.base) || "."
    : commonDir(entries.map((e) => (e.kind === "dir" ? e.base : path.posix.dirname(e.base) || ".")));

  const skipped: SkippedEntry[] = [];
  const { listed, source } = await listCandidates(plan, options.scope, skipped);
  const files: DiscoveredFile[] = [];
  for (const rel of new Set(listed)) {
    if (!wantedPath(rel, plan, options, userGlob)) continue;
    const file = regularFile(root, rel, skipped);
    if (file) files.push(file);
  }
  files.sort(byRel);
  skipped.sort(byRel);
  return { scopePath, baseDir, singleFile, files, source, skipped };
}
