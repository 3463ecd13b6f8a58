import { createReadStream } from "node:fs";
import type { SpillStore } from "../spill/store.js";

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const blank = (text: string) => text.trim() === "";

/**
 * The parse of one streamed document, fed a chunk at a time: where it is (depth, inside a string,
 * which part of the top-level object), the text of the member or element under way, and the
 * object so far.
 */
class StreamedObject {
  readonly #out: Record<string, unknown> = {};
  #depth = 0;
  #inString = false;
  #escaped = false;
  #role: "start" | "key" | "value" | "element" | "after-array" | "done" = "start";
  #key = "";
  #carried = "";
  #pieceStart = 0;
  #array: unknown[] = [];
  #chunk = "";
  /** A top level that is not an object: kept whole for JSON.parse (and its error message). */
  #whole: string | undefined;

  constructor(
    readonly streamed: ReadonlySet<string>,
    readonly element: (key: string, value: unknown) => unknown,
  ) {}

  feed(chunk: string): void {
    if (this.#whole !== undefined) {
      this.#whole += chunk;
      return;
    }
    this.#chunk = chunk;
    this.#pieceStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 0x5c) this.#escaped = true;
        else if (c === 0x22) this.#inString = false;
        continue;
      }
      if (this.#role === "start") {
        if (isSpace(c) || c === 0xfeff) continue;
        if (c !== 0x7b) {
          this.#whole = chunk.slice(i);
          return;
        }
        this.#depth = 1;
        this.#role = "key";
        this.#pieceStart = i + 1;
      } else if (this.#role === "done") {
        if (!isSpace(c)) throw new SyntaxError("Unexpected non-whitespace character after JSON");
      } else if (c === 0x22) this.#inString = true;
      else if (c === 0x7b || c === 0x5b) this.#open(c, i);
      else if (c === 0x2c || c === 0x7d || c === 0x5d) this.#separator(c, i);
      else if (c === 0x3a && this.#depth === 1 && this.#role === "key") {
        this.#key = JSON.parse(this.#piece(i)) as string;
        if (typeof this.#key !== "string") throw new SyntaxError("Expected a string key");
        this.#role = "value";
        this.#pieceStart = i + 1;
      }
    }
    this.#carried += chunk.slice(this.#pieceStart);
  }

  end(): unknown {
    if (this.#whole !== undefined) return JSON.parse(this.#whole);
    if (this.#role !== "done") throw new SyntaxError("Unexpected end of JSON input");
    return this.#out;
  }

  /** The text from the piece's start to `end` (across chunks). */
  #piece(end: number): string {
    const text = this.#carried + this.#chunk.slice(this.#pieceStart, end);
    this.#carried = "";
    return text;
  }

  // an own property, as JSON.parse makes it (assignment would treat "__proto__" as the prototype)
  #member(k: string, v: unknown): void {
    Object.defineProperty(this.#out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }

  /** `{` or `[`: a streamed member's array begins its elements; anything else nests. */
  #open(c: number, i: number): void {
    if (
      this.#depth === 1 &&
      this.#role === "value" &&
      c === 0x5b &&
      this.streamed.has(this.#key) &&
      blank(this.#carried + this.#chunk.slice(this.#pieceStart, i))
    ) {
      this.#carried = "";
      this.#depth = 2;
      this.#role = "element";
      this.#array = [];
      this.#pieceStart = i + 1;
      return;
    }
    this.#depth++;
  }

  /** `,`, `}` or `]`: ends an element of a streamed array, a member of the top level, or a nesting. */
  #separator(c: number, i: number): void {
    const closes = c !== 0x2c;
    if (this.#depth === 2 && this.#role === "element") {
      const text = this.#piece(i);
      if (!blank(text)) this.#array.push(this.element(this.#key, JSON.parse(text)));
      else if (!closes || this.#array.length > 0) throw new SyntaxError(`Unexpected token in ${this.#key}[${this.#array.length}]`);
      this.#pieceStart = i + 1;
      if (closes) {
        this.#depth = 1;
        this.#role = "after-array";
      }
      return;
    }
    if (this.#depth === 1) {
      const text = this.#piece(i);
      if (this.#role === "value") this.#member(this.#key, JSON.parse(text));
      else if (this.#role === "after-array") {
        if (!blank(text)) throw new SyntaxError(`Unexpected token after ${this.#key}`);
        this.#member(this.#key, this.#array);
      } else if (!(closes && blank(text) && Object.keys(this.#out).length === 0)) throw new SyntaxError("Unexpected token in a JSON object");
      this.#pieceStart = i + 1;
      this.#role = closes ? "done" : "key";
      if (closes) this.#depth = 0;
      return;
    }
    if (closes) this.#depth--;
  }
}

/**
 * Reads a JSON document whose top level is an object, one member at a time, and the members
 * named in `streamed` (arrays) one element at a time: no more than the largest member (or
 * element) is in memory as text at once. For a report, `outcomes` is streamed and each
 * outcome's `diff` goes to the spill (its getter reads it back), so merging holds no report's
 * diffs in memory. The result is what JSON.parse would give, key order included; a document
 * whose top level is not an object is parsed whole (it is refused as a report anyway).
 */
export async function readJsonStreamed(
  file: string,
  streamed: ReadonlySet<string>,
  element: (key: string, value: unknown) => unknown,
  /** Bytes read at a time (tests make it tiny, so members straddle the reads). */
  chunkBytes = 1 << 20,
): Promise<unknown> {
  const parser = new StreamedObject(streamed, element);
  for await (const raw of createReadStream(file, { encoding: "utf8", highWaterMark: chunkBytes })) parser.feed(raw as string);
  return parser.end();
}

/**
 * An outcome whose `diff` is kept in `spill`: the same keys in the same order, `diff` an
 * enumerable getter (JSON.stringify and the output writers read it one outcome at a time).
 */
export function spillDiff(value: unknown, spill: SpillStore): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  if (typeof source.diff !== "string") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(source)) {
    if (k !== "diff") {
      out[k] = source[k];
      continue;
    }
    const held = spill.put(source.diff);
    Object.defineProperty(out, "diff", { get: () => held.text(), enumerable: true, configurable: true });
  }
  return out;
}

/** A copy of an object that keeps its getters as getters (a spread would read every diff). */
export function copyLazily<T extends object>(value: T, extra: Record<string, unknown>): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(value)) as Record<string, unknown>;
  for (const [k, v] of Object.entries(extra)) {
    if (Object.prototype.hasOwnProperty.call(copy, k)) Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
    else copy[k] = v;
  }
  return copy as T;
}
