import { randomBytes } from "node:crypto";
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { RunError } from "../errors.js";
import { ensureStateDirSync } from "./journal.js";
import { readRegularFileSync, type NotRegularFileError } from "../util/regular.js";
import { messageOf } from "../util/thrown.js";
import { STATE_DIR } from "../util/state-dir.js";
import type { ProcessHost } from "../process-host.js";

const LOCK_FILE = "lock";

interface LockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
  command?: string;
}

export interface WorkspaceLock {
  readonly file: string;
  readonly info: LockInfo;
  /** Removes the lock if it is still ours. Idempotent. */
  release(): void;
}

function readLock(file: string): { raw: string; info: LockInfo | null } | null {
  let raw: string;
  try {
    // A regular file only: a FIFO planted as the lock would block here, a directory throws EISDIR.
    raw = readRegularFileSync(file).toString("utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "EISDIR" || code === "ENOTREG") {
      const what = code === "EISDIR" ? "a directory" : (err as NotRegularFileError).kind;
      throw new RunError(`${file} is ${what}, not a lock file tollgate wrote; remove it (no run holds it) and run again`);
    }
    throw new RunError(`Cannot read the workspace lock ${file}: ${messageOf(err)}`);
  }
  try {
    const info = JSON.parse(raw) as LockInfo;
    if (typeof info?.pid !== "number") return { raw, info: null };
    return { raw, info };
  } catch {
    return { raw, info: null };
  }
}

function describeHolder(info: LockInfo): string {
  return `pid ${info.pid}${info.hostname && info.hostname !== hostname() ? ` on ${info.hostname}` : ""}, started ${info.startedAt}${info.command ? `, ${info.command}` : ""}`;
}

/**
 * Takes the workspace lock (`.tollgate/lock`, created with O_EXCL, holding pid, host and start
 * time). A lock held by a live process fails at once with a RunError (exit 3) naming the holder
 * (one that names this very process: "already locked by this process"); a lock left by a dead
 * process on this host (or an unreadable one) is taken over (see takeOverStale: two runs racing
 * for the same stale lock cannot both win). The lock is also released when the process exits
 * normally (`host.onExit`).
 */
export function acquireLock(root: string, host: ProcessHost, options: { command?: string } = {}): WorkspaceLock {
  const dir = ensureStateDirSync(root);
  const file = path.join(dir, LOCK_FILE);
  const info: LockInfo = {
    pid: host.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    ...(options.command ? { command: options.command } : {}),
  };
  const body = `${JSON.stringify(info)}\n`;
  for (let attempt = 0; attempt < 50; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, "wx", 0o644);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") {
        ensureStateDirSync(root);
        continue;
      }
      if (code !== "EEXIST") throw err;
      const existing = readLock(file);
      if (existing === null) continue; // released meanwhile
      const holder = existing.info;
      if (holder && holder.pid === host.pid && holder.hostname === info.hostname) {
        throw new RunError(`Workspace is already locked by this process (${path.join(STATE_DIR, LOCK_FILE)})`);
      }
      const sameHost = !holder || holder.hostname === undefined || holder.hostname === info.hostname;
      // An unreadable lock is stale, unless it is brand new (its holder may still be writing it).
      const alive = holder ? (sameHost ? host.isAlive(holder.pid) : true) : isFresh(file);
      if (alive && !holder) {
        throw new RunError(`Workspace is locked by another tollgate run that is starting: ${path.join(root, STATE_DIR, LOCK_FILE)}`);
      }
      if (alive && holder) {
        throw new RunError(
          `Workspace is locked by another tollgate run (${describeHolder(holder)}): ${path.join(root, STATE_DIR, LOCK_FILE)}. ` +
            `Wait for it to finish; if that process is not tollgate, delete the lock file.`,
        );
      }
      takeOverStale(file, existing.raw, host.pid);
      continue;
    }
    try {
      writeSync(fd, body);
    } finally {
      closeSync(fd);
    }
    let held = true;
    const lock: WorkspaceLock = {
      file,
      info,
      release() {
        if (!held) return;
        held = false;
        offExit();
        const now = readLock(file);
        if (now && now.raw === body) {
          try {
            unlinkSync(file);
          } catch {
            // already gone
          }
        }
      },
    };
    const offExit = host.onExit(() => lock.release());
    return lock;
  }
  throw new RunError(`Could not take the workspace lock ${path.join(root, STATE_DIR, LOCK_FILE)}: too much contention`);
}

function isFresh(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < 2000;
  } catch {
    return false;
  }
}

const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes a stale lock, under a short-lived takeover lock (`lock.takeover`, O_EXCL): holding it,
 * the lock file is read again and deleted only if it still holds the stale content. A lock can
 * then only disappear while it is stale, so two runs racing for one stale lock cannot both win:
 * each retries creating the lock with O_EXCL and exactly one succeeds. (Moving the lock aside
 * without this left a moment with no lock file while a live one was being put back, in which a
 * third run could create its own.) A takeover lock older than 10 s was left by a process that
 * died in these few lines and is removed.
 */
function takeOverStale(file: string, staleRaw: string, pid: number): void {
  const guard = `${file}.takeover`;
  const token = `${pid} ${randomBytes(8).toString("hex")}\n`;
  let fd: number;
  try {
    fd = openSync(guard, "wx", 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    removeStaleGuard(guard, pid);
    pause(5 + Math.random() * 10); // another run is taking over: give it a moment, then the caller retries
    return;
  }
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  try {
    const now = readLock(file);
    if (now !== null && now.raw === staleRaw) {
      try {
        unlinkSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
  } finally {
    try {
      if (readFileSync(guard, "utf8") === token) unlinkSync(guard);
    } catch {
      // gone already
    }
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function removeStaleGuard(guard: string, pid: number): void {
  try {
    if (Date.now() - statSync(guard).mtimeMs < TAKEOVER_STALE_MS) return;
    const raw = readFileSync(guard, "utf8");
    const aside = `${guard}.${pid}-${randomBytes(4).toString("hex")}`;
    renameSync(guard, aside);
    if (readFileSync(aside, "utf8") !== raw) linkSync(aside, guard); // a fresh one: put it back
    unlinkSync(aside);
  } catch {
    // it went away meanwhile, or a fresh one took its place
  }
}

/**
 * Whether a live run holds the workspace lock (a lock left by a dead process does not count; an
 * unreadable one does while it is brand new, as acquireLock judges it). Creates nothing: a
 * command that only reads (a dry-run) asks this before it reads the journal, which belongs to
 * that run while it lives.
 */
export function isLockedByLiveRun(root: string, host: Pick<ProcessHost, "isAlive">): boolean {
  const file = path.join(path.resolve(root), STATE_DIR, LOCK_FILE);
  const existing = readLock(file);
  if (!existing) return false;
  const holder = existing.info;
  if (!holder) return isFresh(file);
  const sameHost = holder.hostname === undefined || holder.hostname === hostname();
  return !sameHost || host.isAlive(holder.pid);
}

/** The current holder of the workspace lock, if any (for messages and `tollgate recover`). */
export function readLockInfo(root: string): LockInfo | null {
  return readLock(path.join(path.resolve(root), STATE_DIR, LOCK_FILE))?.info ?? null;
}
