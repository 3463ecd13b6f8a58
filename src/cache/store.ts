/**
 * The result cache's entries: one file per (build, job, file content), in a directory of
 * tollgate's own under the cache location. The cache accelerates, it never decides: an entry is
 * used only when its recorded id and build equal the ones asked for, its HMAC verifies under a
 * key kept outside the cache, and the text at every range it records is the text the file holds
 * now. Anything else is a miss (the caller parses the file), reported by one warning per run.
 *
 * Writes are atomic (a temp file renamed into place), so concurrent runs see whole entries or
 * none; an entry larger than `maxEntryBytes` is never written; after a run that wrote, the
 * directory is pruned to `maxBytes`, least recently used first (a hit refreshes an entry's
 * mtime). Pruning deletes only files named as tollgate's entries and temp files.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256 } from "../util/hash.js";
import { digestOf, rangesDigest } from "./digest.js";

/** The directory under the cache location that holds tollgate's entries and nothing else. */
export const ENTRY_DIR = "tollgate-results";
const ENTRY_NAME = /^[0-9a-f]{64}\.entry$/;
const TEMP_NAME = /^\.[0-9a-f]{64}\.entry\.[0-9a-f]{16}\.tmp$/;
const FORMAT = 1;
/** Temp files older than this are a killed run's leftovers. */
const STALE_TEMP_MS = 60 * 60 * 1000;

export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_ENTRY_BYTES = 8 * 1024 * 1024;

/** How one kind of answer is checked against the text it is used for. */
export interface AnswerCodec<T> {
  /** Whether a verified entry's value has the shape of an answer. */
  is(value: unknown): value is T;
  /** Every range of the text the answer refers to. */
  ranges(value: T): Iterable<readonly [number, number]>;
}

export interface StoreOptions {
  /** The cache location (`--cache-location`); entries live in its ENTRY_DIR. */
  location: string;
  /** HMAC-SHA256 key; entries made under another key do not verify. */
  key: Buffer;
  /** Everything about the engine an answer depends on (its code, napi's and the languages' versions). */
  build: string;
  maxBytes?: number;
  maxEntryBytes?: number;
  /** Told once per run when an entry is unusable or cannot be written. */
  warn: (line: string) => void;
  now?: () => number;
}

interface Entry {
  v: number;
  id: string;
  build: string;
  ranges: string;
  value: unknown;
  mac: string;
}

/** One step's view of the cache: entries keyed by its parameters, a part (language…) and the file's content. */
export interface JobView<T> {
  get(part: string, content: { sha256: string; text: string }): T | undefined;
  put(part: string, content: { sha256: string; text: string }, value: T): void;
}

export class ResultStore {
  readonly dir: string;
  readonly #key: Buffer;
  readonly #build: string;
  readonly #maxBytes: number;
  readonly #maxEntryBytes: number;
  readonly #warn: (line: string) => void;
  readonly #now: () => number;
  #warned = false;
  #dirReady = false;
  readonly #hits = new Set<string>();
  readonly #writes = new Set<Promise<void>>();
  #written = 0;
  /** Counts for tests and progress: hits, misses, unusable entries, entries written. */
  readonly stats = { hits: 0, misses: 0, unusable: 0, written: 0 };

  constructor(options: StoreOptions) {
    this.dir = path.join(options.location, ENTRY_DIR);
    this.#key = options.key;
    this.#build = options.build;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#maxEntryBytes = Math.min(options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES, this.#maxBytes);
    this.#warn = options.warn;
    this.#now = options.now ?? Date.now;
  }

  /** A view for one job (`kind` and its parameters), or undefined when the parameters cannot be keyed. */
  view<T>(kind: string, params: unknown, codec: AnswerCodec<T>): JobView<T> | undefined {
    const job = digestOf({ kind, params });
    if (job === undefined) return undefined;
    const idOf = (part: string, sha: string) => sha256(`${this.#build}\0${job}\0${part}\0${sha}`);
    return {
      get: (part, content) => this.#get(idOf(part, content.sha256), content.text, codec),
      put: (part, content, value) => this.#put(idOf(part, content.sha256), content.text, value, codec),
    };
  }

  #mac(e: Omit<Entry, "mac" | "value">, valueText: string): string {
    return createHmac("sha256", this.#key).update(`tollgate-cache\0${e.v}\0${e.id}\0${e.build}\0${e.ranges}\0${valueText}`).digest("hex");
  }

