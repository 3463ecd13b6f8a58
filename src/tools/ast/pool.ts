/**
 * Runs the per-file engine over many files: in worker threads plus the main thread when there
 * is enough work (napi parses on the calling thread, so threads are what gives parallelism),
 * inline otherwise.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ToolError } from "../../errors.js";
import { FileProcessor, type EngineFile, type EngineJob, type FileResult } from "./engine.js";
import { loadNapi } from "./langs.js";
import { turnDue } from "./reclaim.js";

export interface PoolOptions {
  signal?: AbortSignal | undefined;
  /** Threads to use; default: automatic (env TOLLGATE_AST_THREADS overrides; 0 = inline). */
  threads?: number | undefined;
  /** Sizes for scheduling (largest first). */
  sizes?: ReadonlyMap<string, number> | undefined;
  /** Called after every file: files done, total, matches found so far (for progress displays). */
  progress?: ((done: number, total: number, matches: number) => void) | undefined;
}

/**
 * Receives each file's result as it is ready (completion order, not input order; `index` is the
 * file's place in the input). The pool keeps no result: what the consumer drops is freed, so a
 * run over any number of files holds only the results in flight.
 */
export type ResultSink = (result: FileResult, index: number) => void;

function countMatches(result: FileResult): number {
  return result.status === "matched" ? result.matches.length : 0;
}

const MIN_FILES_FOR_THREADS = 24;
const IN_FLIGHT = 4;
const MIN_BYTES_FOR_THREADS = 1024 * 1024;
const LARGE = 256 * 1024;

function workerScript(): string | undefined {
  const url = new URL("./worker.js", import.meta.url);
  if (!import.meta.url.endsWith(".js")) return undefined; // running from TypeScript sources (tests)
  const file = fileURLToPath(url);
  return existsSync(file) ? file : undefined;
}

function threadCount(files: readonly EngineFile[], options: PoolOptions): number {
  const env = process.env.TOLLGATE_AST_THREADS;
  if (options.threads !== undefined) return options.threads;
  if (env !== undefined && env !== "" && Number.isFinite(Number(env))) return Math.max(0, Math.floor(Number(env)));
  const cpus = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
  if (cpus < 2 || files.length < MIN_FILES_FOR_THREADS) return 0;
  let bytes = 0;
  for (const f of files) bytes += options.sizes?.get(f.rel) ?? 0;
  if (options.sizes && bytes < MIN_BYTES_FOR_THREADS) return 0;
  // The main thread works too (see processFiles): one worker fewer than CPUs keeps every core
  // busy without oversubscribing them (on 2 CPUs: 1.1 s against 1.3 s with two workers).
  return Math.min(cpus - 1, 4, Math.ceil(files.length / 8));
}

/**
 * Files to hand out, largest first (one big file does not finish last on a single thread).
 * A file of LARGE bytes or more is handed out only while no other large file is in work: its
 * syntax tree and the nodes of its traversal take tens of MB (about 20 × its size), and every
 * thread working on one at once would add that up; meanwhile the other threads take small files.
 */
