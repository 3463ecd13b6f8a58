/**
 * The result cache's entries: one pack per (build, job) in a directory of tollgate's own under
 * the cache location (pack.ts has the format). The cache accelerates, it never decides: an
 * answer is used only when its pack was made for this build and job, its line's HMAC verifies
 * under a key kept outside the cache, and the text at every range it records is the text the
 * file holds now. Anything else is a miss (the caller parses the file), reported by one warning
 * per run.
 *
 * A run reads each of its jobs' packs once and, when it computed answers the pack lacked,
 * writes the pack again at the end: its own answers first, then the older lines it did not use
 * while the pack stays within a bound. Writes are atomic (a temp file renamed into place), so
 * concurrent runs see whole packs or none (the last one renamed wins). An answer whose line is
 * larger than `maxEntryBytes` is never written; after a run that wrote, the directory is pruned
 * to `maxBytes`, least recently used pack first (a run that used a pack refreshes its mtime).
 * Pruning deletes only files named as tollgate's packs, temp files, and entries of the earlier
 * one-file-per-answer format (which no build reads any more).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256 } from "../util/hash.js";
import { digestOf, rangesDigest } from "./digest.js";
import { NotRegularFileError } from "../util/regular.js";
import { OversizedError, indexPack, openLine, packHeader, packLine, rawLine, readBounded, type PackIndex } from "./pack.js";
import { messageOf } from "../util/thrown.js";

/** The directory under the cache location that holds tollgate's entries and nothing else. */
export const ENTRY_DIR = "tollgate-results";
const PACK_SUFFIX = ".pack";
const PACK_NAME = /^[0-9a-f]{64}\.pack$/;
const OLD_ENTRY_NAME = /^[0-9a-f]{64}\.entry$/;
const TEMP_NAME = /^\.[0-9a-f]{64}\.(?:pack|entry)\.[0-9a-f]{16}\.tmp$/;
/** Temp files older than this are a killed run's leftovers. */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** A rewritten pack keeps older lines up to twice this run's answers, and at least this much. */
const KEEP_FLOOR_BYTES = 32 * 1024 * 1024;

const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const DEFAULT_MAX_ENTRY_BYTES = 8 * 1024 * 1024;

/** How one kind of answer is checked against the text it is used for. */
export interface AnswerCodec<T> {
  /** Whether a verified entry's value has the shape of an answer. */
  is(value: unknown): value is T;
  /** Every range of the text the answer refers to. */
  ranges(value: T): Iterable<readonly [number, number]>;
}

interface StoreOptions {
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

/** One step's view of the cache: entries keyed by its parameters, a part (language…) and the file's content. */
export interface JobView<T> {
  get(part: string, content: { sha256: string; text: string }): T | undefined;
  put(part: string, content: { sha256: string; text: string }, value: T): void;
}

/** A job's pack as this run sees it: what was read, the lines used and the answers computed. */
interface Pack {
  id: string;
  file: string;
  index: PackIndex | undefined;
  /** Why the whole pack cannot serve (each lookup in it is then unusable). */
  why: string | undefined;
  used: Map<string, Buffer>;
  fresh: Map<string, string>;
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
  readonly #packs = new Map<string, Pack>();
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
    const pack = this.#pack(sha256(`${this.#build}\0${job}`));
    const idOf = (part: string, sha: string) => sha256(`${part}\0${sha}`);
    return {
      get: (part, content) => this.#get(pack, idOf(part, content.sha256), content.text, codec),
      put: (part, content, value) => this.#put(pack, idOf(part, content.sha256), content.text, value, codec),
    };
  }

  /** The job's pack, read once per run. */
  #pack(id: string): Pack {
    const known = this.#packs.get(id);
    if (known) return known;
    const file = path.join(this.dir, `${id}${PACK_SUFFIX}`);
    const pack: Pack = { id, file, index: undefined, why: undefined, used: new Map(), fresh: new Map() };
    try {
      const got = indexPack(readBounded(file, this.#maxBytes), id, this.#build);
      if ("why" in got) pack.why = got.why;
      else pack.index = got;
    } catch (err) {
      // Absent (or pruned by a concurrent run): every lookup a plain miss.
      if (err instanceof OversizedError) pack.why = `larger than the cache's ${this.#maxBytes} bytes`;
      else if (err instanceof NotRegularFileError) pack.why = err.message;
    }
    this.#packs.set(id, pack);
    return pack;
  }

  #unusable(file: string, why: string): void {
    this.stats.unusable++;
    if (!this.#warned) {
      this.#warned = true;
      this.#warn(`result cache: ${file}: ${why}; ignored (the file was searched afresh). Further unusable entries in this run are not reported.`);
    }
  }

