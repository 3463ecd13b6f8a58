import { cp, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import { toPosix } from "../util/inside.js";
import { STATE_DIR } from "../util/state-dir.js";

/** A file tree as bytes: posix relative path → file contents or symlink target. */
type TreeEntry = { kind: "file"; data: Buffer } | { kind: "symlink"; target: string };
export type Tree = Map<string, TreeEntry>;

/**
 * Never part of a compared tree: git's and tollgate's own state, and `.gitkeep` (git cannot
 * hold an empty folder, so an empty input or expected tree keeps one).
 */
function ignored(rel: string): boolean {
  const parts = rel.split("/");
  const base = parts[parts.length - 1]!;
  return base === ".gitkeep" || parts.includes(".git") || parts[0] === STATE_DIR;
}

export async function readTree(root: string): Promise<Tree> {
  const tree: Tree = new Map();
  const visit = async (dir: string, prefix: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (ignored(rel)) continue;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await visit(abs, rel);
      else if (e.isSymbolicLink()) tree.set(rel, { kind: "symlink", target: await readlink(abs) });
      else if (e.isFile()) tree.set(rel, { kind: "file", data: await readFile(abs) });
    }
  };
  await visit(root, "");
  return new Map([...tree.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Copies a fixture's input into a fresh workspace, symlinks verbatim. */
export async function copyInput(from: string, to: string): Promise<void> {
  await cp(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => !ignored(toPosix(path.relative(from, src))),
  });
}

/** Replaces `dir` with exactly `tree` (`--update`); an empty tree keeps a `.gitkeep`. */
export async function writeTree(dir: string, tree: Tree): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  if (tree.size === 0) await writeFile(path.join(dir, ".gitkeep"), "");
  for (const [rel, entry] of tree) {
    const abs = path.join(dir, ...rel.split("/"));
    await mkdir(path.dirname(abs), { recursive: true });
    if (entry.kind === "file") await writeFile(abs, entry.data);
    else await symlink(entry.target, abs);
  }
}

interface TreeDifference {
  path: string;
  /** missing: expected but not produced; unexpected: produced but not expected. */
  kind: "missing" | "unexpected" | "differs";
  /** A unified diff from expected to actual, or a one-line explanation for binary content. */
  diff: string;
}

const MAX_DIFF_LINES = 200;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function asText(entry: TreeEntry | undefined): string | null {
  if (!entry) return "";
  if (entry.kind === "symlink") return `symlink -> ${entry.target}\n`;
  if (entry.data.includes(0)) return null;
  try {
    return utf8.decode(entry.data);
  } catch {
    return null;
  }
}

function explain(expected: string, actual: string): string {
  if (expected.replace(/\r\n/g, "\n") === actual.replace(/\r\n/g, "\n")) return "line endings differ (CRLF vs LF)\n";
  if (expected.replace(/^\uFEFF/, "") === actual.replace(/^\uFEFF/, "")) return "a leading BOM differs\n";
  return "";
}

function unified(rel: string, expected: Tree, actual: Tree): string {
  const e = expected.get(rel);
  const a = actual.get(rel);
  const et = asText(e);
  const at = asText(a);
  if (et === null || at === null) {
    const size = (x: TreeEntry | undefined) => (x?.kind === "file" ? `${x.data.length} bytes` : x ? "symlink" : "absent");
    return `Binary files differ: expected ${size(e)}, actual ${size(a)}\n`;
  }
  const patch = createTwoFilesPatch(e ? `expected/${rel}` : "/dev/null", a ? `actual/${rel}` : "/dev/null", et, at, "", "", { context: 3 });
  const lines = patch.replace(/^=+\n/, "").replace(/\t\n/g, "\n").split("\n");
  const cut = lines.length > MAX_DIFF_LINES ? [...lines.slice(0, MAX_DIFF_LINES), `... ${lines.length - MAX_DIFF_LINES} more diff lines`, ""] : lines;
  return explain(et, at) + cut.join("\n");
}

function same(a: TreeEntry, b: TreeEntry): boolean {
  if (a.kind === "file" && b.kind === "file") return a.data.equals(b.data);
  return a.kind === "symlink" && b.kind === "symlink" && a.target === b.target;
}

/** Byte-for-byte comparison; differences in path order. */
export function compareTrees(expected: Tree, actual: Tree): TreeDifference[] {
  const paths = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  const out: TreeDifference[] = [];
  for (const rel of paths) {
    const e = expected.get(rel);
    const a = actual.get(rel);
    if (e && a && same(e, a)) continue;
    out.push({ path: rel, kind: !a ? "missing" : !e ? "unexpected" : "differs", diff: unified(rel, expected, actual) });
  }
  return out;
}
