import { BlockedError, StaleError } from "../errors.js";
import { asError, messageOf } from "../util/thrown.js";
import type { FileChange, TextEdit } from "../domain/types.js";
import { applyEdits, applyEditsToAscii, buildChange } from "./change.js";
import { AtomicFiles } from "./files.js";
import { tempTag } from "./fs.js";
import { ensureStateDir, journalChunks, journalPath, type JournalEntry, type JournalState } from "./journal.js";
import { newNonce, recordDir, removeRecord, writeRecord } from "./journal-record.js";
import { nodeProcess, type ProcessHost } from "../process-host.js";
import { mapLimit } from "../util/limit.js";
import { EditLedger } from "./rebase.js";
import { decodeText, describeProblem } from "./text.js";
import type { TreeView } from "./view.js";

export interface TransactionOptions {
  /**
   * `--atomic`: the journal keeps every original overwritten during the run until `commit()`, so
   * `rollback()` (or `tollgate recover` after a crash) undoes the whole run.
   */
  atomic?: boolean;
  /** Attempts per file operation while rolling back (default 3). */
  restoreAttempts?: number;
  /** fsync the journal before writing (default true; tests may turn it off for speed). */
  durableJournal?: boolean;
  /** The process the run is in: the journal's pid, and its environment for where journal records go (absent: this one). */
  process?: ProcessHost;
}

/** An action's apply failed after writing, and everything it wrote was restored. */
/** The error of an apply with stale files: those overlapping this run's writes first, by name. */
function staleError(stale: readonly string[], overlapping: readonly string[]): StaleError {
  if (overlapping.length === 0) return new StaleError(`Stale: ${stale.join(", ")} changed since the preview; nothing was written`, [...stale]);
  const others = stale.filter((p) => !overlapping.some((o) => o.startsWith(`${p} (`)));
  const parts = [...overlapping, ...(others.length ? [`${others.join(", ")} changed since the preview`] : [])];
  return new StaleError(`Stale: ${parts.join("; ")}; nothing was written`, [...stale]);
}

/** What the ledger learns once the writes are committed: each rewrite's hashes and edits (no texts). */
function historyOf(
  plan: readonly WriteStep[],
  written: readonly FileChange[],
): Array<{ path: string; beforeSha256: string; afterSha256: string; edits: readonly TextEdit[] }> {
  return plan.flatMap((step, i) => {
    const done = written[i]!;
    if (step.edits === null || !step.original.existed || done.beforeSha256 === null || done.afterSha256 === null) return [];
    return [{ path: step.original.path, beforeSha256: done.beforeSha256, afterSha256: done.afterSha256, edits: step.edits }];
  });
}

export class RolledBackError extends Error {
  readonly rolledBack = true;
  readonly journalKept = false;
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "RolledBackError";
  }
}

/** Rolling back failed: the workspace is inconsistent until `tollgate recover` runs. */
export class RollbackError extends Error {
  readonly rolledBack = false;
  readonly journalKept = true;
  readonly failures: string[];
  constructor(message: string, failures: string[]) {
    super(message);
    this.name = "RollbackError";
    this.failures = failures;
  }
}

/**
 * How an action's apply ended. `error`: what to record — a RolledBackError when files were
 * restored, a RollbackError when they could not be (journal kept), else the failure itself
 * (nothing had been written). `written`: the changes as written (rebased ones with their own
 * diffs); empty when it failed or when this action joined an outer one.
 */
export interface ActionEnd {
  error?: Error;
  written: FileChange[];
}

/** One action's writes as a unit, nested in the run's transaction. */
export interface ActionTransaction {
  /** Commits what the action wrote (no error), or rolls it back (`error`: why the action failed). */
  end(error?: unknown): Promise<ActionEnd>;
}

/** One file of an apply, checked and ready to be written. */
interface WriteStep {
  change: FileChange;
  real: string;
  rel: string;
  original: JournalEntry;
  edits: readonly TextEdit[] | null;
  rebased: boolean;
}

