import {
  closeSync,
  constants as fsConstants,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { readRegularFileSync } from "../util/regular.js";

/**
 * The primitive file operations the workspace performs. Injectable, so tests can make the N-th
 * one fail; everything else (atomic replace, journaling, rollback) is built on these.
 */
export interface WorkspaceFs {
  readFile(abs: string): Promise<Uint8Array>;
  stat(abs: string): Promise<{ mode: number; size: number; isFile(): boolean; isDirectory(): boolean }>;
  /**
   * Creates a NEW file (fails with EEXIST if anything, even a symlink, is there) holding `data`.
   * `mode`, when given, is set exactly (umask does not apply); `flush` fsyncs before closing.
   * An iterable is written piece by piece, in order (the journal: never whole in memory).
   */
  writeNew(abs: string, data: string | Uint8Array | Iterable<string>, options?: { mode?: number; flush?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(abs: string): Promise<void>;
  /** Creates one directory level. */
  mkdir(abs: string): Promise<void>;
  rmdir(abs: string): Promise<void>;
}

/** The journal's pieces (one per file) are gathered into writes of about this many characters. */
const WRITE_BATCH = 1 << 20;

function writeAll(fd: number, buf: Uint8Array): void {
  for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * The real filesystem. Every operation is a few system calls on one file, made synchronously:
 * an apply waits for each of them anyway, and a round trip through libuv's thread pool (and the
 * promise machinery around it) costs more than the call itself. So that timers and signal handlers still run during
 * a long apply, the event loop is given a turn every few milliseconds (`breathe`, one pace per
 * instance: a run makes its own). Reads refuse
 * FIFOs and devices without blocking on them (util/regular.ts); new files are made with O_EXCL.
 */
export function createNodeWorkspaceFs(): WorkspaceFs {
  const breathe = breather();
  return {
    // Regular files only: a FIFO would block the read, a device never end it.
    readFile: async (abs) => {
      await breathe();
      return readRegularFileSync(abs);
    },
    stat: async (abs) => statSync(abs),
    async writeNew(abs, data, options = {}) {
      await breathe();
      const fd = openSync(abs, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, options.mode ?? 0o666);
      try {
        if (typeof data === "string") writeAll(fd, Buffer.from(data, "utf8"));
        else if (data instanceof Uint8Array) writeAll(fd, data);
        else {
          // Small pieces are gathered; a large one (a file's base64) is written as it is.
          let pending: string[] = [];
          let size = 0;
          const flush = () => {
            if (size > 0) writeAll(fd, Buffer.from(pending.length === 1 ? pending[0]! : pending.join(""), "utf8"));
            pending = [];
            size = 0;
          };
          for (const chunk of data) {
            if (chunk.length >= WRITE_BATCH) {
              flush();
              writeAll(fd, Buffer.from(chunk, "utf8"));
              await breathe();
              continue;
            }
            pending.push(chunk);
            size += chunk.length;
            if (size >= WRITE_BATCH) {
              flush();
              await breathe();
            }
          }
          flush();
        }
        if (options.mode !== undefined) fchmodSync(fd, options.mode);
        if (options.flush) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    rename: async (from, to) => renameSync(from, to),
    unlink: async (abs) => unlinkSync(abs),
    mkdir: async (abs) => {
      mkdirSync(abs);
    },
    rmdir: async (abs) => rmdirSync(abs),
  };
}

/** Lets the event loop turn (timers, signals, output) when it has not for a few milliseconds. */
function breather(): () => Promise<void> {
  let lastTurn = 0;
  return async () => {
    const now = performance.now();
    if (now - lastTurn < 8) return;
    lastTurn = now;
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
}

/**
 * The temp file of an atomic write of `target`: `.<name>.tollgate-<tag>.tmp` in its directory,
 * `tag` from the nonce of the journal covering the write (tempTag). One name per file and
 * journal, so `recover` finds exactly the temp files of the writes a journal covers — its own
 * and those of the run that wrote it — from the journal alone, and deletes no other file.
 */
export function tempFileName(target: string, tag: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tollgate-${tag}.tmp`);
}

/** The temp-file tag of a journal's nonce (random hex: no name in a tree has it by chance). */
export function tempTag(nonce: string): string {
  return /^[0-9a-f]{16,}$/.test(nonce) ? nonce.slice(0, 16) : "untagged";
}
