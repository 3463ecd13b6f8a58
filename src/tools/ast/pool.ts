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

export interface PoolOptions {
  signal?: AbortSignal | undefined;
  /** Threads to use; default: automatic (env TOLLGATE_AST_THREADS overrides; 0 = inline). */
  threads?: number | undefined;
  /** Sizes for scheduling (largest first). */
  sizes?: ReadonlyMap<string, number> | undefined;
  /** Called after every file: files done, total, matches found so far (for progress displays). */
  progress?: ((done: number, total: number, matches: number) => void) | undefined;
}

function countMatches(result: FileResult): number {
  return result.status === "matched" ? result.matches.length : 0;
}

const MIN_FILES_FOR_THREADS = 24;
const IN_FLIGHT = 4;
const MIN_BYTES_FOR_THREADS = 1024 * 1024;

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

function abortError(): Error {
  return new ToolError("Aborted");
}

export async function processFiles(files: readonly EngineFile[], job: EngineJob, options: PoolOptions = {}): Promise<FileResult[]> {
  const threads = threadCount(files, options);
  const script = threads > 0 ? workerScript() : undefined;
  if (!script) {
    const napi = await loadNapi();
    const processor = new FileProcessor(napi, job);
    const out: FileResult[] = [];
    let matches = 0;
    for (const file of files) {
      if (options.signal?.aborted) throw abortError();
      const result = processor.process(file);
      matches += countMatches(result);
      out.push(result);
      // Native syntax trees are freed by finalizers that run only when the event loop turns.
      if (out.length % 32 === 0) await new Promise((r) => setImmediate(r));
      options.progress?.(out.length, files.length, matches);
    }
    return out;
  }
  // Largest files first so one big file does not finish last on a single thread.
  const order = files.map((_, i) => i);
  if (options.sizes) order.sort((a, b) => (options.sizes!.get(files[b]!.rel) ?? 0) - (options.sizes!.get(files[a]!.rel) ?? 0));
  const results: Array<FileResult | undefined> = new Array(files.length);
  const workers: Worker[] = [];
  // The main thread takes files from the same queue while the workers start (a worker needs
  // ~100 ms to boot and load napi) and between their messages, instead of waiting idle.
  const napi = await loadNapi();
  const local = new FileProcessor(napi, job);
  try {
    await new Promise<void>((resolve, reject) => {
      let next = 0;
      let done = 0;
      let matches = 0;
      let failed = false;
      const fail = (err: Error) => {
        if (failed) return;
        failed = true;
        reject(err);
      };
      const onAbort = () => fail(abortError());
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (files.length === 0) return resolve();
      const complete = (id: number, result: FileResult) => {
        results[id] = result;
        done++;
        matches += countMatches(result);
        options.progress?.(done, files.length, matches);
        if (done === files.length) {
          options.signal?.removeEventListener("abort", onAbort);
          resolve();
        }
      };
      const feed = (w: Worker) => {
        if (failed || next >= order.length) return;
        const id = order[next++]!;
        w.postMessage({ id, file: files[id] });
      };
      for (let t = 0; t < threads; t++) {
        const w = new Worker(script, { workerData: { job } });
        workers.push(w);
        w.on("message", (msg: { ready?: true; id?: number; result?: FileResult; error?: string }) => {
          if (msg.ready) {
            // A few files in flight per worker: it never waits for a round trip to the main
            // thread between files (hundreds of small files otherwise cost that many waits).
            for (let k = 0; k < IN_FLIGHT; k++) feed(w);
            return;
          }
          if (msg.error !== undefined) return fail(new ToolError(msg.error));
          complete(msg.id!, msg.result!);
          feed(w);
        });
        w.on("error", (err) => fail(err instanceof Error ? err : new Error(String(err))));
        w.on("exit", (code) => {
          if (done < files.length && code !== 0) fail(new Error(`ast worker exited with code ${code}`));
        });
      }
      const helpOut = () => {
        if (failed || next >= order.length) return;
        const id = order[next++]!;
        try {
          complete(id, local.process(files[id]!));
        } catch (err) {
          return fail(err instanceof Error ? err : new Error(String(err)));
        }
        setImmediate(helpOut); // let worker messages in between files
      };
      setImmediate(helpOut);
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results as FileResult[];
}
