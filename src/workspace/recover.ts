import { lstatSync } from "node:fs";
import path from "node:path";
import { RunError } from "../errors.js";
import { messageOf } from "../util/thrown.js";
import { assertNoPendingJournal, journalPath, journalProblems, readJournal, untrustedJournal, type JournalInfo } from "./journal.js";
import { readRecord, recordDir, removeRecord } from "./journal-record.js";
import { errnoOf } from "../util/errno.js";
import { tempFileName, tempTag } from "./fs.js";
import { acquireLock, isLockedByLiveRun, type WorkspaceLock } from "./lock.js";
import { realRoot } from "./paths.js";
import { Workspace, createNodeWorkspaceFs, type WorkspaceFs } from "./workspace.js";
import { toPosix } from "../util/inside.js";
import { STATE_DIR } from "../util/state-dir.js";
import { nodeProcess, type ProcessHost } from "../process-host.js";

interface RecoverResult {
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
    /** The process recover runs in (the lock's pid and liveness checks, the journal records' directory); absent: this one. */
    process?: ProcessHost;
    lock?: boolean;
    /** Policy `protect` globs: a journal entry under one is refused. */
    protect?: string[];
    /** Told what will be restored, once the journal verified and before anything is written. */
    onPlan?: (info: { restore: string[]; remove: string[]; dirs: string[]; pid: number; createdAt: string }) => void;
  } = {},
): Promise<RecoverResult> {
  const fs = options.fs ?? createNodeWorkspaceFs();
  // Without a state directory there is nothing to recover, and nothing is created.
  if (!stateDirExists(root)) return { found: false, restored: [], removedTemps: [] };
  // The lock before the journal: a live run's journal is its own (half-way through a rewrite,
  // say), so while one holds the workspace the journal is not read at all.
  const host = options.process ?? nodeProcess();
  const lock = options.lock === false ? undefined : acquireLock(root, host, { command: "tollgate recover" });
  try {
    const records = recordDir(host.env);
    const info = await readJournal(root);
    if (!info) return { found: false, restored: [], removedTemps: options.lock === false ? [] : await removeJournalTemp(root, fs, records) };
    const workspace = new Workspace({ root, fs, process: host, ...(options.protect ? { protect: options.protect } : {}) });
    const problems = journalProblems(root, info, records, (rel) => workspace.isProtected(rel));
    if (problems.length > 0) throw untrustedJournal(journalPath(root), problems);
    options.onPlan?.({
      restore: info.entries.filter((e) => e.existed).map((e) => e.path),
      remove: info.entries.filter((e) => !e.existed).map((e) => e.path),
      dirs: info.dirs,
      pid: info.pid,
      createdAt: info.createdAt,
    });
    // The temp files of the journal's writes, by name: the interrupted run's, and those of a
    // recover of this same journal that was killed (it names its own by the journal's nonce).
    // Removed before the restore and again after it; the journal goes last, so a recover
    // killed at any point leaves the journal for the next one to finish from.
    const temps = journalTemps(root, workspace.realRoot, info);
    const first = await removeTemps(workspace.realRoot, temps, fs);
    const failures = await workspace.transaction.restore(info, info.nonce);
    const last = await removeTemps(workspace.realRoot, temps, fs);
    failures.push(...last.failures);
    if (failures.length > 0) {
      throw new RunError(
        `Recovery could not restore everything (${failures.join("; ")}). The journal is kept; fix the cause and run \`tollgate recover\` again.`,
      );
    }
    try {
      await fs.unlink(journalPath(root));
    } catch (err) {
      if (errnoOf(err) !== "ENOENT") {
        throw new RunError(`Files were restored but the journal could not be removed: ${messageOf(err)}`);
      }
    }
    removeRecord(records, workspace.realRoot, info.nonce);
    const removedTemps = [...first.removed, ...last.removed];
    return { found: true, restored: info.entries.map((e) => e.path), removedTemps, pid: info.pid, createdAt: info.createdAt };
  } finally {
    lock?.release();
  }
}

/** Every temp file the writes a journal covers can have left (fs.ts tempFileName), absolute. */
function journalTemps(root: string, realRoot: string, info: JournalInfo): string[] {
  const tag = tempTag(info.nonce);
  return [journalPath(root), ...info.entries.map((e) => path.join(realRoot, e.path))].map((p) => tempFileName(p, tag));
}

/**
 * With no journal there are no user files to restore, but a run killed while writing its first
 * journal left that journal's temp file, named by the nonce of the record it wrote first.
 */
async function removeJournalTemp(root: string, fs: WorkspaceFs, records: string): Promise<string[]> {
  const real = realRoot(root);
  const nonce = readRecord(records, real);
  if (!nonce) return [];
  const { removed, failures } = await removeTemps(real, [tempFileName(journalPath(root), tempTag(nonce))], fs);
  if (failures.length === 0) removeRecord(records, real, nonce);
  return removed;
}

async function removeTemps(realRoot: string, temps: readonly string[], fs: WorkspaceFs): Promise<{ removed: string[]; failures: string[] }> {
  const removed: string[] = [];
  const failures: string[] = [];
  for (const abs of temps) {
    const rel = toPosix(path.relative(realRoot, abs));
    try {
      await fs.unlink(abs);
      removed.push(rel);
    } catch (err) {
      const code = errnoOf(err);
      if (code !== "ENOENT" && code !== "ENOTDIR") failures.push(`${rel}: ${messageOf(err)}`);
    }
  }
  return { removed, failures };
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

interface RunGuard {
  lock: WorkspaceLock | undefined;
  release(): void;
}

/**
 * What a run does before it starts: take the workspace lock (unless `lock: false`, e.g. for a
 * dry-run, which writes nothing and so leaves no `.tollgate/` behind) and refuse while an
 * unrecovered journal is present. Both refusals are RunErrors (exit 3).
 */
export function startRun(root: string, options: { lock?: boolean; command?: string; process?: ProcessHost } = {}): RunGuard {
  const host = options.process ?? nodeProcess();
  const lock = options.lock === false ? undefined : acquireLock(root, host, options.command ? { command: options.command } : {});
  try {
    // A run that takes no lock (a dry-run) leaves a live run's journal alone: it is that run's.
    if (lock || !isLockedByLiveRun(root, host)) assertNoPendingJournal(root, recordDir(host.env));
  } catch (err) {
    lock?.release();
    throw err;
  }
  return { lock, release: () => lock?.release() };
}
