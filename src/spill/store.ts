import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, rmdirSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Spilled } from "../domain/types.js";

/**
 * Where a run keeps texts it must not hold in memory (diffs, until the outputs are assembled):
 * `put` returns a handle whose `text()` reads the piece back. Memory stays bounded by the piece
 * in hand, not by the size of the change.
 */
export interface SpillStore {
  put(text: string): Spilled;
  /** No more puts; handles stay readable until `dispose`. */
  seal(): void;
  /** Removes what was spilled; handles read "" afterwards. */
  dispose(): void;
}

/** Keeps the texts (for library users and tests that build a Workspace by hand). */
export function memorySpill(): SpillStore {
  return {
    put: (text) => ({ bytes: Buffer.byteLength(text), text: () => text }),
    seal: () => {},
    dispose: () => {},
  };
}

/**
 * An append-only file created on the first put, in `dir` (the workspace's `.tollgate/tmp/`), or in
 * the OS temp directory when `dir` cannot be written (a read-only checkout under --dry-run).
 */
export function fileSpill(dirs: () => string[]): SpillStore {
  let file: string | undefined;
  let dirMade: string | undefined;
  let fd: number | undefined;
  /** After seal: one read-only descriptor for every read back, closed by dispose. */
  let readFd: number | undefined;
  let size = 0;
  let disposed = false;
  const open = (): number => {
    if (fd !== undefined) return fd;
    let lastErr: unknown;
    for (const dir of [...dirs(), os.tmpdir()]) {
      try {
        mkdirSync(dir, { recursive: true });
        // Unique by chance (and "wx" refuses a name that is taken): runs may share the directory.
        const name = path.join(dir, `spill-${Date.now().toString(36)}-${randomBytes(6).toString("hex")}`);
        fd = openSync(name, "wx+", 0o600);
        file = name;
        dirMade = dir;
        return fd;
      } catch (err) {
        lastErr = err;
      }
    }
    throw lastErr;
  };
  return {
    put(text) {
      if (disposed) throw new Error("spill store used after dispose");
      const data = Buffer.from(text, "utf8");
      const offset = size;
      if (data.length > 0) {
        const handle = open();
        let done = 0;
        while (done < data.length) done += writeSync(handle, data, done, data.length - done, offset + done);
        size += data.length;
      }
      const length = data.length;
      return {
        bytes: length,
        text: () => {
          if (length === 0 || disposed || file === undefined) return "";
          const buf = Buffer.allocUnsafe(length);
          const handle = fd ?? (readFd ??= openSync(file, "r"));
          let got = 0;
          while (got < length) {
            const n = readSync(handle, buf, got, length - got, offset + got);
            if (n === 0) break;
            got += n;
          }
          return buf.toString("utf8", 0, got);
        },
      };
    },
    seal() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const d of [fd, readFd]) if (d !== undefined) closeSync(d);
      fd = undefined;
      readFd = undefined;
      if (file) rmSync(file, { force: true });
      // the spill directory goes too, unless another run's spill is in it
      if (dirMade && dirMade !== os.tmpdir()) {
        try {
          rmdirSync(dirMade);
        } catch {
          // not empty, or already gone
        }
      }
    },
  };
}
