/**
 * Worker processes that run jscodeshift transforms. Loaded only by a recipe that uses
 * the `jscodeshift` tool: nothing here or in jscodeshift is imported at start-up.
 *
 * Contracts:
 * - The number of workers and their flags are the caller's (./workers.ts: the CPUs within a
 *   memory budget), fewer for few files. The worker a transform was checked in waits for its step (unref'd: it never
 *   keeps the process alive, and exits when tollgate does, as its IPC channel closes); a step's
 *   workers end with the step, and it waits for them to exit (close()). A worker left with no
 *   file to take is closed at once (its exit overlaps the other workers' last files; a file
 *   that must run again later gets a fresh worker).
 * - Processes, as jscodeshift's own workers, not threads: a worker's working directory is the
 *   workspace root, so a transform resolving paths against process.cwd() (or opening
 *   fileInfo.path as given) finds the workspace's files, while tollgate's own working directory
 *   never changes; a worker stuck in a transform can be killed.
 * - A worker keeps each transform it loaded (keyed by path, size and mtime), like jscodeshift's
 *   worker keeps its one transform for all its files; a worker that has loaded many distinct
 *   transforms is replaced so memory stays bounded.
 * - A file whose transform does not finish within the step's fileTimeout fails with that reason
 *   and its worker is killed and replaced; a worker that dies fails only the file it was running
 *   (the files queued behind it run elsewhere). Replacements are bounded: when they run out,
 *   the remaining files fail with the reason.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fork, type ChildProcess } from "node:child_process";
import type { LoadReply, RunReply, ToWorker } from "./protocol.js";
import type { FileOutcome } from "./outcomes.js";
import { messageOf } from "../../util/thrown.js";
import type { ProcessHost } from "../../process-host.js";

const nodeRequire = createRequire(import.meta.url);

/** jscodeshift's own worker module: the worker resolves jscodeshift and Babel from it. */
function jscodeshiftWorkerPath(): string {
  return nodeRequire.resolve("jscodeshift/src/Worker.js");
}

export function jscodeshiftVersion(): string {
  return (nodeRequire("jscodeshift/package.json") as { version: string }).version;
}

/**
 * The CLI's default `--extensions` of the jscodeshift version used: Babel's DEFAULT_EXTENSIONS
 * (as the thread read them from the @babel/core jscodeshift uses) plus ts and tsx, without dots,
 * sorted (bin/jscodeshift.js).
 */
export function defaultExtensions(babelExtensions: readonly string[]): string[] {
  return [...babelExtensions, "ts", "tsx"].map((e) => (e.startsWith(".") ? e.slice(1) : e)).sort();
}

/**
 * The jscodeshift CLI's option defaults (bin/jscodeshift.js of 17.x through its argsParser: every
 * option with a default, and [] for list options), which its worker hands to every transform.
 */
export function cliDefaults(babelExtensions: readonly string[]): Record<string, unknown> {
  return {
    transform: "./transform.js",
    verbose: 0,
    dry: false,
    print: false,
    babel: true,
    extensions: defaultExtensions(babelExtensions).join(","),
    ignorePattern: [],
    ignoreConfig: [],
    gitignore: false,
    runInBand: false,
    silent: false,
    parser: "babel",
    failOnError: false,
    stdin: false,
  };
}

function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const candidates = [fileURLToPath(new URL("./jscodeshift-worker.js", import.meta.url))];
  // Running from the TypeScript sources (tests): the compiled worker of `npm run build`.
  if (here.endsWith(".ts")) {
    const rel = path.relative(path.resolve(path.dirname(here), "../../.."), path.dirname(here));
    candidates.push(path.resolve(path.dirname(here), "../../..", rel.replace(/^src/, "dist"), "jscodeshift-worker.js"));
  }
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`jscodeshift worker script not found (looked for ${candidates.join(", ")}); run npm run build`);
  return found;
}

/**
 * Default of the step's `fileTimeout`: milliseconds a transform may take over one file. It stops
 * a transform that never returns; it must not fail real work: recast reprinting a large legacy
 * file (a few hundred kilobytes) can take most of a minute on a slow, busy machine.
 */
export const DEFAULT_FILE_TIMEOUT_MS = 120_000;
/** Loading a transform (Babel may compile it and its imports afresh) gets at least this long. */
const MIN_LOAD_TIMEOUT_MS = 120_000;
const MAX_TRANSFORMS_PER_WORKER = 8;
const IN_FLIGHT = 2;

