import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { RunError } from "../errors.js";
import { isContainedPosix } from "../util/inside.js";

export const STATE_DIR = ".tollgate";
export const JOURNAL_FILE = "journal.json";

/** The original state of one file before an action wrote it. */
export interface JournalEntry {
  /** Relative to the real (symlink-resolved) workspace root, POSIX separators. */
  path: string;
  existed: boolean;
  mode?: number;
  bytes?: Uint8Array;
}

/** What a journal on disk holds. */
export interface JournalState {
  entries: JournalEntry[];
  /** Directories the journaled writes created (shallowest first); removed again when empty. */
  dirs: string[];
}

export interface JournalInfo extends JournalState {
  pid: number;
  createdAt: string;
  atomic: boolean;
}

interface JournalFile {
  version: 1;
  tool: "tollgate";
  pid: number;
  createdAt: string;
  atomic: boolean;
  entries: Array<{ path: string; existed: boolean; mode?: number; base64?: string }>;
  dirs: string[];
}

export function journalPath(root: string): string {
  return path.join(path.resolve(root), STATE_DIR, JOURNAL_FILE);
}

export function encodeJournal(state: JournalState, meta: { pid: number; createdAt: string; atomic: boolean }): string {
  const data: JournalFile = {
    version: 1,
    tool: "tollgate",
    pid: meta.pid,
    createdAt: meta.createdAt,
    atomic: meta.atomic,
    entries: state.entries.map((e) => ({
      path: e.path,
      existed: e.existed,
      ...(e.mode !== undefined ? { mode: e.mode } : {}),
      ...(e.bytes ? { base64: Buffer.from(e.bytes).toString("base64") } : {}),
    })),
    dirs: state.dirs,
  };
  return JSON.stringify(data);
}

function corrupt(file: string, why: string): RunError {
  return new RunError(
    `The apply journal ${file} is unreadable (${why}). Files it covers may be half-written; ` +
      `inspect them, then delete the journal by hand.`,
  );
}

/** Parses and validates a journal; throws RunError for a corrupt one. */
export function decodeJournal(text: string, file: string): JournalInfo {
  let data: JournalFile;
  try {
    data = JSON.parse(text) as JournalFile;
  } catch (err) {
    throw corrupt(file, `invalid JSON: ${(err as Error).message}`);
  }
  if (!data || typeof data !== "object" || data.version !== 1 || !Array.isArray(data.entries)) {
    throw corrupt(file, "unknown format");
  }
  const entries: JournalEntry[] = [];
  for (const e of data.entries) {
    if (!e || typeof e.path !== "string" || typeof e.existed !== "boolean" || (e.existed && typeof e.base64 !== "string")) {
      throw corrupt(file, "malformed entry");
    }
    const norm = path.posix.normalize(e.path);
    if (!isContainedPosix(norm)) {
      throw corrupt(file, `entry outside the workspace: ${e.path}`);
    }
    entries.push({
      path: norm,
      existed: e.existed,
      ...(typeof e.mode === "number" ? { mode: e.mode } : {}),
      ...(e.base64 !== undefined ? { bytes: Buffer.from(e.base64, "base64") } : {}),
    });
  }
  const dirs = Array.isArray(data.dirs) ? data.dirs.filter((d): d is string => typeof d === "string") : [];
  for (const d of dirs) {
    const norm = path.posix.normalize(d);
    if (!isContainedPosix(norm)) throw corrupt(file, `directory outside the workspace: ${d}`);
  }
  return {
    pid: typeof data.pid === "number" ? data.pid : 0,
    createdAt: typeof data.createdAt === "string" ? data.createdAt : "unknown time",
    atomic: data.atomic === true,
    entries,
    dirs,
  };
}

/** The journal left in a workspace, or null when there is none. */
export async function readJournal(root: string): Promise<JournalInfo | null> {
  const file = journalPath(root);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  return decodeJournal(text, file);
}

function describeLeftover(root: string, file: string, text: string): string {
  let info: JournalInfo | undefined;
  try {
    info = decodeJournal(text, file);
  } catch {
    info = undefined;
  }
  const rel = path.relative(path.resolve(root), file) || file;
  if (!info) return `${rel} is left from an interrupted apply (unreadable)`;
  const names = info.entries.map((e) => e.path);
  const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? `, … (${names.length} in all)` : "");
  return `${rel} is left from an interrupted apply (pid ${info.pid}, ${info.createdAt}) and holds the original contents of ${names.length} file(s)${shown ? `: ${shown}` : ""}`;
}

/**
 * Refuses to start a run while a journal from an interrupted apply is present (exit 3): the
 * files it covers may be half-written until `tollgate recover` restores them.
 */
export function assertNoPendingJournal(root: string): void {
  const file = journalPath(root);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new RunError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  throw new RunError(
    `Workspace needs recovery: ${describeLeftover(root, file, text)}. ` +
      `Run \`tollgate recover\` to restore them, then run again.`,
  );
}

function checkStateDir(dir: string, isDir: boolean, isLink: boolean): void {
  if (isLink || !isDir) {
    throw new RunError(`${dir} exists but is not a plain directory (a symlink or a file); tollgate keeps its state there. Remove it.`);
  }
}

/** Creates `.tollgate/` with a `.gitignore` of its own, so users need not ignore it by hand. */
export async function ensureStateDir(root: string): Promise<string> {
  const dir = path.join(path.resolve(root), STATE_DIR);
  try {
    const st = await lstat(dir);
    checkStateDir(dir, st.isDirectory(), st.isSymbolicLink());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    await mkdir(dir, { recursive: true });
  }
  await writeFile(path.join(dir, ".gitignore"), "# written by tollgate: its run state is never committed\n*\n", { flag: "wx" }).catch(
    (err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    },
  );
  return dir;
}

export function ensureStateDirSync(root: string): string {
  const dir = path.join(path.resolve(root), STATE_DIR);
  try {
    const st = lstatSync(dir);
    checkStateDir(dir, st.isDirectory(), st.isSymbolicLink());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(dir, { recursive: true });
  }
  try {
    writeFileSync(path.join(dir, ".gitignore"), "# written by tollgate: its run state is never committed\n*\n", { flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return dir;
}
