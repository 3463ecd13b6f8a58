import { createReadStream } from "node:fs";
import type { SpillStore } from "../spill/store.js";

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
  const out: Record<string, unknown> = {};
  let depth = 0;
  let inString = false;
  let escaped = false;
  let role: "start" | "key" | "value" | "element" | "after-array" | "done" = "start";
  let key = "";
  let carried = "";
  let pieceStart = 0;
  let array: unknown[] = [];
  /** A top level that is not an object: kept whole for JSON.parse (and its error message). */
  let whole: string | undefined;

  const piece = (chunk: string, end: number): string => {
    const text = carried + chunk.slice(pieceStart, end);
    carried = "";
    return text;
  };
  const blank = (text: string) => text.trim() === "";
  // an own property, as JSON.parse makes it (assignment would treat "__proto__" as the prototype)
  const member = (k: string, v: unknown) => Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });

  for await (const raw of createReadStream(file, { encoding: "utf8", highWaterMark: chunkBytes })) {
    const chunk = raw as string;
    if (whole !== undefined) {
      whole += chunk;
      continue;
    }
    pieceStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
        continue;
      }
      if (role === "start") {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff) continue;
        if (c !== 0x7b) {
          whole = chunk.slice(i);
          break;
        }
        depth = 1;
        role = "key";
        pieceStart = i + 1;
        continue;
      }
      if (role === "done") {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        throw new SyntaxError("Unexpected non-whitespace character after JSON");
      }
      if (c === 0x22) {
        inString = true;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth === 1 && role === "value" && c === 0x5b && streamed.has(key) && blank(carried + chunk.slice(pieceStart, i))) {
          carried = "";
          depth = 2;
          role = "element";
          array = [];
          pieceStart = i + 1;
          continue;
        }
        depth++;
        continue;
      }
      const closes = c === 0x7d || c === 0x5d;
      if (c === 0x2c || closes) {
        if (depth === 2 && role === "element") {
          const text = piece(chunk, i);
          if (!blank(text)) array.push(element(key, JSON.parse(text)));
          else if (c === 0x2c || array.length > 0) throw new SyntaxError(`Unexpected token in ${key}[${array.length}]`);
          pieceStart = i + 1;
          if (closes) {
            depth = 1;
            role = "after-array";
          }
          continue;
        }
        if (depth === 1) {
          const text = piece(chunk, i);
          if (role === "value") member(key, JSON.parse(text));
          else if (role === "after-array") {
            if (!blank(text)) throw new SyntaxError(`Unexpected token after ${key}`);
            member(key, array);
          } else if (!(closes && blank(text) && Object.keys(out).length === 0)) throw new SyntaxError("Unexpected token in a JSON object");
          pieceStart = i + 1;
          role = closes ? "done" : "key";
          if (closes) depth = 0;
          continue;
        }
        if (closes) depth--;
        continue;
      }
      if (c === 0x3a && depth === 1 && role === "key") {
        key = JSON.parse(piece(chunk, i)) as string;
        if (typeof key !== "string") throw new SyntaxError("Expected a string key");
        role = "value";
        pieceStart = i + 1;
      }
    }
    if (whole === undefined) carried += chunk.slice(pieceStart);
  }
  if (whole !== undefined) return JSON.parse(whole);
  if (role !== "done") throw new SyntaxError("Unexpected end of JSON input");
  return out;
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