  #unusable(file: string, why: string): void {
    this.stats.unusable++;
    if (!this.#warned) {
      this.#warned = true;
      this.#warn(`result cache: ${file}: ${why}; ignored (the file was searched afresh). Further unusable entries in this run are not reported.`);
    }
  }

  #get<T>(id: string, text: string, codec: AnswerCodec<T>): T | undefined {
    const file = path.join(this.dir, `${id}.entry`);
    const got = this.#load(file, id, text, codec);
    if ("value" in got) {
      this.stats.hits++;
      this.#hits.add(file);
      return got.value;
    }
    this.stats.misses++;
    if (got.why !== undefined) this.#unusable(file, got.why);
    return undefined;
  }

  /** The entry's answer, or why it is unusable (nothing: there is no entry, a plain miss). */
  #load<T>(file: string, id: string, text: string, codec: AnswerCodec<T>): { value: T } | { why?: string } {
    let raw: Buffer;
    try {
      raw = this.#readBounded(file);
    } catch (err) {
      // Absent (or pruned by a concurrent run): a plain miss.
      return err instanceof OversizedError ? { why: `larger than ${this.#maxEntryBytes} bytes` } : {};
    }
    let entry: Partial<Entry>;
    try {
      entry = JSON.parse(raw.toString("utf8")) as Partial<Entry>;
    } catch {
      return { why: "not a whole entry (truncated or corrupt)" };
    }
    if (typeof entry !== "object" || entry === null || typeof entry.mac !== "string" || typeof entry.ranges !== "string") return { why: "not an entry" };
    if (entry.v !== FORMAT || entry.build !== this.#build) return { why: "made by another version of tollgate or its engine" };
    if (entry.id !== id) return { why: "recorded for another file or step" };
    const expected = this.#mac(entry as Entry, JSON.stringify(entry.value));
    const given = Buffer.from(entry.mac, "hex");
    if (given.length !== 32 || !timingSafeEqual(given, Buffer.from(expected, "hex")))
      return { why: "its MAC does not verify (forged, or made under another cache key)" };
    if (!codec.is(entry.value)) return { why: "not an answer of this kind" };
    if (rangesDigest(text, codec.ranges(entry.value)) !== entry.ranges) return { why: "its recorded text does not match the file" };
    return { value: entry.value };
  }

  #readBounded(file: string): Buffer {
    const fd = openSync(file, "r");
    try {
      const size = fstatSync(fd).size;
      if (size > this.#maxEntryBytes) throw new OversizedError();
      const buf = Buffer.allocUnsafe(size);
      let off = 0;
      while (off < size) {
        const n = readSync(fd, buf, off, size - off, off);
        if (n === 0) break;
        off += n;
      }
      return buf.subarray(0, off);
    } finally {
      closeSync(fd);
    }
  }

  #put<T>(id: string, text: string, value: T, codec: AnswerCodec<T>): void {
    const ranges = rangesDigest(text, codec.ranges(value));
    if (ranges === undefined) return;
    const valueText = JSON.stringify(value);
    const head = { v: FORMAT, id, build: this.#build, ranges };
    const data = JSON.stringify({ ...head, value, mac: this.#mac(head, valueText) });
    if (Buffer.byteLength(data) > this.#maxEntryBytes) return; // oversized: never written
    if (!this.#ensureDir()) return;
    const file = path.join(this.dir, `${id}.entry`);
    const tmp = path.join(this.dir, `.${id}.entry.${randomBytes(8).toString("hex")}.tmp`);
    const write = writeFile(tmp, data, { flag: "wx", mode: 0o600 })
      .then(() => {
        renameSync(tmp, file);
        this.stats.written++;
        this.#written += data.length;
      })
      .catch((err: unknown) => {
        try {
          unlinkSync(tmp);
        } catch {
          // not created
        }
        this.#cannotWrite(err);
      })
      .finally(() => this.#writes.delete(write));
    this.#writes.add(write);
  }

  #ensureDir(): boolean {
    if (this.#dirReady) return true;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.#dirReady = true;
    } catch (err) {
      this.#cannotWrite(err);
    }
    return this.#dirReady;
  }

  #cannotWrite(err: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#warn(`result cache: cannot write to ${this.dir} (${(err as Error).message}); this run's answers are not kept.`);
  }

  /** Waits for the writes, refreshes the entries used, and prunes when this run wrote. Never throws. */
  async close(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
    const now = new Date(this.#now());
    for (const file of this.#hits) {
      try {
        utimesSync(file, now, now);
      } catch {
        // pruned meanwhile by another run
      }
    }
    this.#hits.clear();
    if (this.#written > 0) this.prune();
  }

  /** Deletes the least recently used entries until the directory holds at most maxBytes (and stale temp files). */
  prune(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const entries: Array<{ file: string; size: number; mtime: number }> = [];
    let total = 0;
    for (const name of names) {
      const isEntry = ENTRY_NAME.test(name);
      if (!isEntry && !TEMP_NAME.test(name)) continue;
      const file = path.join(this.dir, name);
      try {
        const st = statSync(file);
        if (!st.isFile()) continue;
        if (!isEntry) {
          if (this.#now() - st.mtimeMs > STALE_TEMP_MS) unlinkSync(file);
          continue;
        }
        entries.push({ file, size: st.size, mtime: st.mtimeMs });
        total += st.size;
      } catch {
        // gone meanwhile
      }
    }
    if (total <= this.#maxBytes) return;
    entries.sort((a, b) => a.mtime - b.mtime);
    const target = this.#maxBytes * 0.9;
    for (const e of entries) {
      if (total <= target) break;
      try {
        unlinkSync(e.file);
      } catch {
        // deleted by a concurrent run
      }
      total -= e.size;
    }
  }
}

class OversizedError extends Error {}