/** How a worker process is started: its script, jscodeshift's worker module, Node flags, and who watches it. */
interface WorkerSpec {
  script: string;
  jscodeshiftWorker: string;
  execArgv: readonly string[];
  /** Told of every worker process started (the pool kills them when tollgate exits). */
  track(child: ChildProcess): void;
}

/** A request the worker never started: its worker died before (it is sent again elsewhere). */
class NotStarted extends Error {}

interface Pending {
  resolve(reply: LoadReply | RunReply): void;
  reject(err: Error): void;
  timeoutMs: number;
  timeoutText: string;
}

/**
 * One worker process. Its working directory is the workspace root (a transform sees the
 * workspace root as process.cwd(), as when jscodeshift runs from the project root); its stdout
 * is tollgate's stderr (what a transform prints is a log). It handles requests one at a
 * time in order, so the request at the head of `order` is the one running: its timeout counts
 * from when it got there, and when it expires the process is killed.
 */
class Slot {
  readonly child: ChildProcess;
  readonly pending = new Map<number, Pending>();
  readonly order: number[] = [];
  readonly keys = new Set<string>();
  dead: Error | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    spec: WorkerSpec,
    readonly cwd: string,
    onDeath: (slot: Slot) => void,
  ) {
    this.child = fork(spec.script, [spec.jscodeshiftWorker], { cwd, serialization: "advanced", stdio: ["ignore", 2, 2, "ipc"], execArgv: [...spec.execArgv] });
    spec.track(this.child);
    this.child.on("message", (reply: LoadReply | RunReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.order[0] === reply.id) this.order.shift();
      else this.order.splice(this.order.indexOf(reply.id), 1);
      this.#arm();
      p.resolve(reply);
    });
    this.#onDeath = onDeath;
    this.child.on("error", (err) => this.kill(new Error(`jscodeshift worker failed: ${err.message.split("\n")[0]}`)));
    this.child.on("exit", (code, sig) => this.kill(new Error(`jscodeshift worker exited (${sig ? `signal ${sig}` : `code ${code}`})`)));
  }

  readonly #onDeath: (slot: Slot) => void;

  #arm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const head = this.order[0];
    const p = head === undefined ? undefined : this.pending.get(head);
    if (!p) return;
    this.#timer = setTimeout(() => this.kill(new Error(p.timeoutText)), p.timeoutMs);
    this.#timer.unref();
  }

  /** Stops the process: the running request fails with `err`, the queued ones with NotStarted. */
  kill(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    if (this.#timer) clearTimeout(this.#timer);
    const [head, ...rest] = this.order.splice(0);
    const running = head === undefined ? undefined : this.pending.get(head);
    const queued = rest.map((id) => this.pending.get(id)).filter((p): p is Pending => p !== undefined);
    this.pending.clear();
    running?.reject(err);
    for (const p of queued) p.reject(new NotStarted(err.message));
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    this.#onDeath(this);
  }

  /** Ends the process (its IPC channel closes, so it exits) and resolves once it has exited. */
  close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        resolve();
        return;
      }
      this.child.once("exit", () => resolve());
    });
    if (!this.dead) {
      this.dead = new Error("jscodeshift worker closed");
      this.#onDeath(this);
    }
    if (this.child.connected) this.child.disconnect();
    const force = setTimeout(() => this.child.kill("SIGKILL"), 2000);
    return exited.finally(() => clearTimeout(force));
  }

  ref(on: boolean): void {
    const channel = this.child.channel as { ref?(): void; unref?(): void } | undefined;
    if (on) {
      this.child.ref();
      channel?.ref?.();
    } else {
      this.child.unref();
      channel?.unref?.();
    }
  }

  send(msg: ToWorker, timeoutMs: number, timeoutText: string): Promise<LoadReply | RunReply> {
    if (this.dead) return Promise.reject(new NotStarted(this.dead.message));
    return new Promise((resolve, reject) => {
      this.pending.set(msg.id, { resolve, reject, timeoutMs, timeoutText });
      this.order.push(msg.id);
      if (this.order.length === 1) this.#arm();
      this.child.send(msg, (err) => {
        if (err) this.kill(new Error(`jscodeshift worker failed: ${err.message}`));
      });
    });
  }
}

interface TransformModule {
  /** Absolute path of the module file. */
  file: string;
  key: string;
}

interface PoolFile {
  rel: string;
  /** Reads the file's text (called just before it is sent to a worker). */
  read(): Promise<string>;
}

export type { FileOutcome } from "./outcomes.js";

