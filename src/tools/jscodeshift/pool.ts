/**
 * Worker threads that run jscodeshift transforms (SPEC 3.3). Loaded only by a recipe that uses
 * the `jscodeshift` tool: nothing here or in jscodeshift is imported at start-up.
 *
 * Contracts:
 * - A bounded number of threads (defaultThreads: memory bounds it); idle
 *   threads stay for the next step of the run but never keep the process alive (unref).
 * - A thread keeps each transform it loaded (keyed by path, size and mtime), like jscodeshift's
 *   worker keeps its one transform for all its files; a thread that has loaded many distinct
 *   transforms is replaced so memory stays bounded.
 * - A thread that dies fails only the files it held (listed as errors); the rest go on elsewhere.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { LoadReply, RunReply, ToWorker } from "./protocol.js";

const nodeRequire = createRequire(import.meta.url);

/** jscodeshift's own worker module: the thread resolves jscodeshift and Babel from it. */
export function jscodeshiftWorkerPath(): string {
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
 * Worker threads by default: one per CPU, at most 2 (env TOLLGATE_JSCODESHIFT_WORKERS overrides).
 * The main thread only feeds them (it cannot run transforms: the Babel hook must not touch it),
 * so a thread per CPU keeps every core busy; each thread holds Babel, preset-env, recast, the
 * transform and a file's AST (~100 MiB), and two keep a run under SPEC 9.1's 300 MiB.
 */
export function defaultThreads(): number {
  const env = process.env.TOLLGATE_JSCODESHIFT_WORKERS;
  if (env !== undefined && env.trim() !== "" && Number.isFinite(Number(env))) return Math.max(1, Math.floor(Number(env)));
  const cpus = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(cpus, 2));
}

const MAX_TRANSFORMS_PER_THREAD = 8;
const IN_FLIGHT = 2;

interface Pending {
  resolve(reply: LoadReply | RunReply): void;
  reject(err: Error): void;
}

class Slot {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  readonly keys = new Set<string>();
  dead: Error | undefined;

  constructor(script: string, jscodeshiftWorker: string, onDeath: (slot: Slot) => void) {
    // The thread's own stdout goes to stderr (see the worker): piping its streams here would keep
    // an idle, unref'd thread holding the process open.
    this.worker = new Worker(script, { workerData: { jscodeshiftWorker } });
    this.worker.on("message", (reply: LoadReply | RunReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      p.resolve(reply);
    });
    const die = (err: Error) => {
      if (this.dead) return;
      this.dead = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      onDeath(this);
    };
    this.worker.on("error", (err) => die(new Error(`jscodeshift worker failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`)));
    this.worker.on("exit", (code) => die(new Error(`jscodeshift worker exited (code ${code})`)));
  }

  send(msg: ToWorker): Promise<LoadReply | RunReply> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.pending.set(msg.id, { resolve, reject });
      this.worker.postMessage(msg);
    });
  }
}

export interface TransformModule {
  /** Absolute path of the module file. */
  file: string;
  key: string;
}

export interface PoolFile {
  rel: string;
  /** Reads the file's text (called just before it is sent to a thread). */
  read(): Promise<string>;
}

export type FileOutcome = RunReply | { type: "unreadable"; id: number; error: string };

export class TransformPool {
  readonly #slots: Slot[] = [];
  #nextId = 0;
  #script: string | undefined;
  readonly #jscodeshiftWorker = jscodeshiftWorkerPath();

