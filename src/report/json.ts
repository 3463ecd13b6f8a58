import type { Report } from "./types.js";

type Write = (chunk: string) => Promise<void> | void;

/**
 * A string value the writer may take in pieces (an outcome's diff, read file by file from the
 * run's spill): a non-enumerable property of the object holding it, keyed by this symbol, maps
 * the property name to the pieces, which joined by "\n" are the value.
 */
export const STRING_PIECES = Symbol("tollgate.stringPieces");
type StringPieces = Record<string, () => Iterable<string>>;

/** Bytes gathered before a write: few calls, and no piece of the report much larger in memory. */
const CHUNK = 64 * 1024;

/**
 * The report as `JSON.stringify(report, null, 2)` followed by a newline, byte for byte, written
 * as it is produced: no JSON text of a whole step or outcome is ever built, and a value given in
 * pieces (STRING_PIECES: an outcome's diff) is read one piece at a time. Memory stays bounded by
 * the report's objects themselves plus a chunk, whatever the size of the change.
 */
export async function writeReportJson(report: Report, write: Write): Promise<void> {
  let buffer = "";
  for (const s of json(prepared(report, ""), "", new WeakMap())) {
    buffer += s;
    // A subtree written whole may be larger than a chunk: it goes out in chunks too, never cut
    // between the halves of a surrogate pair (each chunk is encoded on its own).
    while (buffer.length >= CHUNK) {
      const cut = (buffer.charCodeAt(CHUNK - 1) & 0xfc00) === 0xd800 ? CHUNK - 1 : CHUNK;
      await write(buffer.slice(0, cut));
      buffer = buffer.slice(cut);
    }
  }
  await write(`${buffer}\n`);
}

/** What JSON.stringify makes of a value before writing it (toJSON; undefined when it is left out). */
function prepared(v: unknown, key: string): unknown {
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") return (v as { toJSON(k: string): unknown }).toJSON(key);
  return v;
}

const omitted = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * How much a subtree written whole may hold, counted as one per value plus the characters of its
 * strings and keys: its text is then about a MiB at most (a step's findings), so a report of huge
 * diffs given whole (a merged report's) is still written value by value.
 */
const WHOLE_BUDGET = 1024 * 1024;

/**
 * Whether JSON.stringify can write `v` whole: a subtree within WHOLE_BUDGET with no pieces
 * anywhere in it (a finding, a change, a list of parse issues), so the writer does not descend
 * into it value by value. `v` is prepared; a toJSON left on it would be called twice. Weights are
 * remembered per object (`weights`), so the writer's descent weighs each value once.
 */
function isWhole(v: object, weights: WeakMap<object, number>): boolean {
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return false;
  return weightOf(v, weights) <= WHOLE_BUDGET;
}

/** A subtree's weight (WHOLE_BUDGET's measure), or more than the budget once it exceeds it or holds pieces. */
function weightOf(x: object, weights: WeakMap<object, number>): number {
  const known = weights.get(x);
  if (known !== undefined) return known;
  const over = WHOLE_BUDGET + 1;
  let weight = 0;
  if ((x as { [STRING_PIECES]?: StringPieces })[STRING_PIECES] !== undefined) weight = over;
  else {
    for (const key in x) {
      const item = (x as Record<string, unknown>)[key];
      weight += 1 + key.length + (typeof item === "string" ? item.length : 0);
      if (weight <= WHOLE_BUDGET && item !== null && typeof item === "object") weight += weightOf(item, weights);
      if (weight > WHOLE_BUDGET) {
        weight = over;
        break;
      }
    }
  }
  weights.set(x, weight);
  return weight;
}

/** The text of `JSON.stringify(v, null, 2)` in order, for a value at indentation `indent` (v prepared). */
function* json(v: unknown, indent: string, weights: WeakMap<object, number>): Generator<string> {
  if (v === null || typeof v !== "object") {
    yield JSON.stringify(v) ?? "null";
    return;
  }
  if (isWhole(v, weights)) {
    // A JSON text's line breaks are all its own (a string's are escaped): each takes the indent.
    const text = JSON.stringify(v, null, 2);
    yield indent === "" ? text : text.replaceAll("\n", `\n${indent}`);
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) {
      yield "[]";
      return;
    }
    yield "[\n";
    for (let i = 0; i < v.length; i++) {
      const item = prepared(v[i], String(i));
      yield inner;
      if (omitted(item)) yield "null";
      else yield* json(item, inner, weights);
      yield i < v.length - 1 ? ",\n" : "\n";
    }
    yield `${indent}]`;
    return;
  }
  const pieces = (v as { [STRING_PIECES]?: StringPieces })[STRING_PIECES];
  let first = true;
  for (const key of Object.keys(v)) {
    const piecewise = pieces?.[key];
    const item = piecewise ? "" : prepared((v as Record<string, unknown>)[key], key);
    if (omitted(item)) continue;
    yield `${first ? "{\n" : ",\n"}${inner}${JSON.stringify(key)}: `;
    first = false;
    if (piecewise) yield* piecesOf(piecewise());
    else yield* json(item, inner, weights);
  }
  yield first ? "{}" : `\n${indent}}`;
}

/**
 * JSON.stringify of the pieces joined by "\n", piece by piece: escaping is per character, so the
 * escapes of whole strings joined are the escape of the join (a piece is a whole decoded text,
 * never half of a surrogate pair).
 */
function* piecesOf(pieces: Iterable<string>): Generator<string> {
  yield '"';
  let first = true;
  for (const piece of pieces) {
    if (!first) yield "\\n";
    first = false;
    yield JSON.stringify(piece).slice(1, -1);
  }
  yield '"';
}
