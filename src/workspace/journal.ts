import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { lstat, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { BlockedError, RunError } from "../errors.js";
import { readRecord } from "./journal-record.js";
import { containPath, isAlwaysProtected, realRoot } from "./paths.js";
import { sha256 } from "../util/hash.js";
import { isContainedPosix } from "../util/inside.js";
import { messageOf } from "../util/thrown.js";
import { STATE_DIR } from "../util/state-dir.js";

const JOURNAL_FILE = "journal.json";

/** The original state of one file before an action wrote it. */
export interface JournalEntry {
  /** Relative to the real (symlink-resolved) workspace root, POSIX separators. */
  path: string;
  existed: boolean;
  mode?: number;
  bytes?: Uint8Array;
  /** sha256 of `bytes`, when known (computed once: the stale check and the journal both need it). */
  sha256?: string;
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
  /** Matches the record kept outside the workspace when this machine wrote the journal. */
  nonce: string;
}

interface JournalFile {
  version: 1;
  tool: "tollgate";
  pid: number;
  createdAt: string;
  atomic: boolean;
  nonce: string;
  entries: Array<{ path: string; existed: boolean; mode?: number; base64?: string; sha256?: string }>;
  dirs: string[];
}

export function journalPath(root: string): string {
  return path.join(path.resolve(root), STATE_DIR, JOURNAL_FILE);
}

/**
 * The journal's JSON text piece by piece, one entry (one file's original, base64) at a time:
 * written as it is made, a journal of any size never needs its whole text in memory.
 */
export function* journalChunks(state: JournalState, meta: { pid: number; createdAt: string; atomic: boolean; nonce: string }): Generator<string> {
  const head: Omit<JournalFile, "entries" | "dirs"> = {
    version: 1,
    tool: "tollgate",
    pid: meta.pid,
    createdAt: meta.createdAt,
    atomic: meta.atomic,
    nonce: meta.nonce,
  };
  yield `${JSON.stringify(head).slice(0, -1)},"entries":[`;
  for (const [i, e] of state.entries.entries()) {
    const entry: JournalFile["entries"][number] = { path: e.path, existed: e.existed, ...(e.mode !== undefined ? { mode: e.mode } : {}) };
    const sep = i > 0 ? "," : "";
    if (!e.bytes) {
      yield `${sep}${JSON.stringify(entry)}`;
      continue;
    }
    // base64 and hex need no JSON escaping: spliced in, not copied once more by JSON.stringify.
    const base64 = Buffer.from(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength).toString("base64");
    yield `${sep}${JSON.stringify(entry).slice(0, -1)},"base64":"${base64}","sha256":"${e.sha256 ?? sha256(e.bytes)}"}`;
  }
  yield `],"dirs":${JSON.stringify(state.dirs)}}`;
}

function corrupt(file: string, why: string): RunError {
  return new RunError(
    `The apply journal ${file} is unreadable (${why}). Files it covers may be half-written; ` + `inspect them, then delete the journal by hand.`,
  );
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A journaled path: normalized, inside the workspace by its text (symlinks are checked on disk). */
function relativeInside(p: string): boolean {
  return !p.includes("\0") && !p.includes("\\") && path.posix.normalize(p) === p && isContainedPosix(p);
}

/**
 * Parses and checks a journal's content: every entry is a contained path, its base64 is valid
 * and decodes to bytes with the sha256 recorded beside them, modes are permission bits. Throws
 * RunError for anything else, before a single byte of it is used.
 */
function decodeJournal(text: string, file: string): JournalInfo {
  let data: JournalFile;
  try {
    data = JSON.parse(text) as JournalFile;
  } catch (err) {
    throw corrupt(file, `invalid JSON: ${messageOf(err)}`);
  }
  if (!data || typeof data !== "object" || data.version !== 1 || !Array.isArray(data.entries) || (data.dirs !== undefined && !Array.isArray(data.dirs))) {
    throw corrupt(file, "unknown format");
  }
  const entries: JournalEntry[] = [];
  const seen = new Set<string>();
  for (const e of data.entries) {
    if (!e || typeof e.path !== "string" || typeof e.existed !== "boolean" || (e.existed && typeof e.base64 !== "string")) {
      throw corrupt(file, "malformed entry");
    }
    if (!relativeInside(e.path)) throw corrupt(file, `entry outside the workspace: ${JSON.stringify(e.path)}`);
    if (seen.has(e.path)) throw corrupt(file, `entry listed twice: ${e.path}`);
    seen.add(e.path);
    if (e.mode !== undefined && (!Number.isInteger(e.mode) || e.mode < 0 || e.mode > 0o7777)) throw corrupt(file, `bad mode for ${e.path}`);
    let bytes: Buffer | undefined;
    if (e.existed) {
      if (!BASE64.test(e.base64!)) throw corrupt(file, `invalid base64 for ${e.path}`);
      bytes = Buffer.from(e.base64!, "base64");
      if (typeof e.sha256 !== "string" || sha256(bytes) !== e.sha256) throw corrupt(file, `content of ${e.path} does not match its sha256`);
    }
    entries.push({ path: e.path, existed: e.existed, ...(typeof e.mode === "number" ? { mode: e.mode } : {}), ...(bytes ? { bytes, sha256: e.sha256! } : {}) });
  }
  const dirs: string[] = [];
  for (const d of data.dirs ?? []) {
    if (typeof d !== "string" || !relativeInside(d)) throw corrupt(file, `directory outside the workspace: ${JSON.stringify(d)}`);
    dirs.push(d);
  }
  return {
    pid: typeof data.pid === "number" ? data.pid : 0,
    createdAt: typeof data.createdAt === "string" ? data.createdAt : "unknown time",
    atomic: data.atomic,
    nonce: typeof data.nonce === "string" ? data.nonce : "",
    entries,
    dirs,
  };
}

/**
 * The journal file's text, or null when there is none. Only a regular file is read: a
 * FIFO or device planted there would block or never end, a directory or symlink is no journal.
 */
function readJournalText(root: string): string | null {
  const file = journalPath(root);
  let st;
  try {
    st = lstatSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR") throw new RunError(`${path.dirname(file)} is not a directory; tollgate keeps its state there. Remove it.`);
    throw new RunError(`Cannot read ${file}: ${messageOf(err)}`);
  }
  if (st.isDirectory()) throw new RunError(`${file} is a directory, not an apply journal. Remove it (nothing was restored).`);
  if (!st.isFile())
    throw new RunError(
      `${file} is not a regular file (a symlink, FIFO or device), so it is no apply journal tollgate wrote. Remove it (nothing was restored).`,
    );
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new RunError(`Cannot read ${file}: ${messageOf(err)}`);
  }
}

/** The journal left in a workspace, or null when there is none. */
export async function readJournal(root: string): Promise<JournalInfo | null> {
  const text = readJournalText(root);
  return text === null ? null : decodeJournal(text, journalPath(root));
}

function gitTracks(root: string, rel: string): boolean {
  try {
    const r = spawnSync("git", ["ls-files", "--error-unmatch", "--", rel], { cwd: root, stdio: "ignore", timeout: 10_000 });
    return r.status === 0;
  } catch {
    return false;
  }
}

/**
 * Why a decoded journal must not be honoured, or nothing. A journal is honoured
 * only if this machine wrote it — not tracked by git, and its nonce is the one recorded for this
 * workspace outside it — and then only if every entry and directory still resolves, through
 * symlinks, to the very path inside the workspace it names, outside `.git/`, `.tollgate/` and
 * the policy's `protect`.
 */
export function journalProblems(root: string, info: JournalInfo, records: string, isProtected: (rel: string) => boolean = () => false): string[] {
  const problems: string[] = [];
  const rel = `${STATE_DIR}/${JOURNAL_FILE}`;
  if (gitTracks(root, rel)) problems.push(`it is tracked by git (a committed file, not one a run left)`);
  const rroot = realRoot(root);
  if (!info.nonce || readRecord(records, rroot) !== info.nonce) {
    problems.push(`it was not written by tollgate on this machine (no matching record under ${records})`);
  }
  const check = (p: string, what: string) => {
    if (isAlwaysProtected(p)) return problems.push(`${what} ${p} is inside .git/ or .tollgate/`);
    if (isProtected(p)) return problems.push(`${what} ${p} is protected by the policy`);
    try {
      const c = containPath(root, p, rroot);
      if (c.realRel !== p) problems.push(`${what} ${p} now resolves elsewhere (${c.realRel}) through a symlink`);
    } catch (err) {
      if (!(err instanceof BlockedError)) throw err;
      problems.push(`${what} ${p}: ${err.message}`);
    }
    return undefined;
  };
  for (const e of info.entries) check(e.path, "file");
  for (const d of info.dirs) check(d, "directory");
  return problems;
}

export function untrustedJournal(file: string, problems: readonly string[]): RunError {
  const shown =
    problems
      .slice(0, 10)
      .map((p) => `\n  - ${p}`)
      .join("") + (problems.length > 10 ? `\n  - … (${problems.length} in all)` : "");
  return new RunError(
    `Refusing to use the apply journal ${file}:${shown}\nNothing was restored and the journal is kept. If no tollgate run was interrupted here, inspect it and delete it by hand.`,
  );
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
 * files it covers may be half-written until `tollgate recover` restores them. A journal that
 * would not be honoured says so instead of sending the user to `recover`. `records`: the journal
 * records' directory (journal-record.ts recordDir).
 */
export function assertNoPendingJournal(root: string, records: string): void {
  const file = journalPath(root);
  const text = readJournalText(root);
  if (text === null) return;
  let info: JournalInfo;
  try {
    info = decodeJournal(text, file);
  } catch (err) {
    throw new RunError(`Workspace holds an apply journal tollgate cannot use: ${messageOf(err)}`);
  }
  const problems = journalProblems(root, info, records);
  if (problems.length > 0) throw untrustedJournal(file, problems);
  throw new RunError(`Workspace needs recovery: ${describeLeftover(root, file, text)}. ` + `Run \`tollgate recover\` to restore them, then run again.`);
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
  await writeFile(path.join(dir, ".gitignore"), "# written by tollgate: its run state is never committed\n*\n", { flag: "wx" }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  });
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
