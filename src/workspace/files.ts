import path from "node:path";
import { messageOf } from "../util/thrown.js";
import { sha256 } from "../util/hash.js";
import { errnoOf } from "../util/errno.js";
import { tempFileName, type WorkspaceFs } from "./fs.js";
import type { JournalEntry } from "./journal.js";
import { toPosix } from "../util/inside.js";

/**
 * File operations under the real root as a transaction needs them: atomic replace (a new temp
 * file in the same directory, then rename), retried, with the temp files a failed write left
 * behind swept later; snapshots of originals and their restoration.
 */
export class AtomicFiles {
  readonly #realRoot: string;
  readonly #fs: WorkspaceFs;
  readonly #attempts: number;
  /** Names this instance's temp files (fs.ts tempFileName): the journal's nonce, as tempTag. */
  readonly #tag: string;
  /** Temp files whose removal failed; retried on the next sweep. */
  readonly #orphans = new Set<string>();

  constructor(realRoot: string, fs: WorkspaceFs, attempts: number, tag: string) {
    this.#realRoot = realRoot;
    this.#fs = fs;
    this.#attempts = Math.max(1, attempts);
    this.#tag = tag;
  }

  async retry(op: () => Promise<void>): Promise<void> {
    let last: unknown;
    for (let i = 0; i < this.#attempts; i++) {
      try {
        await op();
        return;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /** Removes a file; one that is not there is fine. */
  async unlinkIfExists(abs: string): Promise<void> {
    try {
      await this.#fs.unlink(abs);
    } catch (err) {
      if (errnoOf(err) !== "ENOENT") throw err;
    }
  }

  /** What `real` holds now, as the journal records an original (`existed: false` when absent). */
  async snapshot(real: string, realRel: string): Promise<JournalEntry> {
    let bytes: Uint8Array;
    try {
      bytes = await this.#fs.readFile(real);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return { path: realRel, existed: false };
      if (errnoOf(err) === "EISDIR") throw new Error(`Cannot write ${realRel}: it is a directory`, { cause: err });
      if (errnoOf(err) === "ENOTREG") throw new Error(`Cannot write ${realRel}: ${messageOf(err)}`, { cause: err });
      throw err;
    }
    const st = await this.#fs.stat(real);
    return { path: realRel, existed: true, mode: st.mode & 0o7777, bytes, sha256: sha256(bytes) };
  }

  /** Ancestors of `real` that do not exist yet (shallowest first), relative to the real root. */
  async missingDirs(real: string): Promise<string[]> {
    const missing: string[] = [];
    let dir = path.dirname(real);
    while (dir !== this.#realRoot && dir.startsWith(this.#realRoot + path.sep)) {
      try {
        const st = await this.#fs.stat(dir);
        if (!st.isDirectory()) throw new Error(`Cannot write ${path.relative(this.#realRoot, real)}: ${path.relative(this.#realRoot, dir)} is not a directory`);
        break;
      } catch (err) {
        if (errnoOf(err) !== "ENOENT") throw err;
        missing.unshift(toPosix(path.relative(this.#realRoot, dir)));
      }
      dir = path.dirname(dir);
    }
    return missing;
  }

  async mkdirs(real: string): Promise<void> {
    for (const rel of await this.missingDirs(real)) {
      try {
        await this.#fs.mkdir(path.join(this.#realRoot, rel));
      } catch (err) {
        if (errnoOf(err) !== "EEXIST") throw err;
      }
    }
  }

  /**
   * Atomic replace: a new temp file in the same directory, then rename over the target. A temp
   * file of the same name can only be one of this journal's own, left by a write that failed or
   * was killed: it is removed and the temp file made afresh (still with O_EXCL).
   */
  async replace(real: string, data: string | Uint8Array | Iterable<string>, mode: number | undefined, flush = false): Promise<void> {
    const tmp = tempFileName(real, this.#tag);
    const options = { ...(mode !== undefined ? { mode } : {}), flush };
    try {
      try {
        await this.#fs.writeNew(tmp, data, options);
      } catch (err) {
        if (errnoOf(err) !== "EEXIST") throw err;
        await this.#fs.unlink(tmp);
        await this.#fs.writeNew(tmp, data, options);
      }
      await this.#fs.rename(tmp, real);
    } catch (err) {
      await this.#fs.unlink(tmp).catch((unlinkErr: unknown) => {
        if (errnoOf(unlinkErr) !== "ENOENT") this.#orphans.add(tmp);
      });
      throw err;
    }
  }

  /** Writes `content` atomically (creating missing directories), or deletes the file for `null`. */
  async write(real: string, content: string | null, mode: number | undefined): Promise<void> {
    if (content === null) {
      await this.#fs.unlink(real);
      return;
    }
    await this.mkdirs(real);
    await this.replace(real, content, mode);
  }

  /** Retries removing temp files a failed write left behind (best effort). */
  async sweepOrphans(): Promise<void> {
    for (const tmp of [...this.#orphans]) {
      try {
        await this.retry(() => this.unlinkIfExists(tmp));
        this.#orphans.delete(tmp);
      } catch {
        // left for `tollgate recover` (it removes tollgate temp files) or the next sweep
      }
    }
  }

  /** Whether `real` already holds the entry's original state (content and mode, or absence). */
  async #isAsJournaled(real: string, entry: JournalEntry): Promise<boolean> {
    let st;
    try {
      st = await this.#fs.stat(real);
    } catch (err) {
      return errnoOf(err) === "ENOENT" && !entry.existed;
    }
    if (!entry.existed || !st.isFile() || (entry.mode !== undefined && (st.mode & 0o7777) !== entry.mode)) return false;
    if (st.size !== entry.bytes!.length) return false;
    try {
      return Buffer.from(await this.#fs.readFile(real)).equals(Buffer.from(entry.bytes!));
    } catch {
      return false;
    }
  }

  /**
   * Puts originals back (newest first, each operation retried), then removes the directories
   * the writes created (deepest first); returns what could not be restored.
   */
  async restore(entries: readonly JournalEntry[], dirs: readonly string[]): Promise<string[]> {
    const failures: string[] = [];
    for (const entry of [...entries].reverse()) {
      const real = path.join(this.#realRoot, entry.path);
      // Only what was actually changed is written back: an apply that failed before writing a
      // file (a read-only directory) must not have its rollback fail on that same file.
      if (await this.#isAsJournaled(real, entry)) continue;
      try {
        await this.retry(async () => {
          if (entry.existed) {
            await this.mkdirs(real);
            await this.replace(real, entry.bytes!, entry.mode);
          } else {
            await this.unlinkIfExists(real);
          }
        });
      } catch (err) {
        failures.push(`${entry.path}: ${messageOf(err)}`);
      }
    }
    await this.sweepOrphans();
    for (const dir of [...dirs].reverse()) {
      const real = path.join(this.#realRoot, dir);
      try {
        await this.retry(async () => {
          try {
            await this.#fs.rmdir(real);
          } catch (err) {
            const code = errnoOf(err);
            if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
          }
        });
      } catch (err) {
        failures.push(`${dir}/: ${messageOf(err)}`);
      }
    }
    return failures;
  }
}
