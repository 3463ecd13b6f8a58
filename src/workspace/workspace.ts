import * as nodeFs from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { BlockedError, StaleError } from "../errors.js";
import type { FileChange } from "../session/types.js";
import { containPath, isAlwaysProtected } from "./paths.js";
import { DEFAULT_MAX_FILE_BYTES, decodeText, describeProblem, sha256 } from "./text.js";
import { Journal, type JournalEntry } from "./journal.js";
import { globMatcher } from "./glob.js";

/** The file operations the workspace performs; injectable so tests can make the N-th one fail. */
export interface WorkspaceFs {
  readFile(abs: string): Promise<Uint8Array>;
  writeFileAtomic(abs: string, data: string | Uint8Array, mode?: number): Promise<void>;
  unlink(abs: string): Promise<void>;
  mkdir(abs: string): Promise<void>;
  stat(abs: string): Promise<{ mode: number; size: number; isFile(): boolean }>;
}

export const nodeWorkspaceFs: WorkspaceFs = {
  readFile: (abs) => nodeFs.readFile(abs),
  writeFileAtomic: (abs, data, mode) =>
    writeFileAtomic(abs, typeof data === "string" ? data : Buffer.from(data), mode === undefined ? {} : { mode }),
  unlink: (abs) => nodeFs.unlink(abs),
  mkdir: async (abs) => {
    await nodeFs.mkdir(abs, { recursive: true });
  },
  stat: (abs) => nodeFs.stat(abs),
};

export interface WorkspaceOptions {
  root: string;
  fs?: WorkspaceFs;
  /** Policy `protect` globs (workspace-relative). `.git/` and `.tollgate/` are always protected. */
  protect?: string[];
  maxFileBytes?: number;
}

export interface ReadResult {
  rel: string;
  text: string;
  sha256: string;
}

export interface StageInput {
  path: string;
  /** New content; `null` deletes the file. */
  content: string | null;
  rebase?: FileChange["rebase"];
}

/**
 * The one module through which tollgate reads and writes user files (SPEC 8): contained in the
 * root, atomic (temp file + rename), journaled so a failed action is rolled back.
 */
export class Workspace {
  readonly root: string;
  readonly fs: WorkspaceFs;
  readonly maxFileBytes: number;
  readonly journal: Journal;
  readonly #isProtected: (rel: string) => boolean;

  constructor(options: WorkspaceOptions) {
    this.root = path.resolve(options.root);
    this.fs = options.fs ?? nodeWorkspaceFs;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.journal = new Journal(this.root, this.fs);
    const protect = options.protect ?? [];
    const matcher = protect.length > 0 ? globMatcher(protect) : () => false;
    this.#isProtected = (rel) => isAlwaysProtected(rel) || matcher(rel);
  }

  /** Absolute and workspace-relative form of a path; throws BlockedError when outside. */
  contain(userPath: string): { abs: string; rel: string } {
    return containPath(this.root, userPath);
  }

  isProtected(rel: string): boolean {
    return this.#isProtected(rel);
  }

  /** Reads a text file; throws for missing, binary, non-UTF-8 and oversize files. */
  async read(userPath: string): Promise<ReadResult> {
    const { abs, rel } = this.contain(userPath);
    const bytes = await this.fs.readFile(abs);
    const decoded = decodeText(bytes, this.maxFileBytes);
    if ("problem" in decoded) throw new Error(`Cannot read ${rel}: ${describeProblem(decoded.problem, this.maxFileBytes)}`);
    return { rel, text: decoded.text, sha256: sha256(bytes) };
  }