  #spawn(): Slot {
    this.#script ??= workerScript();
    const slot = new Slot(this.#script, this.#jscodeshiftWorker, (s) => {
      const i = this.#slots.indexOf(s);
      if (i !== -1) this.#slots.splice(i, 1);
    });
    this.#slots.push(slot);
    return slot;
  }

  #slotsFor(mod: TransformModule, n: number): Slot[] {
    for (const s of [...this.#slots]) {
      if (!s.keys.has(mod.key) && s.keys.size >= MAX_TRANSFORMS_PER_THREAD) this.#retire(s);
    }
    // Threads that already hold this transform first.
    const sorted = [...this.#slots].sort((a, b) => Number(b.keys.has(mod.key)) - Number(a.keys.has(mod.key)));
    const out = sorted.slice(0, n);
    while (out.length < n) out.push(this.#spawn());
    for (const s of out) {
      s.worker.ref();
      s.keys.add(mod.key);
    }
    return out;
  }

  #retire(slot: Slot): void {
    const i = this.#slots.indexOf(slot);
    if (i !== -1) this.#slots.splice(i, 1);
    void slot.worker.terminate();
  }

  #idle(): void {
    for (const s of this.#slots) s.worker.unref();
  }

  /** Loads the module in one thread (which keeps it): does it export a function, and a parser? */
  async load(mod: TransformModule): Promise<LoadReply> {
    const [slot] = this.#slotsFor(mod, 1);
    try {
      return (await slot!.send({ type: "load", id: ++this.#nextId, key: mod.key, file: mod.file })) as LoadReply;
    } finally {
      this.#idle();
    }
  }

  /**
   * Runs the transform over `files` on up to `threads` threads; `onResult` gets every file's
   * outcome (any order) with its index. Throws only when aborted.
   */
  async run(
    mod: TransformModule,
    files: readonly PoolFile[],
    options: Record<string, unknown>,
    threads: number,
    onResult: (index: number, outcome: FileOutcome) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    if (files.length === 0) return;
    const n = Math.max(1, Math.min(threads, files.length));
    let slots = this.#slotsFor(mod, n);
    let next = 0;
    let settled = 0;
    let respawns = 0;
    await new Promise<void>((resolve, reject) => {
      let stopped = false;
      const onAbort = () => {
        if (stopped) return;
        stopped = true;
        for (const s of slots) this.#retire(s);
        reject(new Error("Aborted"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      const finish = () => {
        settled++;
        if (settled === files.length && !stopped) {
          stopped = true;
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }
      };
      const feed = (slot: Slot) => {
        if (stopped || slot.dead || next >= files.length) return;
        const index = next++;
        const file = files[index]!;
        const id = ++this.#nextId;
        void file
          .read()
          .then(
            (source) => {
              if (stopped) return;
              if (slot.dead) {
                // The thread died while the file was read: hand it to a live one.
                return sendTo(liveSlot(), index, id, file, source);
              }
              return sendTo(slot, index, id, file, source);
            },
            (err: unknown) => {
              onResult(index, { type: "unreadable", id, error: err instanceof Error ? err.message : String(err) });
              finish();
              feed(slot);
            },
          );
      };
      const liveSlot = (): Slot => {
        slots = slots.filter((s) => !s.dead);
        if (slots.length === 0) {
          respawns++;
          const s = this.#spawn();
          s.keys.add(mod.key);
          slots.push(s);
        }
        return slots[0]!;
      };
      const sendTo = (slot: Slot, index: number, id: number, file: PoolFile, source: string): Promise<void> =>
        slot.send({ type: "run", id, key: mod.key, file: mod.file, rel: file.rel, source, options }).then(
          (reply) => {
            if (stopped) return;
            onResult(index, reply as RunReply);
            finish();
            feed(slot);
          },
          (err: Error) => {
            if (stopped) return;
            onResult(index, { type: "done", id, status: "error", error: err.message, reports: [], stats: {} });
            finish();
            if (respawns > n * 3) {
              while (next < files.length) {
                onResult(next++, { type: "done", id, status: "error", error: err.message, reports: [], stats: {} });
                finish();
              }
              return;
            }
            // Keep going on a live (or fresh) thread.
            if (next < files.length) for (let k = 0; k < IN_FLIGHT; k++) feed(liveSlot());
          },
        );
      for (const slot of slots) for (let k = 0; k < IN_FLIGHT; k++) feed(slot);
    }).finally(() => this.#idle());
  }

  async close(): Promise<void> {
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

let shared: TransformPool | undefined;

/** One pool per process: a recipe's jscodeshift steps share warm threads. */
export function sharedPool(): TransformPool {
  shared ??= new TransformPool();
  return shared;
}