interface RunSettings {
  /** The workspace root: the workers' working directory. */
  cwd: string;
  workers: number;
  /** Milliseconds one file may take (DEFAULT_FILE_TIMEOUT_MS). */
  fileTimeoutMs?: number;
  signal?: AbortSignal;
}

function loadTimeout(fileTimeoutMs: number): number {
  return Math.max(fileTimeoutMs, MIN_LOAD_TIMEOUT_MS);
}

/** Workers that run one tool's transforms (a recipe's jscodeshift steps share its warm workers). */
export class TransformPool {
  readonly #slots: Slot[] = [];
  /**
   * `execArgv`: every worker's Node flags (./workers.ts). `host`: the process tollgate runs in; a
   * worker busy in a transform cannot see its IPC channel close, so when tollgate exits (however
   * it exits but by a signal it does not handle) its live workers are killed with it.
   */
  constructor(
    readonly execArgv: readonly string[],
    readonly host: Pick<ProcessHost, "onExit">,
  ) {}

  /** Worker processes not yet exited, and the exit hook that kills them (while there are any). */
  readonly #children = new Set<ChildProcess>();
  #offExit: (() => void) | undefined;

  /** Exits of closed workers not yet waited for (close() waits for them). */
  readonly #closing = new Set<Promise<void>>();
  #nextId = 0;
  #script: string | undefined;
  readonly #jscodeshiftWorker = jscodeshiftWorkerPath();