/**
 * Files of one apply read or rewritten at once: a filesystem whose operations wait (an injected
 * or remote one) overlaps them; few enough that only that many files' texts are in memory.
 */
const IO_CONCURRENCY = 8;

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

/**
 * The run's journaled transaction: actions are nested transactions (`beginAction` …
 * `end`), and everything an action writes through `apply` is journaled before it is written, so
 * a failed action is restored and a killed run can be recovered. Under `--atomic` the run is one
 * transaction too: `commit()` or `rollback()` at its end.
 */
export class RunTransaction {
  readonly atomic: boolean;
  /** This run's writes, as edits: later changes staged with edits are rebased over them. */
  readonly ledger = new EditLedger();
  readonly #view: TreeView;
  readonly #files: AtomicFiles;
  readonly #attempts: number;
  readonly #durable: boolean;
  readonly #host: ProcessHost;
  #action: Scope | undefined;
  #run: Scope | undefined;
  #broken: string | undefined;
  readonly #journalCreatedAt = new Date().toISOString();
  /** Vouches for this workspace's journals: also recorded outside the workspace (journal-record.ts). */
  readonly #nonce = newNonce();
  #recorded = false;
  /** The record being written ahead of the first apply (`prepare`): whether it was. */
  #recording: Promise<boolean> | undefined;

  constructor(view: TreeView, options: TransactionOptions = {}) {
    this.#view = view;
    this.atomic = options.atomic ?? false;
    this.#attempts = options.restoreAttempts ?? 3;
    this.#files = new AtomicFiles(view.realRoot, view.fs, this.#attempts, tempTag(this.#nonce));
    this.#durable = options.durableJournal ?? true;
    this.#host = options.process ?? nodeProcess();
    if (this.atomic) this.#run = new Scope();
  }

  /**
   * A run that may apply (it holds the workspace lock) calls this at its start: the record that
   * will vouch for its first journal is written now, beside the run's search, so its fsync —
   * the first of the run, which also flushes whatever the filesystem had pending — is not paid
   * in front of the first apply. `close` removes it again if no journal came to need it.
   */
  prepare(): void {
    if (this.#recorded || this.#recording) return;
    this.#recording = this.#record();
  }

  /** Writes the record; whether it was written. */
  #record(): Promise<boolean> {
    return writeRecord(this.#records(), this.#view.realRoot, this.#nonce, this.#durable).then(
      () => true,
      () => false,
    );
  }

  /** Where the journal records go, as the environment says when asked. */
  #records(): string {
    return recordDir(this.#host.env);
  }

