/**
 * Runs the per-file engine over many files. napi's `parse` builds a syntax tree on the calling
 * thread; its `parseAsync` builds the same tree on libuv's thread pool. With enough work the
 * files are processed a few at a time on this thread, their parses on the pool: this thread
 * reads, prefilters and traverses trees while other CPUs parse (no worker thread
 * to start, no second copy of the bundle and of napi, no results copied between threads).
 * Inline (`parse`) otherwise.
 */
import os from "node:os";
import { ToolError } from "../../errors.js";
import { FileProcessor, limitedParse, napiParseAsync, type EngineFile, type EngineJob, type FileFind, type FileResult, type MatchCache } from "./engine.js";
import { loadNapi } from "./langs.js";
import { NativeFinder } from "./native.js";
import { Reclaimer } from "./reclaim.js";

/**
 * How the structural engine may use the machine, from the world (the CLI reads its environment);
 * every field absent: automatic.
 */
export interface AstTuning {
  /** Parses under way at once off the main thread (0: every parse on it); default: from the CPUs within a memory budget. */
  threads?: number | undefined;
  /** A full garbage collection, asked for after every megabyte parsed to free dead syntax trees (reclaim.ts); absent: none forced. */
  gc?: (() => void) | undefined;
}

export interface PoolOptions extends AstTuning {
  signal?: AbortSignal | undefined;
  /** Sizes for scheduling (largest first). */
  sizes?: ReadonlyMap<string, number> | undefined;
  /** Whole files matched in napi's own threads (native.ts) when parses run off this thread; default true. */
  native?: boolean | undefined;
  /** Called after every file: files done, total, matches found so far (for progress displays). */
  progress?: ((done: number, total: number, matches: number) => void) | undefined;
  /** `--cache`: the result cache, which gives each job its view (undefined: the job is not cached). */
  cache?: { engine(job: EngineJob): MatchCache | undefined } | undefined;
}

/**
 * Receives each file's result as it is ready (completion order, not input order; `index` is the
 * file's place in the input). The pool keeps no result: what the consumer drops is freed, so a
 * run over any number of files holds only the results in flight.
 */
type ResultSink = (result: FileResult, index: number) => void;

function countMatches(result: FileResult): number {
  return result.status === "matched" ? result.matches.length : 0;
}

const MIN_FILES_FOR_THREADS = 24;
const MIN_BYTES_FOR_THREADS = 1024 * 1024;
const LARGE = 256 * 1024;
/**
 * Files under way at once: enough that a parse is always queued while this thread traverses
 * the trees of another file, few enough to bound the texts and trees held.
 */
const FILES_IN_FLIGHT = 4;
/**
 * With whole-file matching in napi's threads (native.ts) a file waiting for its nodes holds
 * only its text here: more files in flight keep those threads fed.
 */
const FILES_IN_FLIGHT_NATIVE = 12;

/** Native memory that the parses under way may hold at once (their trees), whatever the CPUs. */
const PARSE_MEMORY_BUDGET = 128 * 1024 * 1024;
/** A large file's tree and the nodes of its walk: about 20 × its size. */
const TREE_BYTES_PER_SOURCE_BYTE = 20;
/** libuv's thread pool, which runs `parseAsync`, has this many threads unless UV_THREADPOOL_SIZE says otherwise. */
const LIBUV_THREADS = 4;

/**
 * Parses at once: the world's `threads` when given; else none off this thread for a small run,
 * otherwise as many as the user's CPUs, within the pool's threads and within a memory budget
 * for the trees in flight (each parse may hold one large file's tree).
 */
export function threadCount(files: readonly EngineFile[], options: Pick<PoolOptions, "threads" | "sizes">, cpus = availableCpus()): number {
  if (options.threads !== undefined) return Math.max(0, Math.floor(options.threads));
  if (cpus < 2 || files.length < MIN_FILES_FOR_THREADS) return 0;
  let bytes = 0;
  let largest = 0;
  for (const f of files) {
    const size = options.sizes?.get(f.rel) ?? 0;
    bytes += size;
    largest = Math.max(largest, Math.min(size, LARGE));
  }
  if (options.sizes && bytes < MIN_BYTES_FOR_THREADS) return 0;
  const byMemory = Math.max(1, Math.floor(PARSE_MEMORY_BUDGET / Math.max(1, largest * TREE_BYTES_PER_SOURCE_BYTE)));
  // As many parses as CPUs, so that this thread (the one traversing) shares a CPU with at most
  // one parse when all are busy.
  return Math.min(cpus, LIBUV_THREADS, byMemory);
}

function availableCpus(): number {
  return typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
}

/**
 * Files to hand out, largest first (one big file does not finish last). A file of LARGE bytes
 * or more is handed out only while no other large file is in work: its syntax tree and the
 * nodes of its traversal take tens of MB (about 20 × its size), and several at once would add
 * that up; meanwhile the other files in flight are small ones.
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
  const results = new Array<FileResult>(files.length);
  await streamFiles(files, job, (result, index) => (results[index] = result), options);
  return results;
}

/** Runs the engine over `files`, handing each result to `sink` as it is ready (see ResultSink). */
export async function streamFiles(files: readonly EngineFile[], job: EngineJob, sink: ResultSink, options: PoolOptions = {}): Promise<void> {
  const threads = threadCount(files, options);
  const napi = await loadNapi();
  const reclaimer = new Reclaimer(options.gc);
  const processor = new FileProcessor(napi, job, options.cache?.engine(job), reclaimer);
  let matches = 0;
  let done = 0;
  if (threads === 0) {
    for (const [index, file] of files.entries()) {
      if (options.signal?.aborted) throw abortError();
      const result = processor.process(file);
      matches += countMatches(result);
      done++;
      sink(result, index);
      // Native syntax trees are freed by finalizers that run only when the event loop turns
      // (reclaim.ts asks for the collection that finds them).
      if (reclaimer.turnDue()) await new Promise((r) => setImmediate(r));
      options.progress?.(done, files.length, matches);
    }
    return;
  }
  const queue = new FileQueue(files, options.sizes);
  const parse = limitedParse(napiParseAsync(napi), threads);
  // One findInFiles call at a time: napi's walker (the ignore crate's WalkParallel) runs a thread
  // per CPU for every call, so one call keeps each CPU parsing; more calls only multiply the
  // trees in flight and the malloc arenas holding them.
  const native = options.native !== false ? new NativeFinder(napi, 1) : undefined;
  const finder: FileFind | undefined = native && native.find.bind(native);
  // Lanes waiting for the large-file turn (FileQueue), woken when a large file is done.
  let waiting: Array<() => void> = [];
  const wake = () => {
    const all = waiting;
    waiting = [];
    for (const resume of all) resume();
  };
  const lane = async () => {
    for (;;) {
      if (options.signal?.aborted) throw abortError();
      const id = queue.take();
      if (id === undefined) {
        if (queue.remaining === 0) return;
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      let result: FileResult;
      try {
        result = await processor.processAsync(files[id]!, parse, finder);
      } finally {
        queue.finished(id);
        if (queue.isLarge(id)) wake();
      }
      matches += countMatches(result);
      done++;
      sink(result, id);
      options.progress?.(done, files.length, matches);
    }
  };
  await Promise.all(Array.from({ length: Math.min(native ? FILES_IN_FLIGHT_NATIVE : FILES_IN_FLIGHT, files.length) }, lane));
}
