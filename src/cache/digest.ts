import { createHash } from "node:crypto";
import { sha256 } from "../util/hash.js";

/** A value that has no stable text (a function, a symbol, a cycle): it cannot key a cache entry. */
class UnkeyableError extends Error {}

/**
 * A canonical text of plain data for hashing: object keys sorted, `undefined` members left out,
 * RegExps by source and flags, Maps and Sets by their entries. Anything else that JSON cannot
 * state exactly throws UnkeyableError (the caller then does not cache).
 */
export function canonical(value: unknown, seen: Set<object> = new Set()): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new UnkeyableError(`number ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value !== "object") throw new UnkeyableError(typeof value);
  if (seen.has(value)) throw new UnkeyableError("cycle");
  seen.add(value);
  try {
    if (value instanceof RegExp) return `{"$re":${JSON.stringify(value.source)},"flags":${JSON.stringify(value.flags)}}`;
    if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonical(v, seen))).join(",")}]`;
    if (value instanceof Map) return `{"$map":${canonical([...value.entries()], seen)}}`;
    if (value instanceof Set) return `{"$set":${canonical([...value], seen)}}`;
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) throw new UnkeyableError("class instance");
    const keys = Object.keys(value).sort();
    const parts: string[] = [];
    for (const k of keys) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) parts.push(`${JSON.stringify(k)}:${canonical(v, seen)}`);
    }
    return `{${parts.join(",")}}`;
  } finally {
    seen.delete(value);
  }
}

/** sha256 of the canonical text of `value`, or undefined when it has none. */
export function digestOf(value: unknown): string | undefined {
  try {
    return sha256(canonical(value));
  } catch (err) {
    if (err instanceof UnkeyableError) return undefined;
    throw err;
  }
}

/**
 * A digest of the text at every range: what an entry records of the file it was made from, so a
 * hit is used only where the file as read now holds that same text at each recorded range. A
 * range outside the text makes it undefined. Every range's offsets are hashed; the text of a
 * range that lies within the last range whose text was hashed (a capture inside its match) is
 * already covered by it.
 */
export function rangesDigest(text: string, ranges: Iterable<readonly [number, number]>): string | undefined {
  const h = createHash("sha256");
  const offsets: number[] = [];
  let coveredStart = -1;
  let coveredEnd = -1;
  for (const [start, end] of ranges) {
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > text.length) return undefined;
    offsets.push(start, end);
    if (start >= coveredStart && end <= coveredEnd) continue;
    coveredStart = start;
    coveredEnd = end;
    h.update(text.slice(start, end));
  }
  return h.update(`\0${offsets.join(",")}`).digest("hex");
}
