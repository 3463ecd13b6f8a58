import * as nodeFs from "node:fs/promises";
import { constants as fsConstants } from "node:fs";
import path from "node:path";
import { readRegularFile } from "../util/regular.js";

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

const WRITE_BATCH = 1 << 20;

export const nodeWorkspaceFs: WorkspaceFs = {
  // Regular files only (SPEC 8): a FIFO would block the read, a device never end it.
  readFile: (abs) => readRegularFile(abs),
  stat: (abs) => nodeFs.stat(abs),
  async writeNew(abs, data, options = {}) {
    const handle = await nodeFs.open(abs, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, options.mode ?? 0o666);
    try {
      if (typeof data === "string" || data instanceof Uint8Array) await handle.writeFile(data);
      else {
        // Pieces are gathered into writes of about WRITE_BATCH characters: one write per piece
        // (a journal has one per file) would cost a round trip to libuv's threads each.
        const write = async (text: string) => {
          const buf = Buffer.from(text, "utf8");
          for (let off = 0; off < buf.length; ) off += (await handle.write(buf, off, buf.length - off)).bytesWritten;
        };
        let pending: string[] = [];
        let size = 0;
        for (const chunk of data) {
          pending.push(chunk);
          size += chunk.length;
          if (size >= WRITE_BATCH) {
            await write(pending.join(""));
            pending = [];
            size = 0;
          }
        }
        if (size > 0) await write(pending.join(""));
      }
      if (options.mode !== undefined) await handle.chmod(options.mode);
      if (options.flush) await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => nodeFs.rename(from, to),
  unlink: (abs) => nodeFs.unlink(abs),
  mkdir: async (abs) => {
    await nodeFs.mkdir(abs);
  },
  rmdir: (abs) => nodeFs.rmdir(abs),
};

let tempCounter = 0;

/** Name pattern of the temp files of atomic writes (recover removes those a killed run left). */
export function tempFileName(target: string, pid = process.pid): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tollgate-${pid}-${++tempCounter}.tmp`);
}
export function isTempFileOf(name: string, pid: number): boolean {
  return name.startsWith(".") && name.endsWith(".tmp") && name.includes(`.tollgate-${pid}-`);
}

export function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}
