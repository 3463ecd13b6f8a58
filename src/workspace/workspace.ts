import * as nodeFs from "node:fs/promises";
import { constants as fsConstants } from "node:fs";
import path from "node:path";
import { BlockedError, StaleError, messageOf } from "../errors.js";
import type { EditRequest, FileChange, TextEdit } from "../session/types.js";
import { memorySpill, type SpillStore } from "../spill/store.js";
import { applyEdits, buildChange, editBetween } from "./change.js";
import { containPath, isAlwaysProtected, isCaseInsensitiveFs, realRoot, type Contained } from "./paths.js";
import { sha256 } from "../util/hash.js";
import { DEFAULT_MAX_FILE_BYTES, decodeText, describeProblem } from "./text.js";
import { encodeJournal, ensureStateDir, journalPath, type JournalEntry, type JournalState } from "./journal.js";
import { globMatcher } from "../policy/glob.js";
import { readRegularFile } from "../util/regular.js";
import { newNonce, removeRecord, writeRecord } from "./journal-record.js";
import { EditLedger, editsReproduce } from "./rebase.js";

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
   */
  writeNew(abs: string, data: string | Uint8Array, options?: { mode?: number; flush?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(abs: string): Promise<void>;
  /** Creates one directory level. */
  mkdir(abs: string): Promise<void>;
  rmdir(abs: string): Promise<void>;
}

export const nodeWorkspaceFs: WorkspaceFs = {
  // Regular files only (SPEC 8): a FIFO would block the read, a device never end it.
  readFile: (abs) => readRegularFile(abs),
  stat: (abs) => nodeFs.stat(abs),
  async writeNew(abs, data, options = {}) {
    const handle = await nodeFs.open(abs, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, options.mode ?? 0o666);
    try {
      await handle.writeFile(data);
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

export interface WorkspaceOptions {
  root: string;
  fs?: WorkspaceFs;
  /** Policy `protect` globs (workspace-relative). `.git/` and `.tollgate/` are always protected. */
  protect?: string[];
  maxFileBytes?: number;
  /**
   * `--atomic`: the journal keeps every original overwritten during the run until
   * `commitRun()`, so `rollbackRun()` (or `tollgate recover` after a crash) undoes the whole run.
   */
  atomic?: boolean;
  /** Match `protect` globs without regard to case; default: detected from the filesystem. */
  caseInsensitive?: boolean;
  /** Attempts per file operation while rolling back (default 3). */
  restoreAttempts?: number;
  /** fsync the journal before writing (default true; tests may turn it off for speed). */
  durableJournal?: boolean;
  /** Where staged changes keep their diffs (default: in memory; the runner spills to a file). */
  spill?: SpillStore;
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
  /** At apply time, on a file that changed since staging: its new content, or undefined (stale). */
  rebase?: (current: string) => string | undefined;
  /**
   * Sorted, non-overlapping edits of the current text that give `content`: the change may then
   * be moved over this run's earlier writes of the file (rebase.ts). Ignored when they do not
   * reproduce `content`.
   */
  edits?: readonly TextEdit[];
}

export interface ApplyOptions {
  /** Id of the action applying the changes: named when a later change overlaps them. */
  owner?: string | undefined;
}

/** An error from an apply whose writes were undone (`rolledBack`), or could not be (`journalKept`). */
export interface ApplyFailure extends Error {
  rolledBack?: boolean;
  /** Rollback itself failed: the journal stays on disk for `tollgate recover`. */
  journalKept?: boolean;
}

/** One action's writes as a unit; `end` commits them (no error) or rolls them back. */
export interface ActionTransaction {
  /**
   * `written`: the changes the action wrote through the workspace, as written (rebased ones with
   * their own diffs); empty when it failed or when this transaction joined an outer one.
   */
  end(error?: unknown): Promise<{ error?: ApplyFailure; rolledBack: boolean; written: FileChange[] }>;
}

/** An action's apply failed after writing, and everything it wrote was restored. */
export class RolledBackError extends Error implements ApplyFailure {
  readonly rolledBack = true;
  readonly journalKept = false;
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "RolledBackError";
  }
}

/** Rolling back failed: the workspace is inconsistent until `tollgate recover` runs. */
export class RollbackError extends Error implements ApplyFailure {
  readonly rolledBack = false;
  readonly journalKept = true;
  readonly failures: string[];
  constructor(message: string, failures: string[]) {
    super(message);
    this.name = "RollbackError";
    this.failures = failures;
  }
}

/** Originals recorded by one action (or, with `--atomic`, by the whole run). */
class Scope {
  /** The action this scope is (its id): named when a later change overlaps what it wrote. */
  owner: string | undefined;
  readonly entries = new Map<string, JournalEntry>();
  readonly dirs: string[] = [];
  /** The changes as written (rebased where the file had moved), in write order. */
  readonly written: FileChange[] = [];
  wrote = false;
  add(entry: JournalEntry): void {
    if (!this.entries.has(entry.path)) this.entries.set(entry.path, entry);
  }
  addDir(rel: string): void {
    if (!this.dirs.includes(rel)) this.dirs.push(rel);
  }
  merge(other: Scope): void {
    for (const e of other.entries.values()) this.add(e);
    for (const d of other.dirs) this.addDir(d);
    this.wrote ||= other.wrote;
    this.written.push(...other.written);
  }
}

let tempCounter = 0;

/** Name pattern of the temp files of atomic writes (recover removes those a killed run left). */
export function tempFileName(target: string, pid = process.pid): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tollgate-${pid}-${++tempCounter}.tmp`);
}
export function isTempFileOf(name: string, pid: number): boolean {
  return name.startsWith(".") && name.endsWith(".tmp") && name.includes(`.tollgate-${pid}-`);
}

function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

function toError(err: unknown): ApplyFailure {
  return err instanceof Error ? err : new Error(messageOf(err));
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * The one module through which tollgate reads and writes user files (SPEC 8): contained in the
 * root, atomic (temp file + rename in the same directory), journaled before any write so a
 * failed action is rolled back and a killed run can be recovered.
 *
 * Use: `apply()` for one set of staged changes; `runAction(fn)` around a whole action's apply so
 * that everything it writes through the workspace (several `apply()` calls, `pi.files`) is undone
 * if it throws; with `atomic`, `rollbackRun()` / `commitRun()` at the end of the run.
 */
export class Workspace {
  readonly root: string;
  /** The root with symlinks resolved: where files really are. */
  readonly realRoot: string;
  readonly fs: WorkspaceFs;
  readonly maxFileBytes: number;
  readonly atomic: boolean;
  /** Where staged changes keep their diffs. */
  spill: SpillStore;
  readonly #isProtected: (rel: string) => boolean;
  readonly #restoreAttempts: number;
  readonly #durable: boolean;
  #scope: Scope | undefined;
  #run: Scope | undefined;
  #broken: string | undefined;
  /** Temp files whose removal failed; retried when the action ends. */
  readonly #orphans = new Set<string>();
  #journalCreatedAt = new Date().toISOString();
  /** Vouches for this workspace's journals: also recorded outside the workspace (journal-record.ts). */
  readonly #nonce = newNonce();
  #recorded = false;
  /** This run's writes, as edits: later changes staged with edits are rebased over them. */
  readonly ledger = new EditLedger();

  constructor(options: WorkspaceOptions) {
    this.root = path.resolve(options.root);
    this.realRoot = realRoot(this.root);
    this.fs = options.fs ?? nodeWorkspaceFs;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.atomic = options.atomic ?? false;
    this.spill = options.spill ?? memorySpill();
    this.#restoreAttempts = Math.max(1, options.restoreAttempts ?? 3);
    this.#durable = options.durableJournal ?? true;
    if (this.atomic) this.#run = new Scope();
    const protect = options.protect ?? [];
    const nocase = options.caseInsensitive ?? isCaseInsensitiveFs(this.root);
    const matcher = protect.length > 0 ? globMatcher(protect, { nocase }) : () => false;
    this.#isProtected = (rel) => isAlwaysProtected(rel) || matcher(rel);
  }

  /** Absolute and workspace-relative form of a path; throws BlockedError when outside. */
  contain(userPath: string): Contained {
    return containPath(this.root, userPath);
  }

  isProtected(rel: string): boolean {
    return this.#isProtected(rel);
  }

  /** Set when a rollback failed: no more writes until `tollgate recover` has run. */
  get needsRecovery(): string | undefined {
    return this.#broken;
  }

  /** Reads a text file; throws for missing, binary, non-UTF-8 and oversize files. */
  async read(userPath: string): Promise<ReadResult> {
    const { real, rel } = this.contain(userPath);
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.readFile(real);
    } catch (err) {
      // One clear message (SPEC 8) instead of the raw errno text with an absolute path.
      const code = errnoOf(err);
      if (code === "EISDIR") throw new Error(`Not a file: ${rel} is a directory`);
      if (code === "ENOTDIR") throw new Error(`Not a file path: ${rel} (a parent of it is a file)`);
      if (code === "ENOTREG") throw new Error(`Not a regular file: ${rel} (${messageOf(err)}); only regular files are read`);
      throw err;
    }
    const decoded = decodeText(bytes, this.maxFileBytes);
    if ("problem" in decoded) throw new Error(`Cannot read ${rel}: ${describeProblem(decoded.problem, this.maxFileBytes)}`);
    return { rel, text: decoded.text, sha256: sha256(bytes) };
  }

  /** Like read, but `null` when the file does not exist. */
  async readIfExists(userPath: string): Promise<ReadResult | null> {
    try {
      return await this.read(userPath);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return null;
      throw err;
    }
  }

  /**
   * Turns intended contents into FileChanges against what is on disk now (whole contents become
   * the one edit between the texts). Changes that change nothing are dropped. Protected or
   * escaping paths throw BlockedError at staging time.
   */
  async stage(inputs: StageInput[]): Promise<FileChange[]> {
    const changes: FileChange[] = [];
    const seen = new Set<string>();
    for (const input of inputs) {
      const { rel, realRel } = this.contain(input.path);
      if (seen.has(realRel)) throw new Error(`File staged twice in one action: ${rel}`);
      seen.add(realRel);
      if (input.content !== null && typeof input.content !== "string") {
        throw new Error(`Content of ${rel} must be a string (or null to delete)`);
      }
      // UTF-8 cannot hold a lone surrogate: written, it would silently become U+FFFD (SPEC 8).
      const at = input.content === null ? -1 : loneSurrogateAt(input.content);
      if (at >= 0 && input.content !== null) {
        throw new Error(`Content of ${rel} is not valid Unicode: a lone surrogate (U+${input.content.charCodeAt(at).toString(16).toUpperCase()}) at offset ${at}; refusing to write it as U+FFFD`);
      }
      const current = await this.readIfExists(rel);
      const before = current?.text ?? null;
      const after = input.content;
      if (before === after) continue;
      const given = input.edits && editsReproduce({ before, after, edits: input.edits }) ? input.edits : undefined;
      const edits = after === null ? [] : before === null ? [{ start: 0, end: 0, text: after }] : (given ?? editBetween(before, after));
      const rebase = input.rebase;
      changes.push(
        buildChange(this.spill, {
          path: rel,
          before,
          beforeSha256: current?.sha256 ?? null,
          after,
          edits,
          ...(given ? { movable: true } : {}),
          ...(rebase
            ? {
                rebase: (text: string) => {
                  const next = rebase(text);
                  return next === undefined ? undefined : editBetween(text, next);
                },
              }
            : {}),
        }),
      );
    }
    return changes;
  }

  /**
   * The narrow staging API (ast_edit, ast_scan, jscodeshift, custom producers): a file change is
   * its path, the sha256 it has now and the edits against that text (`edits: null` deletes).
   * The file is read unless the producer hands its text (which must be the one the hash is of);
   * one that no longer has `beforeSha256` is refused (StaleError). Changes that change nothing
   * are dropped; the diff is computed here, once, and spilled.
   */
  async stageEdits(requests: readonly EditRequest[]): Promise<FileChange[]> {
    const changes: FileChange[] = [];
    const seen = new Set<string>();
    for (const req of requests) {
      const { rel, realRel } = this.contain(req.path);
      if (seen.has(realRel)) throw new Error(`File staged twice in one action: ${rel}`);
      seen.add(realRel);
      let before: string | null;
      if (req.text !== undefined && req.beforeSha256 !== null) before = req.text;
      else {
        const current = await this.readIfExists(rel);
        if ((current?.sha256 ?? null) !== req.beforeSha256) {
          throw new StaleError(`Stale: ${rel} changed while it was being staged; nothing was staged`, [rel]);
        }
        before = current?.text ?? null;
      }
      const after = req.edits === null ? null : applyEdits(before ?? "", req.edits);
      if (after === undefined) throw new Error(`Edits of ${rel} overlap or lie outside the file`);
      if (after === before) continue;
      changes.push(
        buildChange(this.spill, {
          path: rel,
          before,
          beforeSha256: req.beforeSha256,
          after,
          edits: req.edits ?? [],
          movable: true,
          ...(req.rebase ? { rebase: req.rebase } : {}),
        }),
      );
    }
    return changes;
  }

  /** Paths of `changes` that must not be written: throws BlockedError naming them. */
  assertWritable(changes: readonly Pick<FileChange, "path">[]): void {
    const blocked: string[] = [];
    for (const change of changes) {
      const { rel, realRel } = this.contain(change.path);
      if (this.#isProtected(rel) || this.#isProtected(realRel)) blocked.push(rel);
    }
    if (blocked.length > 0) throw new BlockedError(`Refusing to write protected path(s): ${blocked.join(", ")}`, blocked);
  }

  /**
   * Applies staged changes: checks each file against its staged sha256 (rebasing where the
   * producer allows), journals the originals, then writes each file atomically, its new content
   * made from the original and the edits only when it is written (one file's texts in hand at a
   * time). Restores every file if any write fails (the error then carries `rolledBack: true`).
   * Returns the changes as written (a rebased one with its own diff). Throws StaleError naming
   * the files whose change no longer holds; nothing is written then. Inside an action
   * (`beginAction()`) the rollback covers everything the action wrote.
   */
  async apply(changes: readonly FileChange[], options: ApplyOptions = {}): Promise<FileChange[]> {
    if (this.#broken) throw new Error(this.#broken);
    this.assertWritable(changes);
    const plan: Array<{ change: FileChange; real: string; rel: string; original: JournalEntry; edits: readonly TextEdit[] | null; rebased: boolean }> = [];
    const stale: string[] = [];
    const overlapping: string[] = [];
    const seen = new Set<string>();
    for (const change of changes) {
      const { real, rel, realRel } = this.contain(change.path);
      if (seen.has(realRel)) throw new Error(`File changed twice in one apply: ${rel}`);
      seen.add(realRel);
      const original = await this.#snapshot(real, realRel);
      const currentSha = original.existed ? sha256(original.bytes!) : null;
      const edits = change.kind === "deleted" ? null : change.edits;
      if (currentSha === change.beforeSha256) {
        plan.push({ change, real, rel, original, edits, rebased: false });
        continue;
      }
      const own = this.#rebaseOverRun(change, original);
      if (own && "overlaps" in own) {
        overlapping.push(`${rel} (overlaps ${own.overlaps})`);
        stale.push(rel);
        continue;
      }
      const rebased = own?.edits ?? this.#rebase(change, original);
      if (rebased === undefined) stale.push(rel);
      else plan.push({ change, real, rel, original, edits: rebased, rebased: true });
    }
    if (overlapping.length > 0) {
      const others = stale.filter((p) => !overlapping.some((o) => o.startsWith(`${p} (`)));
      const parts = [...overlapping, ...(others.length ? [`${others.join(", ")} changed since the preview`] : [])];
      throw new StaleError(`Stale: ${parts.join("; ")}; nothing was written`, stale);
    }
    if (stale.length > 0) {
      throw new StaleError(`Stale: ${stale.join(", ")} changed since the preview; nothing was written`, stale);
    }
    const implicit = this.#scope === undefined;
    const scope = this.#scope ?? new Scope();
    if (implicit) this.#scope = scope;
    const written: FileChange[] = [];
    // What the ledger learns once the writes are committed (hashes and edits, no texts).
    const history: Array<{ path: string; beforeSha256: string; afterSha256: string; edits: readonly TextEdit[] }> = [];
    try {
      for (const step of plan) {
        scope.add(step.original);
        if (step.edits !== null) for (const dir of await this.#missingDirs(step.real)) scope.addDir(dir);
      }
      await this.#persist();
      scope.wrote = true;
      for (const step of plan) {
        const before = step.original.existed ? this.#textOf(step.original, step.rel) : null;
        const after = step.edits === null ? null : applyEdits(before ?? "", step.edits);
        if (after === undefined) throw new Error(`The staged edits of ${step.rel} do not fit the file; nothing more was written`);
        await this.#write(step.real, after, step.original.mode);
        const done = step.rebased
          ? buildChange(this.spill, {
              path: step.change.path,
              before,
              beforeSha256: step.original.existed ? sha256(step.original.bytes!) : null,
              after,
              edits: step.edits ?? [],
            })
          : step.change;
        written.push(done);
        if (step.edits !== null && step.original.existed && done.beforeSha256 !== null && done.afterSha256 !== null) {
          history.push({ path: step.original.path, beforeSha256: done.beforeSha256, afterSha256: done.afterSha256, edits: step.edits });
        }
      }
    } catch (err) {
      if (!implicit) throw err;
      this.#scope = undefined;
      throw await this.#abort(scope, err);
    }
    scope.written.push(...written);
    if (implicit) {
      this.#scope = undefined;
      await this.#commit(scope);
    }
    // Later movable changes are rebased over these writes (rebase.ts).
    for (const h of history) this.ledger.record(h.path, { beforeSha256: h.beforeSha256, afterSha256: h.afterSha256, edits: h.edits, owner: options.owner ?? this.#scope?.owner });
    return written;
  }

  /**
   * A movable change staged against a version of the file this run has since written: its
   * edits moved over those writes, or the id of the action one of them overlaps. Undefined when
   * the file changed some other way (the producer's own rebase may still apply).
   */
  #rebaseOverRun(change: FileChange, original: JournalEntry): { edits: readonly TextEdit[] } | { overlaps: string } | undefined {
    if (!change.movable || change.kind !== "modified" || change.beforeSha256 === null || !original.existed) return undefined;
    const r = this.ledger.rebase(original.path, change.edits, change.beforeSha256, sha256(original.bytes!));
    if (!r.ok) return r.overlap ? { overlaps: r.overlap.owner ?? "an action applied earlier in this run" } : undefined;
    return { edits: r.edits };
  }

  /**
   * Runs one action's apply as a unit: everything it writes through this workspace is journaled
   * together, and if `fn` throws after anything was written, all of it is restored and the error
   * is rethrown with `rolledBack: true` (a StaleError/BlockedError raised after some writes becomes
   * a plain failure, since part of the action had been written). Nested calls join the outer one.
   */
  async runAction<T>(fn: () => Promise<T>): Promise<T> {
    const tx = this.beginAction();
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      throw (await tx.end(err)).error ?? err;
    }
    const ended = await tx.end();
    if (ended.error) throw ended.error;
    return result;
  }

  /**
   * The same as `runAction` for callers that learn of a failure as a value rather than a throw
   * (the runner: `session.call("resolve")` never throws). `end(error)` rolls back what the action
   * wrote when `error` is given, else commits; it returns the error to record (with
   * `rolledBack: true` when files were restored, or a RollbackError), or none on success.
   * A commit can fail too (the journal cannot be removed): the action is then rolled back and
   * that error returned. Nested begins join the outer action.
   */
  beginAction(options: { owner?: string } = {}): ActionTransaction {
    if (this.#scope) {
      return { end: async (error) => (error === undefined ? { rolledBack: false, written: [] } : { error: toError(error), rolledBack: false, written: [] }) };
    }
    if (this.#broken) {
      const broken = this.#broken;
      return { end: async () => ({ error: new Error(broken), rolledBack: false, written: [] }) };
    }
    const scope = new Scope();
    scope.owner = options.owner;
    this.#scope = scope;
    let ended = false;
    return {
      end: async (error) => {
        if (ended) return { rolledBack: false, written: [] };
        ended = true;
        if (this.#scope === scope) this.#scope = undefined;
        if (error !== undefined) {
          const out: ApplyFailure = await this.#abort(scope, error);
          return { error: out, rolledBack: out.rolledBack === true, written: [] };
        }
        try {
          await this.#commit(scope);
          return { rolledBack: false, written: scope.written };
        } catch (err) {
          const out = toError(err);
          return { error: out, rolledBack: out.rolledBack === true, written: [] };
        }
      },
    };
  }

  /** Files (real-root-relative) the run has overwritten so far under `--atomic`. */
  get runPaths(): string[] {
    return [...(this.#run?.entries.keys() ?? [])];
  }

  /**
   * `--atomic`: restores every file the run wrote to what it was before the run and clears the
   * journal. Returns the restored paths. Throws RollbackError (journal kept) if that fails.
   */
  async rollbackRun(): Promise<string[]> {
    const run = this.#run;
    if (!run) return [];
    this.#run = new Scope();
    if (run.entries.size === 0 && run.dirs.length === 0) return [];
    const failures = await this.#restore(run);
    await this.#sweepOrphans();
    if (failures.length > 0) {
      this.#run = run;
      this.#broken = `Rolling back the run failed (${failures.join("; ")}); the journal is kept in ${journalPath(this.root)}: run \`tollgate recover\``;
      throw new RollbackError(this.#broken, failures);
    }
    try {
      await this.#clearJournal();
    } catch (err) {
      this.#broken = `The run was rolled back but the journal could not be removed (${messageOf(err)}): run \`tollgate recover\``;
      throw new RollbackError(this.#broken, [messageOf(err)]);
    }
    return [...run.entries.keys()];
  }

  /** `--atomic`: the run is done; forget its originals and remove the journal. */
  async commitRun(): Promise<void> {
    if (!this.#run || this.#broken) return;
    await this.#sweepOrphans();
    if (this.#run.entries.size === 0 && this.#run.dirs.length === 0) return;
    // If the journal cannot be removed this throws and the run is still intact: the caller
    // rolls it back (the journal on disk then matches the files again).
    await this.#clearJournal();
    this.#run = new Scope();
  }

  /** Puts files back as the journal describes them (used by `recover`); returns what failed. */
  async restore(state: JournalState): Promise<string[]> {
    const scope = new Scope();
    for (const e of state.entries) scope.add(e);
    for (const d of state.dirs) scope.addDir(d);
    return this.#restore(scope);
  }

  // -- internals -------------------------------------------------------------------------------

  /** Undo after a failure; returns the error to throw. */
  async #abort(scope: Scope, err: unknown): Promise<Error> {
    try {
      return await this.#abortInner(scope, err);
    } finally {
      await this.#sweepOrphans();
    }
  }

  async #abortInner(scope: Scope, err: unknown): Promise<Error> {
    const error = err instanceof Error ? err : new Error(messageOf(err));
    if (!scope.wrote) {
      // Nothing was written: the journal (if any was written) only needs to shrink back.
      await this.#persistOrClear().catch(() => undefined);
      return error;
    }
    const failures = await this.#restore(scope);
    if (failures.length > 0) {
      if (this.#run) this.#run.merge(scope);
      this.#broken = `${messageOf(err)}; rolling back failed too (${failures.join("; ")}); the journal is kept in ${journalPath(this.root)}: run \`tollgate recover\``;
      return new RollbackError(this.#broken, failures);
    }
    try {
      await this.#persistOrClear();
    } catch (clearErr) {
      this.#broken = `${messageOf(err)}; the files were restored but the journal could not be removed (${messageOf(clearErr)}): run \`tollgate recover\``;
      return new RollbackError(this.#broken, [messageOf(clearErr)]);
    }
    // A StaleError/BlockedError after some writes is a plain failure: part of the action was written.
    const partial = error instanceof StaleError || error instanceof BlockedError;
    return new RolledBackError(partial ? `${error.message} (after part of the action had been written; those writes were rolled back)` : error.message, error);
  }

  /** The action succeeded: drop its journal (or, under --atomic, keep it for the run). */
  async #commit(scope: Scope): Promise<void> {
    await this.#sweepOrphans();
    if (this.#run) {
      this.#run.merge(scope);
      return;
    }
    if (!scope.wrote) return;
    try {
      await this.#clearJournal();
    } catch (err) {
      // A journal left behind would make `recover` undo this action later; undo it now instead.
      throw await this.#abort(scope, new Error(`Could not remove the apply journal: ${messageOf(err)}`));
    }
  }

  /** Writes the journal covering the run (atomic) and the action in progress. */
  async #persist(): Promise<void> {
    const state: JournalState = { entries: [], dirs: [] };
    const all = new Scope();
    if (this.#run) all.merge(this.#run);
    if (this.#scope) all.merge(this.#scope);
    state.entries = [...all.entries.values()];
    state.dirs = all.dirs;
    if (state.entries.length === 0 && state.dirs.length === 0) return;
    await ensureStateDir(this.root);
    if (!this.#recorded) {
      // Before the journal exists, so a journal on disk always has its record. Without a
      // writable state directory the apply still runs; its journal then cannot be recovered.
      try {
        writeRecord(this.realRoot, this.#nonce, this.#durable);
        this.#recorded = true;
      } catch {
        // recover will refuse that journal and say why
      }
    }
    const text = encodeJournal(state, { pid: process.pid, createdAt: this.#journalCreatedAt, atomic: this.atomic, nonce: this.#nonce });
    await this.#retry(() => this.#replace(journalPath(this.root), text, undefined, this.#durable));
  }

  async #persistOrClear(): Promise<void> {
    if (this.#run && (this.#run.entries.size > 0 || this.#run.dirs.length > 0)) await this.#persist();
    else await this.#clearJournal();
  }

  async #clearJournal(): Promise<void> {
    await this.#retry(async () => {
      try {
        await this.fs.unlink(journalPath(this.root));
      } catch (err) {
        if (errnoOf(err) !== "ENOENT") throw err;
      }
    });
    if (this.#recorded) {
      removeRecord(this.realRoot, this.#nonce);
      this.#recorded = false;
    }
  }

  async #retry(op: () => Promise<void>): Promise<void> {
    let last: unknown;
    for (let i = 0; i < this.#restoreAttempts; i++) {
      try {
        await op();
        return;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /** Edits that still make the change on the file's current text, or undefined (stale). */
  #rebase(change: FileChange, original: JournalEntry): readonly TextEdit[] | undefined {
    if (!change.rebase || !original.existed || change.kind === "created") return undefined;
    const decoded = decodeText(original.bytes!, Number.POSITIVE_INFINITY);
    if ("problem" in decoded) return undefined;
    try {
      return change.rebase(decoded.text);
    } catch {
      return undefined;
    }
  }

  #textOf(original: JournalEntry, rel: string): string {
    const decoded = decodeText(original.bytes!, Number.POSITIVE_INFINITY);
    if ("problem" in decoded) throw new Error(`Cannot edit ${rel}: ${describeProblem(decoded.problem)}`);
    return decoded.text;
  }

  async #snapshot(real: string, realRel: string): Promise<JournalEntry> {
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.readFile(real);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return { path: realRel, existed: false };
      if (errnoOf(err) === "EISDIR") throw new Error(`Cannot write ${realRel}: it is a directory`);
      if (errnoOf(err) === "ENOTREG") throw new Error(`Cannot write ${realRel}: ${messageOf(err)}`);
      throw err;
    }
    const st = await this.fs.stat(real);
    return { path: realRel, existed: true, mode: st.mode & 0o7777, bytes };
  }

  /** Ancestors of `real` that do not exist yet (shallowest first), relative to the real root. */
  async #missingDirs(real: string): Promise<string[]> {
    const missing: string[] = [];
    let dir = path.dirname(real);
    while (dir !== this.realRoot && dir.startsWith(this.realRoot + path.sep)) {
      try {
        const st = await this.fs.stat(dir);
        if (!st.isDirectory()) throw new Error(`Cannot write ${path.relative(this.realRoot, real)}: ${path.relative(this.realRoot, dir)} is not a directory`);
        break;
      } catch (err) {
        if (errnoOf(err) !== "ENOENT") throw err;
        missing.unshift(path.relative(this.realRoot, dir).split(path.sep).join("/"));
      }
      dir = path.dirname(dir);
    }
    return missing;
  }

  async #mkdirs(real: string): Promise<void> {
    for (const rel of await this.#missingDirs(real)) {
      try {
        await this.fs.mkdir(path.join(this.realRoot, rel));
      } catch (err) {
        if (errnoOf(err) !== "EEXIST") throw err;
      }
    }
  }

  /** Atomic replace: a new temp file in the same directory, then rename over the target. */
  async #replace(real: string, data: string | Uint8Array, mode: number | undefined, flush = false): Promise<void> {
    const tmp = tempFileName(real);
    try {
      await this.fs.writeNew(tmp, data, { ...(mode !== undefined ? { mode } : {}), flush });
      await this.fs.rename(tmp, real);
    } catch (err) {
      await this.fs.unlink(tmp).catch((unlinkErr: unknown) => {
        if (errnoOf(unlinkErr) !== "ENOENT") this.#orphans.add(tmp);
      });
      throw err;
    }
  }

  /** Retries removing temp files a failed write left behind (best effort). */
  async #sweepOrphans(): Promise<void> {
    for (const tmp of [...this.#orphans]) {
      try {
        await this.#retry(async () => {
          try {
            await this.fs.unlink(tmp);
          } catch (err) {
            if (errnoOf(err) !== "ENOENT") throw err;
          }
        });
        this.#orphans.delete(tmp);
      } catch {
        // left for `tollgate recover` (it removes tollgate temp files) or the next sweep
      }
    }
  }

  async #write(real: string, content: string | null, mode: number | undefined): Promise<void> {
    if (content === null) {
      await this.fs.unlink(real);
      return;
    }
    await this.#mkdirs(real);
    await this.#replace(real, content, mode);
  }

  /** Whether `real` already holds the entry's original state (content and mode, or absence). */
  async #isAsJournaled(real: string, entry: JournalEntry): Promise<boolean> {
    let st;
    try {
      st = await this.fs.stat(real);
    } catch (err) {
      return errnoOf(err) === "ENOENT" && !entry.existed;
    }
    if (!entry.existed || !st.isFile() || (entry.mode !== undefined && (st.mode & 0o7777) !== entry.mode)) return false;
    if (st.size !== entry.bytes!.length) return false;
    try {
      return Buffer.from(await this.fs.readFile(real)).equals(Buffer.from(entry.bytes!));
    } catch {
      return false;
    }
  }

  /** Restores a scope's originals (retrying each operation); returns what could not be restored. */
  async #restore(scope: Scope): Promise<string[]> {
    const failures: string[] = [];
    for (const entry of [...scope.entries.values()].reverse()) {
      const real = path.join(this.realRoot, entry.path);
      // Only what was actually changed is written back: an apply that failed before writing a
      // file (a read-only directory) must not have its rollback fail on that same file.
      if (await this.#isAsJournaled(real, entry)) continue;
      try {
        await this.#retry(async () => {
          if (entry.existed) {
            await this.#mkdirs(real);
            await this.#replace(real, entry.bytes!, entry.mode);
          } else {
            try {
              await this.fs.unlink(real);
            } catch (err) {
              if (errnoOf(err) !== "ENOENT") throw err;
            }
          }
        });
      } catch (err) {
        failures.push(`${entry.path}: ${messageOf(err)}`);
      }
    }
    await this.#sweepOrphans();
    for (const dir of [...scope.dirs].reverse()) {
      const real = path.join(this.realRoot, dir);
      try {
        await this.#retry(async () => {
          try {
            await this.fs.rmdir(real);
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