class FileQueue {
  readonly #large: number[] = [];
  readonly #small: number[] = [];
  readonly #isLarge = new Set<number>();
  #largeInWork = false;
  remaining: number;
  constructor(files: readonly EngineFile[], sizes: ReadonlyMap<string, number> | undefined) {
    const order = files.map((_, i) => i);
    const size = (i: number) => sizes?.get(files[i]!.rel) ?? 0;
    if (sizes) order.sort((a, b) => size(b) - size(a));
    for (const i of order) {
      if (size(i) >= LARGE) {
        this.#large.push(i);
        this.#isLarge.add(i);
      } else this.#small.push(i);
    }
    this.#large.reverse();
    this.#small.reverse();
    this.remaining = files.length;
  }
  /** The next file to work on, or undefined: none left, or only large ones while one is in work. */
  take(): number | undefined {
    let id: number | undefined;
    if (!this.#largeInWork && this.#large.length > 0) {
      id = this.#large.pop()!;
      this.#largeInWork = true;
    } else id = this.#small.pop();
    if (id !== undefined) this.remaining--;
    return id;
  }
  isLarge(id: number): boolean {
    return this.#isLarge.has(id);
  }
  finished(id: number): void {
    if (this.#isLarge.has(id)) this.#largeInWork = false;
  }
}

function abortError(): Error {
  return new ToolError("Aborted");
}

/** Every file's result, in input order (holds them all: for callers whose results are small). */
export async function processFiles(files: readonly EngineFile[], job: EngineJob, options: PoolOptions = {}): Promise<FileResult[]> {
  const results: FileResult[] = new Array(files.length);
  await streamFiles(files, job, (result, index) => (results[index] = result), options);
  return results;
}

/** Runs the engine over `files`, handing each result to `sink` as it is ready (see ResultSink). */
export async function streamFiles(files: readonly EngineFile[], job: EngineJob, sink: ResultSink, options: PoolOptions = {}): Promise<void> {
  const threads = threadCount(files, options);
  const script = threads > 0 ? workerScript() : undefined;
  if (!script) {
    const napi = await loadNapi();
    const processor = new FileProcessor(napi, job);
    let matches = 0;
    let done = 0;
    for (const [index, file] of files.entries()) {
      if (options.signal?.aborted) throw abortError();
      const result = processor.process(file);
      matches += countMatches(result);
      done++;
      sink(result, index);
      // Native syntax trees are freed by finalizers that run only when the event loop turns
      // (reclaim.ts asks for the collection that finds them).
      if (turnDue()) await new Promise((r) => setImmediate(r));
      options.progress?.(done, files.length, matches);
    }
    return;
  }
  const queue = new FileQueue(files, options.sizes);
  const workers: Worker[] = [];
  // The main thread takes files from the same queue while the workers start (a worker needs
  // ~100 ms to boot and load napi) and between their messages, instead of waiting idle.
  const napi = await loadNapi();
  const local = new FileProcessor(napi, job);
  try {
    await new Promise<void>((resolve, reject) => {
      let done = 0;
      let matches = 0;
      let failed = false;
      let mainIdle = false;
      const fail = (err: Error) => {
        if (failed) return;
        failed = true;
        reject(err);
      };
      const onAbort = () => fail(abortError());
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (files.length === 0) return resolve();
      const complete = (id: number, result: FileResult) => {
        done++;
        matches += countMatches(result);
        queue.finished(id);
        try {
          sink(result, id);
        } catch (err) {
          return fail(err instanceof Error ? err : new Error(String(err)));
        }
        options.progress?.(done, files.length, matches);
        if (done === files.length) {
          options.signal?.removeEventListener("abort", onAbort);
          resolve();
        }
      };
      const inFlight = new Map<Worker, number>();
      const feed = (w: Worker) => {
        while (!failed && (inFlight.get(w) ?? 0) < IN_FLIGHT) {
          const id = queue.take();
          if (id === undefined) return;
          inFlight.set(w, (inFlight.get(w) ?? 0) + 1);
          w.postMessage({ id, file: files[id] });
        }
      };
      // A large file done frees the large-file turn: every thread may take work again.
      const feedAll = () => {
        for (const w of workers) feed(w);
        if (mainIdle) {
          mainIdle = false;
          setImmediate(helpOut);
        }
      };
      for (let t = 0; t < threads; t++) {
        const w = new Worker(script, { workerData: { job } });
        workers.push(w);
        w.on("message", (msg: { ready?: true; id?: number; result?: FileResult; error?: string }) => {
          // A few files in flight per worker: it never waits for a round trip to the main
          // thread between files (hundreds of small files otherwise cost that many waits).
          if (msg.ready) return feed(w);
          if (msg.error !== undefined) return fail(new ToolError(msg.error));
          inFlight.set(w, inFlight.get(w)! - 1);
          const large = queue.isLarge(msg.id!);
          complete(msg.id!, msg.result!);
          if (large) feedAll();
          else feed(w);
        });
        w.on("error", (err) => fail(err instanceof Error ? err : new Error(String(err))));
        w.on("exit", (code) => {
          if (done < files.length && code !== 0) fail(new Error(`ast worker exited with code ${code}`));
        });
      }
      const helpOut = () => {
        if (failed) return;
        const id = queue.take();
        if (id === undefined) {
          mainIdle = queue.remaining > 0;
          return;
        }
        const large = queue.isLarge(id);
        try {
          complete(id, local.process(files[id]!));
        } catch (err) {
          return fail(err instanceof Error ? err : new Error(String(err)));
        }
        if (large) feedAll();
        // Between files: worker messages come in, and the finalizers of dead trees run.
        setImmediate(helpOut);
      };
      setImmediate(helpOut);
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
