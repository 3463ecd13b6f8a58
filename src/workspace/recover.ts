import { lstatSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { RunError, messageOf } from "../errors.js";
import { STATE_DIR, assertNoPendingJournal, journalPath, journalProblems, readJournal, untrustedJournal } from "./journal.js";
import { removeRecord } from "./journal-record.js";
import { errnoOf } from "./fs.js";
import { acquireLock, liveLockHolder, type WorkspaceLock } from "./lock.js";
import { Workspace, isTempFileOf, nodeWorkspaceFs, type WorkspaceFs } from "./workspace.js";

export interface RecoverResult {
  /** Whether a journal was there to recover from. */
  found: boolean;
  /** Files put back (real-root-relative). */
  restored: string[];
  /** Leftover temp files of the interrupted writes that were removed. */
  removedTemps: string[];
  pid?: number;
  createdAt?: string;
}

/**
 * `tollgate recover`: restores every file in `.tollgate/journal.json` to its journaled original
 * (bytes and mode; files the interrupted apply created are removed, and so are directories it
 * created, when empty), deletes the temp files the interrupted writes left, then removes the
 * journal. Takes the workspace lock before it reads the journal, so while a run is active it
 * refuses (naming the run) and reads and writes nothing.
 * Idempotent: running it again after a failure finishes the job.
 */
export async function recover(
  root: string,
  options: {
    fs?: WorkspaceFs;
    lock?: boolean;
    /** Policy `protect` globs: a journal entry under one is refused. */
    protect?: string[];
    /** Told what will be restored, once the journal verified and before anything is written. */
    onPlan?: (info: { restore: string[]; remove: string[]; dirs: string[]; pid: number; createdAt: string }) => void;
  } = {},
): Promise<RecoverResult> {
  const fs = options.fs ?? nodeWorkspaceFs;
  // Without a state directory there is nothing to recover, and nothing is created.
  if (!stateDirExists(root)) return { found: false, restored: [], removedTemps: [] };
  // The lock before the journal: a live run's journal is its own (half-way through a rewrite,
  // say), so while one holds the workspace the journal is not read at all.
  const lock = options.lock === false ? undefined : acquireLock(root, { command: "tollgate recover" });
  try {
    const info = await readJournal(root);
    if (!info) return { found: false, restored: [], removedTemps: [] };
    const workspace = new Workspace({ root, fs, ...(options.protect ? { protect: options.protect } : {}) });
    const problems = journalProblems(root, info, (rel) => workspace.isProtected(rel));
    if (problems.length > 0) throw untrustedJournal(journalPath(root), problems);
    options.onPlan?.({
      restore: info.entries.filter((e) => e.existed).map((e) => e.path),
      remove: info.entries.filter((e) => !e.existed).map((e) => e.path),
      dirs: info.dirs,
      pid: info.pid,
      createdAt: info.createdAt,
    });
    const removedTemps = await removeTemps(workspace.realRoot, info.entries.map((e) => e.path), info.pid, fs);
    const failures = await workspace.transaction.restore(info);
    if (failures.length > 0) {
      throw new RunError(
        `Recovery could not restore everything (${failures.join("; ")}). The journal is kept; fix the cause and run \`tollgate recover\` again.`,
      );
    }
    try {
      await fs.unlink(journalPath(root));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new RunError(`Files were restored but the journal could not be removed: ${messageOf(err)}`);
      }
    }
    removeRecord(workspace.realRoot, info.nonce);
    return { found: true, restored: info.entries.map((e) => e.path), removedTemps, pid: info.pid, createdAt: info.createdAt };
  } finally {
    lock?.release();
  }
}

async function removeTemps(realRoot: string, paths: string[], pid: number, fs: WorkspaceFs): Promise<string[]> {
  const dirs = new Set(paths.map((p) => path.dirname(path.join(realRoot, p))));
  dirs.add(path.dirname(journalPath(realRoot)));
  const removed: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!isTempFileOf(name, pid)) continue;
      const abs = path.join(dir, name);
      try {
        await fs.unlink(abs);
        removed.push(path.relative(realRoot, abs).split(path.sep).join("/"));
      } catch {
        // leave it; harmless
      }
    }
  }
  return removed;
}

function stateDirExists(root: string): boolean {
  try {
    lstatSync(path.join(path.resolve(root), STATE_DIR));
    return true;
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return false;
    throw new RunError(`Cannot read ${path.join(path.resolve(root), STATE_DIR)}: ${messageOf(err)}`);
  }
}

export interface RunGuard {
  lock: WorkspaceLock | undefined;
  release(): void;
}

/**
 * What a run does before it starts: take the workspace lock (unless `lock: false`, e.g. for a
 * dry-run, which writes nothing and so leaves no `.tollgate/` behind) and refuse while an
 * unrecovered journal is present. Both refusals are RunErrors (exit 3).
 */
export function startRun(root: string, options: { lock?: boolean; command?: string } = {}): RunGuard {
  const lock = options.lock === false ? undefined : acquireLock(root, options.command ? { command: options.command } : {});
  try {
    // A run that takes no lock (a dry-run) leaves a live run's journal alone: it is that run's.
    if (lock || !liveLockHolder(root)) assertNoPendingJournal(root);
  } catch (err) {
    lock?.release();
    throw err;
  }
  return { lock, release: () => lock?.release() };
}