  /** The run is over: a record written ahead (`prepare`) that no journal used is removed. */
  async close(): Promise<void> {
    const recording = this.#recording;
    this.#recording = undefined;
    if (recording && (await recording) && !this.#recorded) removeRecord(this.#records(), this.#view.realRoot, this.#nonce);
  }

  /** Set when a rollback failed: no more writes until `tollgate recover` has run. */
  get needsRecovery(): string | undefined {
    return this.#broken;
  }

  /**
   * Starts an action: everything written through `apply` until `end` is one unit. `end(error)`
   * rolls back what the action wrote when `error` is given, else commits (a commit can fail
   * too — the journal cannot be removed — and the action is then rolled back). A begin while an
   * action is open joins it: its `end` leaves commit or rollback to the outer one.
   */
  beginAction(options: { owner?: string } = {}): ActionTransaction {
    if (this.#action) {
      return { end: async (error) => (error === undefined ? { written: [] } : { error: asError(error), written: [] }) };
    }
    if (this.#broken) {
      const broken = this.#broken;
      return { end: async () => ({ error: new Error(broken), written: [] }) };
    }
    const scope = new Scope();
    scope.owner = options.owner;
    this.#action = scope;
    let ended = false;
    return {
      end: async (error) => {
        if (ended) return { written: [] };
        ended = true;
        if (this.#action === scope) this.#action = undefined;
        if (error !== undefined) return { error: await this.#abort(scope, error), written: [] };
        try {
          await this.#commit(scope);
          return { written: scope.written };
        } catch (err) {
          return { error: asError(err), written: [] };
        }
      },
    };
  }

  /**
   * Applies staged changes: checks each file against its staged sha256 (rebasing where the
   * producer allows), journals the originals, then writes each file atomically, its new content
   * made from the original and the edits only when it is written (a few files' texts in hand at
   * a time). Inside an action, a failure leaves the rollback to the action's `end`; outside one the
   * apply is its own action (restored at once, the error then a RolledBackError). Returns the
   * changes as written (a rebased one with its own diff). Throws StaleError naming the files
   * whose change no longer holds; nothing is written then.
   */
  async apply(changes: readonly FileChange[]): Promise<FileChange[]> {
    if (this.#broken) throw new Error(this.#broken);
    const plan = await this.#planWrites(changes);
    const implicit = this.#action === undefined;
    const scope = this.#action ?? new Scope();
    if (implicit) this.#action = scope;
    const owner = scope.owner;
    let written: FileChange[];
    try {
      for (const step of plan) {
        scope.add(step.original);
        // A file that exists has its directory: only a created file can need new ones.
        if (step.edits !== null && !step.original.existed) for (const dir of await this.#files.missingDirs(step.real)) scope.addDir(dir);
      }
      await this.#persist();
      scope.wrote = true;
      written = await this.#writePlan(plan);
    } catch (err) {
      if (!implicit) throw err;
      this.#action = undefined;
      throw await this.#abort(scope, err);
    }
    scope.written.push(...written);
    if (implicit) {
      this.#action = undefined;
      await this.#commit(scope);
    }
    // Later movable changes are rebased over these writes (rebase.ts).
    for (const h of historyOf(plan, written)) this.ledger.record(h.path, { beforeSha256: h.beforeSha256, afterSha256: h.afterSha256, edits: h.edits, owner });
    return written;
  }

  /**
   * Each change checked against the file as it is now: as staged, rebased (over this run's own
   * writes, or by its producer), or stale. Throws StaleError naming every stale file.
   */
  async #planWrites(changes: readonly FileChange[]): Promise<WriteStep[]> {
    const where = this.#view.assertWritable(changes);
    const seen = new Set<string>();
    const targets = changes.map((change, i) => {
      const { real, rel, realRel } = where[i]!;
      if (seen.has(realRel)) throw new Error(`File changed twice in one apply: ${rel}`);
      seen.add(realRel);
      return { change, real, rel, realRel };
    });
    // Distinct files: read concurrently (reading changes nothing, so a failure just ends the apply).
    const originals = await mapLimit(targets, IO_CONCURRENCY, (t) => this.#files.snapshot(t.real, t.realRel));
    const plan: WriteStep[] = [];
    const stale: string[] = [];
    const overlapping: string[] = [];
    for (const [i, { change, real, rel }] of targets.entries()) {
      const original = originals[i]!;
      const currentSha = original.existed ? original.sha256! : null;
      if (currentSha === change.beforeSha256) {
        plan.push({ change, real, rel, original, edits: change.kind === "deleted" ? null : change.edits, rebased: false });
        continue;
      }
      const own = this.#rebaseOverRun(change, original);
      if (own && "overlaps" in own) {
        overlapping.push(`${rel} (overlaps ${own.overlaps})`);
        stale.push(rel);
        continue;
      }
      const rebased = own?.edits ?? rebaseByProducer(change, original);
      if (rebased === undefined) stale.push(rel);
      else plan.push({ change, real, rel, original, edits: rebased, rebased: true });
    }
    if (stale.length > 0) throw staleError(stale, overlapping);
    return plan;
  }

  /** Writes one planned file; returns the change as written (a rebased one with its own diff). */
  async #writeStep(step: WriteStep): Promise<FileChange> {
    // A change as staged on a file of ASCII text is written from the bytes in hand.
    const ascii = !step.rebased && step.original.existed && step.edits !== null ? applyEditsToAscii(step.original.bytes!, step.edits) : undefined;
    if (ascii) {
      await this.#files.replace(step.real, ascii, step.original.mode);
      return step.change;
    }
    const before = step.original.existed ? textOf(step.original, step.rel) : null;
    const after = step.edits === null ? null : applyEdits(before ?? "", step.edits);
    if (after === undefined) throw new Error(`The staged edits of ${step.rel} do not fit the file; nothing more was written`);
    if (step.original.existed && after !== null) await this.#files.replace(step.real, after, step.original.mode);
    else await this.#files.write(step.real, after, step.original.mode);
    return step.rebased
      ? buildChange(this.#view.spill, {
          path: step.change.path,
          before,
          beforeSha256: step.original.existed ? step.original.sha256! : null,
          after,
          edits: step.edits ?? [],
        })
      : step.change;
  }

  /**
   * Everything is journaled by now, so the order of the writes does not matter for a rollback or
   * `recover`. Rewrites of files that exist (distinct files, directories there) run a few at a
   * time; a delete or a create (which may make directories) runs alone, in its place, so no two
   * writes ever depend on each other.
   */
  async #writePlan(plan: readonly WriteStep[]): Promise<FileChange[]> {
    const written: FileChange[] = [];
    for (let i = 0; i < plan.length;) {
      let j = i;
      while (j < plan.length && plan[j]!.original.existed && plan[j]!.edits !== null) j++;
      if (j === i) j = i + 1;
      written.push(...(await mapLimit(plan.slice(i, j), j - i > 1 ? IO_CONCURRENCY : 1, (step) => this.#writeStep(step))));
      i = j;
    }
    return written;
  }

  /** Files (real-root-relative) the run has overwritten so far under `--atomic`. */
  get runPaths(): string[] {
    return [...(this.#run?.entries.keys() ?? [])];
  }

  /**
   * `--atomic`: restores every file the run wrote to what it was before the run and clears the
   * journal. Returns the restored paths. Throws RollbackError (journal kept) if that fails.
   */
  async rollback(): Promise<string[]> {
    const run = this.#run;
    if (!run) return [];
    this.#run = new Scope();
    if (run.entries.size === 0 && run.dirs.length === 0) return [];
    const failures = await this.#files.restore([...run.entries.values()], run.dirs);
    await this.#files.sweepOrphans();
    if (failures.length > 0) {
      this.#run = run;
      this.#broken = `Rolling back the run failed (${failures.join("; ")}); the journal is kept in ${journalPath(this.#view.root)}: run \`tollgate recover\``;
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
  async commit(): Promise<void> {
    if (!this.#run || this.#broken) return;
    await this.#files.sweepOrphans();
    if (this.#run.entries.size === 0 && this.#run.dirs.length === 0) return;
    // If the journal cannot be removed this throws and the run is still intact: the caller
    // rolls it back (the journal on disk then matches the files again).
    await this.#clearJournal();
    this.#run = new Scope();
  }

  /**
   * Puts files back as a journal describes them (used by `recover`); returns what failed. Its
   * temp files are named by the journal's nonce, so a restore killed midway leaves only temp
   * files the next `recover` of the same journal finds by name.
   */
  restore(state: JournalState, nonce: string): Promise<string[]> {
    const scope = new Scope();
    for (const e of state.entries) scope.add(e);
    for (const d of state.dirs) scope.addDir(d);
    const files = new AtomicFiles(this.#view.realRoot, this.#view.fs, this.#attempts, tempTag(nonce));
    return files.restore([...scope.entries.values()], scope.dirs);
  }

  /** Undo after a failure; returns the error to record. */
  async #abort(scope: Scope, err: unknown): Promise<Error> {
    try {
      return await this.#abortInner(scope, err);
    } finally {
      await this.#files.sweepOrphans();
    }
  }

  async #abortInner(scope: Scope, err: unknown): Promise<Error> {
    const error = asError(err);
    if (!scope.wrote) {
      // Nothing was written: the journal (if any was written) only needs to shrink back.
      await this.#persistOrClear().catch(() => undefined);
      return error;
    }
    const failures = await this.#files.restore([...scope.entries.values()], scope.dirs);
    if (failures.length > 0) {
      if (this.#run) this.#run.merge(scope);
      this.#broken = `${messageOf(err)}; rolling back failed too (${failures.join("; ")}); the journal is kept in ${journalPath(this.#view.root)}: run \`tollgate recover\``;
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
    await this.#files.sweepOrphans();
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
    const all = new Scope();
    if (this.#run) all.merge(this.#run);
    if (this.#action) all.merge(this.#action);
    const state: JournalState = { entries: [...all.entries.values()], dirs: all.dirs };
    if (state.entries.length === 0 && state.dirs.length === 0) return;
    const root = this.#view.root;
    await ensureStateDir(root);
    if (!this.#recorded) {
      // Before the journal exists, so a journal on disk always has its record. Without a
      // writable state directory the apply still runs; its journal then cannot be recovered
      // (recover refuses a journal without its record and says why).
      const ahead = this.#recording;
      this.#recording = undefined;
      this.#recorded = (ahead !== undefined && (await ahead)) || (await this.#record());
    }
    const meta = { pid: this.#host.pid, createdAt: this.#journalCreatedAt, atomic: this.atomic, nonce: this.#nonce };
    await this.#files.retry(() => this.#files.replace(journalPath(root), journalChunks(state, meta), undefined, this.#durable));
  }

  async #persistOrClear(): Promise<void> {
    if (this.#run && (this.#run.entries.size > 0 || this.#run.dirs.length > 0)) await this.#persist();
    else await this.#clearJournal();
  }

  async #clearJournal(): Promise<void> {
    await this.#files.retry(() => this.#files.unlinkIfExists(journalPath(this.#view.root)));
    if (this.#recorded) {
      removeRecord(this.#records(), this.#view.realRoot, this.#nonce);
      this.#recorded = false;
    }
  }

  /**
   * A movable change staged against a version of the file this run has since written: its
   * edits moved over those writes, or the id of the action one of them overlaps. Undefined when
   * the file changed some other way (the producer's own rebase may still apply).
   */
  #rebaseOverRun(change: FileChange, original: JournalEntry): { edits: readonly TextEdit[] } | { overlaps: string } | undefined {
    if (!change.movable || change.kind !== "modified" || change.beforeSha256 === null || !original.existed) return undefined;
    const r = this.ledger.rebase(original.path, change.edits, change.beforeSha256, original.sha256!);
    if (!r.ok) return r.overlap ? { overlaps: r.overlap.owner ?? "an action applied earlier in this run" } : undefined;
    return { edits: r.edits };
  }
}

/** Edits that still make the change on the file's current text (the producer's rebase), or undefined (stale). */
function rebaseByProducer(change: FileChange, original: JournalEntry): readonly TextEdit[] | undefined {
  if (!change.rebase || !original.existed || change.kind === "created") return undefined;
  const decoded = decodeText(original.bytes!, Number.POSITIVE_INFINITY);
  if ("problem" in decoded) return undefined;
  try {
    return change.rebase(decoded.text);
  } catch {
    return undefined;
  }
}

function textOf(original: JournalEntry, rel: string): string {
  const decoded = decodeText(original.bytes!, Number.POSITIVE_INFINITY);
  if ("problem" in decoded) throw new Error(`Cannot edit ${rel}: ${describeProblem(decoded.problem)}`);
  return decoded.text;
}