  #get<T>(pack: Pack, id: string, text: string, codec: AnswerCodec<T>): T | undefined {
    const got = this.#load(pack, id, text, codec);
    if ("value" in got) {
      this.stats.hits++;
      const raw = rawLine(pack.index!, id);
      if (raw) pack.used.set(id, raw);
      return got.value;
    }
    this.stats.misses++;
    if (got.why !== undefined) this.#unusable(pack.file, got.why);
    return undefined;
  }

  /** The answer of `id` in the pack, or why it is unusable (nothing: there is none, a plain miss). */
  #load<T>(pack: Pack, id: string, text: string, codec: AnswerCodec<T>): { value: T } | { why?: string } {
    if (pack.why !== undefined) return { why: pack.why };
    if (pack.index === undefined) return {};
    const at = pack.index.lines.get(id);
    if (at !== undefined && at.end - at.start >= this.#maxEntryBytes) return { why: `an entry larger than ${this.#maxEntryBytes} bytes` };
    const line = openLine(this.#key, pack.id, id, pack.index);
    if (line === undefined) return {};
    if ("why" in line) return line;
    if (!codec.is(line.value)) return { why: "not an answer of this kind" };
    if (rangesDigest(text, codec.ranges(line.value)) !== line.ranges) return { why: "its recorded text does not match the file" };
    return { value: line.value };
  }

  #put<T>(pack: Pack, id: string, text: string, value: T, codec: AnswerCodec<T>): void {
    const ranges = rangesDigest(text, codec.ranges(value));
    if (ranges === undefined) return;
    const line = packLine(this.#key, pack.id, id, ranges, JSON.stringify(value));
    // An answer too large for one entry is never written (one byte for each UTF-16 unit and more for the rest).
    if (line.length >= this.#maxEntryBytes || Buffer.byteLength(line) > this.#maxEntryBytes) return;
    pack.used.delete(id);
    pack.fresh.set(id, line);
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
    this.#warn(`result cache: cannot write to ${this.dir} (${messageOf(err)}); this run's answers are not kept.`);
  }

  /** The pack as this run leaves it: its answers, then the older lines it did not use, within the bound. */
  #packBytes(pack: Pack): Buffer {
    const parts: Buffer[] = [Buffer.from(packHeader(pack.id, this.#build))];
    for (const raw of pack.used.values()) parts.push(raw);
    for (const line of pack.fresh.values()) parts.push(Buffer.from(line));
    let size = parts.reduce((n, p) => n + p.length, 0);
    const bound = Math.min(this.#maxBytes, Math.max(2 * size, KEEP_FLOOR_BYTES));
    for (const id of pack.index?.lines.keys() ?? []) {
      if (pack.used.has(id) || pack.fresh.has(id)) continue;
      const raw = rawLine(pack.index!, id);
      if (raw === undefined || size + raw.length > bound) continue;
      parts.push(raw);
      size += raw.length;
    }
    return Buffer.concat(parts, size);
  }

  async #write(pack: Pack): Promise<void> {
    if (!this.#ensureDir()) return;
    const data = this.#packBytes(pack);
    if (data.length > this.#maxBytes) return;
    const tmp = path.join(this.dir, `.${pack.id}${PACK_SUFFIX}.${randomBytes(8).toString("hex")}.tmp`);
    try {
      await writeFile(tmp, data, { flag: "wx", mode: 0o600 });
      renameSync(tmp, pack.file);
      this.stats.written += pack.fresh.size;
      this.#written += data.length;
    } catch (err) {
      try {
        unlinkSync(tmp);
      } catch {
        // not created
      }
      this.#cannotWrite(err);
    }
  }

  /** Writes the packs that gained answers, refreshes those only used, and prunes when this run wrote. Never throws. */
  async close(): Promise<void> {
    const packs = [...this.#packs.values()];
    this.#packs.clear();
    await Promise.all(packs.filter((p) => p.fresh.size > 0).map((p) => this.#write(p)));
    const now = new Date(this.#now());
    for (const pack of packs) {
      if (pack.fresh.size > 0 || pack.used.size === 0) continue;
      try {
        utimesSync(pack.file, now, now);
      } catch {
        // pruned meanwhile by another run
      }
    }
    if (this.#written > 0) this.prune();
  }

  /** Deletes the least recently used packs until the directory holds at most maxBytes (and stale temp files, and entries of the old format). */
  prune(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const packs: Array<{ file: string; size: number; mtime: number }> = [];
    let total = 0;
    for (const name of names) {
      const kind = PACK_NAME.test(name) ? "pack" : OLD_ENTRY_NAME.test(name) ? "old" : TEMP_NAME.test(name) ? "temp" : undefined;
      if (kind === undefined) continue;
      const file = path.join(this.dir, name);
      try {
        const st = statSync(file);
        if (!st.isFile()) continue;
        if (kind === "old" || (kind === "temp" && this.#now() - st.mtimeMs > STALE_TEMP_MS)) unlinkSync(file);
        if (kind !== "pack") continue;
        packs.push({ file, size: st.size, mtime: st.mtimeMs });
        total += st.size;
      } catch {
        // gone meanwhile
      }
    }
    if (total <= this.#maxBytes) return;
    packs.sort((a, b) => a.mtime - b.mtime);
    const target = this.#maxBytes * 0.9;
    for (const p of packs) {
      if (total <= target) break;
      try {
        unlinkSync(p.file);
      } catch {
        // deleted by a concurrent run
      }
      total -= p.size;
    }
  }
}