  /** Like read, but `null` when the file does not exist. */
  async readIfExists(userPath: string): Promise<ReadResult | null> {
    try {
      return await this.read(userPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  /**
   * Turns intended contents into FileChanges against what is on disk now. Changes that change
   * nothing are dropped. Protected or escaping paths throw BlockedError at staging time.
   */
  async stage(inputs: StageInput[]): Promise<FileChange[]> {
    const changes: FileChange[] = [];
    const seen = new Set<string>();
    for (const input of inputs) {
      const { rel } = this.contain(input.path);
      if (seen.has(rel)) throw new Error(`File staged twice in one action: ${rel}`);
      seen.add(rel);
      const current = await this.readIfExists(rel);
      const before = current?.text ?? null;
      if (before === input.content) continue;
      changes.push({
        path: rel,
        before,
        after: input.content,
        beforeSha256: current?.sha256 ?? null,
        afterSha256: input.content === null ? null : sha256(input.content),
        ...(input.rebase ? { rebase: input.rebase } : {}),
      });
    }
    return changes;
  }

  /** Paths of `changes` that must not be written: throws BlockedError naming them. */
  assertWritable(changes: readonly Pick<FileChange, "path">[]): void {
    const blocked: string[] = [];
    for (const change of changes) {
      const { rel } = this.contain(change.path);
      if (this.#isProtected(rel)) blocked.push(rel);
    }
    if (blocked.length > 0) throw new BlockedError(`Refusing to write protected path(s): ${blocked.join(", ")}`, blocked);
  }

  /**
   * Applies staged changes: checks each file against its staged sha256 (rebasing where the
   * producer allows), journals the originals, writes atomically, and restores every file if any
   * write fails. Returns the changes as written (after rebasing). Throws StaleError naming the
   * files whose change no longer holds; nothing is written then.
   */
  async apply(changes: readonly FileChange[]): Promise<FileChange[]> {
    this.assertWritable(changes);
    const plan: Array<{ change: FileChange; abs: string; original: JournalEntry }> = [];
    const stale: string[] = [];
    for (const change of changes) {
      const { abs, rel } = this.contain(change.path);
      const original = await this.#snapshot(abs, rel);
      const currentSha = original.existed ? sha256(original.bytes!) : null;
      if (currentSha === change.beforeSha256) {
        plan.push({ change, abs, original });
        continue;
      }
      const rebased = this.#rebase(change, original);
      if (rebased === undefined) stale.push(rel);
      else plan.push({ change: rebased, abs, original });
    }
    if (stale.length > 0) {
      throw new StaleError(`Stale: ${stale.join(", ")} changed since the preview; nothing was written`, stale);
    }
    await this.journal.begin(plan.map((p) => p.original));
    const written: typeof plan = [];
    try {
      for (const step of plan) {
        await this.#write(step.abs, step.change.after, step.original.mode);
        written.push(step);
      }
    } catch (err) {
      await this.#restore(plan.map((p) => p.original));
      await this.journal.clear();
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { rolledBack: true });
    }
    await this.journal.clear();
    return plan.map((p) => p.change);
  }

  /** Puts files back as the journal entries describe them. */
  async restore(entries: readonly JournalEntry[]): Promise<void> {
    await this.#restore(entries);
  }

  #rebase(change: FileChange, original: JournalEntry): FileChange | undefined {
    if (!change.rebase || !original.existed || change.before === null) return undefined;
    const decoded = decodeText(original.bytes!, Number.POSITIVE_INFINITY);
    if ("problem" in decoded) return undefined;
    const after = change.rebase(decoded.text);
    if (after === undefined) return undefined;
    return {
      ...change,
      before: decoded.text,
      beforeSha256: sha256(original.bytes!),
      after,
      afterSha256: sha256(after),
    };
  }

  async #snapshot(abs: string, rel: string): Promise<JournalEntry> {
    try {
      const [bytes, st] = await Promise.all([this.fs.readFile(abs), this.fs.stat(abs)]);
      return { path: rel, existed: true, mode: st.mode & 0o7777, bytes };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return { path: rel, existed: false };
      throw err;
    }
  }

  async #write(abs: string, content: string | null, mode: number | undefined): Promise<void> {
    if (content === null) {
      await this.fs.unlink(abs);
      return;
    }
    await this.fs.mkdir(path.dirname(abs));
    await this.fs.writeFileAtomic(abs, content, mode);
  }

  async #restore(entries: readonly JournalEntry[]): Promise<void> {
    for (const entry of entries) {
      const abs = path.join(this.root, entry.path);
      if (entry.existed) {
        await this.fs.mkdir(path.dirname(abs));
        await this.fs.writeFileAtomic(abs, entry.bytes!, entry.mode);
      } else {
        await this.fs.unlink(abs).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "ENOENT") throw err;
        });
      }
    }
  }
}