  #track(child: ChildProcess): void {
    this.#children.add(child);
    this.#offExit ??= this.host.onExit(() => {
      for (const c of this.#children) c.kill("SIGKILL");
    });
    child.once("exit", () => {
      this.#children.delete(child);
      if (this.#children.size > 0) return;
      this.#offExit?.();
      this.#offExit = undefined;
    });
  }

  #spawn(cwd: string): Slot {
    this.#script ??= workerScript();
    const spec: WorkerSpec = { script: this.#script, jscodeshiftWorker: this.#jscodeshiftWorker, execArgv: this.execArgv, track: (c) => this.#track(c) };
    const slot = new Slot(spec, cwd, (s) => {
      const i = this.#slots.indexOf(s);
      if (i !== -1) this.#slots.splice(i, 1);
    });
    this.#slots.push(slot);
    return slot;
  }

  #slotsFor(mod: TransformModule, n: number, cwd: string): Slot[] {
    for (const s of [...this.#slots]) {
      // Workers of another workspace, or full of other transforms, make way.
      if (s.cwd !== cwd || (!s.keys.has(mod.key) && s.keys.size >= MAX_TRANSFORMS_PER_WORKER)) this.#retire(s);
    }
    // Workers that already hold this transform first.
    const sorted = [...this.#slots].sort((a, b) => Number(b.keys.has(mod.key)) - Number(a.keys.has(mod.key)));
    const out = sorted.slice(0, n);
    while (out.length < n) out.push(this.#spawn(cwd));
    for (const s of out) s.ref(true);
    return out;
  }

  /** Kills `slot` now; close() waits for its exit too. */
  #retire(slot: Slot): void {
    slot.kill(new Error("jscodeshift worker retired"));
    this.#release(slot);
  }

  /** Starts ending `slot`; close() waits for its exit. */
  #release(slot: Slot): void {
    const exited = slot.close();
    this.#closing.add(exited);
    void exited.finally(() => this.#closing.delete(exited));
  }

  #idle(): void {
    for (const s of this.#slots) s.ref(false);
  }

  #loadOn(slot: Slot, mod: TransformModule, timeoutMs: number): Promise<LoadReply> {
    slot.keys.add(mod.key);
    return slot.send(
      { type: "load", id: ++this.#nextId, key: mod.key, file: mod.file },
      timeoutMs,
      `Loading the transform took longer than ${timeoutMs} ms; its worker was stopped`,
    ) as Promise<LoadReply>;
  }

  /** Loads the module in one worker (which keeps it): does it export a function, and a parser? */
  async load(mod: TransformModule, cwd: string, fileTimeoutMs = DEFAULT_FILE_TIMEOUT_MS): Promise<LoadReply> {
    const [slot] = this.#slotsFor(mod, 1, cwd);
    try {
      return await this.#loadOn(slot!, mod, loadTimeout(fileTimeoutMs));
    } catch (err) {
      return { type: "loaded", id: 0, ok: false, error: messageOf(err), babelExtensions: [] };
    } finally {
      this.#idle();
    }
  }

  /** Starts `n` workers holding the transform (a step that will run soon), without waiting. */
  prewarm(mod: TransformModule, cwd: string, n: number, fileTimeoutMs = DEFAULT_FILE_TIMEOUT_MS): void {
    for (const s of this.#slotsFor(mod, n, cwd)) {
      if (s.keys.has(mod.key)) continue; // e.g. the worker a load() in flight waits for: it stays ref'd
      void this.#loadOn(s, mod, loadTimeout(fileTimeoutMs)).catch(() => {});
      s.ref(false); // nobody waits for it: it must not keep the process alive
    }
  }

  /**
   * Runs the transform over `files` on up to `settings.workers` workers; `onResult` gets every
   * file's outcome (any order) with its index. A file whose transform does not finish within
   * the timeout fails with that reason, its worker is replaced, and the files queued behind it
   * run elsewhere. Throws only when aborted.
   */
  async run(
    mod: TransformModule,
    files: readonly PoolFile[],
    options: Record<string, unknown>,
    settings: RunSettings,
    onResult: (index: number, outcome: FileOutcome) => void,
  ): Promise<void> {
    if (files.length === 0) return this.close();
    const fileTimeoutMs = settings.fileTimeoutMs ?? DEFAULT_FILE_TIMEOUT_MS;
    const workers = Math.max(1, Math.min(settings.workers, files.length));
    const slots = this.#slotsFor(mod, workers, settings.cwd);
    for (const s of slots) if (!s.keys.has(mod.key)) void this.#loadOn(s, mod, loadTimeout(fileTimeoutMs)).catch(() => {});
    const job: Job = { mod, files, options, cwd: settings.cwd, workers, fileTimeoutMs, onResult };
    const workshop: Workshop = {
      spawn: (cwd) => {
        const s = this.#spawn(cwd);
        s.ref(true);
        void this.#loadOn(s, mod, loadTimeout(fileTimeoutMs)).catch(() => {});
        return s;
      },
      nextId: () => ++this.#nextId,
      retire: (s) => this.#retire(s),
      release: (s) => this.#release(s),
    };
    try {
      await new FileFeed(job, slots, workshop).done(settings.signal);
    } finally {
      // The step's workers end with it; close() waits for their exits (the caller's step does,
      // after staging: nothing of tollgate runs on after it exits, and its CPU time and memory
      // are the workers' too). A later step starts afresh (a worker with a cached transform
      // starts in a fraction of a second).
      for (const s of [...this.#slots]) this.#release(s);
    }
  }

  /** Ends every worker and waits until each has exited (those closed earlier included). */
  async close(): Promise<void> {
    for (const s of this.#slots.splice(0)) this.#release(s);
    await Promise.all([...this.#closing]);
  }
}

/** One run of a transform: what it runs over and how (TransformPool.run). */
interface Job {
  mod: TransformModule;
  files: readonly PoolFile[];
  options: Record<string, unknown>;
  cwd: string;
  /** Workers the run keeps busy. */
  workers: number;
  fileTimeoutMs: number;
  onResult: (index: number, outcome: FileOutcome) => void;
}

/** What a run asks of its pool: a fresh worker (loading the transform), request ids, and ending workers. */
interface Workshop {
  spawn(cwd: string): Slot;
  nextId(): number;
  /** Kills a worker now (abort). */
  retire(slot: Slot): void;
  /** Closes a worker left with nothing to do. */
  release(slot: Slot): void;
}

const errorOutcome = (id: number, error: string): FileOutcome => ({ type: "done", id, status: "error", error, reports: [], stats: {} });

/**
 * Feeds a run's files to its workers, IN_FLIGHT at a time each: the next file (or one to run
 * again) goes to the worker that just finished one. A dead worker is replaced while
 * replacements last (three per worker); when none is left alive, the remaining files fail.
 */
class FileFeed {
  readonly #timeoutText: string;
  /** Files to run again: they were queued behind a file that stopped their worker. */
  readonly #retry: number[] = [];
  /** Texts read and not yet settled (a file sent again is not read twice). */
  readonly #sources = new Map<number, string>();
  /** Files each worker has in hand (reading or running). */
  readonly #held = new Map<Slot, number>();
  /** Workers closed because nothing was left for them (not deaths: never counted or replaced as such). */
  readonly #released = new Set<Slot>();
  readonly #maxRespawns: number;
  #next = 0;
  #settled = 0;
  #respawns = 0;
  #lastDeath = "";
  #stopped = false;
  #finish: { resolve(): void; reject(err: Error): void } | undefined;

  constructor(
    readonly job: Job,
    readonly slots: Slot[],
    readonly workshop: Workshop,
  ) {
    this.#timeoutText = `The transform did not finish within ${job.fileTimeoutMs} ms (fileTimeout); its worker was stopped`;
    this.#maxRespawns = job.workers * 3;
  }

  /** Runs every file; resolves once each has settled, rejects when `signal` aborts. */
  done(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        if (this.#stopped) return;
        this.#stopped = true;
        for (const s of this.slots) this.workshop.retire(s);
        reject(new Error("Aborted"));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#finish = {
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject,
      };
      for (const slot of this.slots) this.#fill(slot);
    });
  }

  #settle(index: number, outcome: FileOutcome): void {
    this.#sources.delete(index);
    this.job.onResult(index, outcome);
    this.#settled++;
    if (this.#settled === this.job.files.length && !this.#stopped) {
      this.#stopped = true;
      this.#finish?.resolve();
    }
  }

  #take(): number | undefined {
    if (this.#retry.length > 0) return this.#retry.shift();
    return this.#next < this.job.files.length ? this.#next++ : undefined;
  }

  #waiting(): number {
    return this.#retry.length + (this.job.files.length - this.#next);
  }

  #inHand(slot: Slot): number {
    return this.#held.get(slot) ?? 0;
  }

  #release(slot: Slot): void {
    this.#held.set(slot, this.#inHand(slot) - 1);
  }

  /** Live workers; a dead one is replaced (loading the transform first) while replacements last. */
  #live(): Slot[] {
    const { slots } = this;
    for (let i = slots.length - 1; i >= 0; i--) {
      if (!slots[i]!.dead) continue;
      if (!this.#released.has(slots[i]!)) this.#lastDeath = slots[i]!.dead!.message;
      slots.splice(i, 1);
    }
    // Replacements only for files that wait (the busy workers keep theirs).
    while (slots.length < this.job.workers && slots.length < this.#waiting() && this.#respawns < this.#maxRespawns) {
      this.#respawns++;
      slots.push(this.workshop.spawn(this.job.cwd));
    }
    return slots;
  }

  #failRest(): void {
    const why = `Not run: the transform's workers were stopped ${this.#respawns + 1} times (last: ${this.#lastDeath})`;
    for (let i = this.#take(); i !== undefined; i = this.#take()) this.#settle(i, errorOutcome(0, why));
  }

  #refill(): void {
    if (this.#stopped) return;
    const alive = this.#live();
    for (const s of alive) this.#fill(s);
    if (alive.length === 0 && this.#waiting() > 0) this.#failRest();
  }

  #send(slot: Slot, index: number, source: string): void {
    const { mod, files, options, fileTimeoutMs } = this.job;
    const id = this.workshop.nextId();
    slot.send({ type: "run", id, key: mod.key, file: mod.file, rel: files[index]!.rel, source, options }, fileTimeoutMs, this.#timeoutText).then(
      (reply) => {
        this.#release(slot);
        if (this.#stopped) return;
        this.#settle(index, reply as RunReply);
        this.#fill(slot);
      },
      (err: unknown) => {
        this.#release(slot);
        if (this.#stopped) return;
        // Queued behind the file that stopped the worker: it runs elsewhere.
        if (err instanceof NotStarted) this.#retry.push(index);
        else this.#settle(index, errorOutcome(id, messageOf(err)));
        this.#refill();
      },
    );
  }

  /** Takes one more file for `slot`; false when none is left. */
  #feed(slot: Slot): boolean {
    const index = this.#take();
    if (index === undefined) return false;
    this.#held.set(slot, this.#inHand(slot) + 1);
    const known = this.#sources.get(index);
    const read = known !== undefined ? Promise.resolve(known) : this.job.files[index]!.read();
    void read.then(
      (source) => {
        if (this.#stopped) {
          this.#release(slot);
          return;
        }
        this.#sources.set(index, source);
        if (!slot.dead) {
          this.#send(slot, index, source);
          return;
        }
        // The worker died while the file was read.
        this.#release(slot);
        this.#retry.push(index);
        this.#refill();
      },
      (err: unknown) => {
        this.#release(slot);
        if (this.#stopped) return;
        this.#settle(index, { type: "unreadable", id: 0, error: messageOf(err) });
        this.#fill(slot);
      },
    );
    return true;
  }

  #fill(slot: Slot): void {
    while (!this.#stopped && !slot.dead && this.#inHand(slot) < IN_FLIGHT && this.#feed(slot));
    if (this.#stopped || slot.dead || this.#inHand(slot) > 0 || this.#waiting() > 0) return;
    // Nothing left for this worker: it ends now, while the others finish their files.
    this.#released.add(slot);
    this.workshop.release(slot);
  }
}
