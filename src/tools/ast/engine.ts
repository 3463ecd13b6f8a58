/**
 * Per-file work of ast_grep/ast_edit: read, classify (binary / non-UTF-8 / too large), text
 * prefilter, parse, match. Parses run on the calling thread (`parse`) or on libuv's thread pool
 * (`parseAsync`, pool.ts); inputs and outputs are plain data.
 *
 * The engine API (also for rule-based tools such as ast_scan):
 * - `matchText(napi, lang, text, { ops, sel?, prefilter? })`: every op's matches in one text,
 *   one parse and one traversal for all ops (traverse.ts); an op is a pattern or a napi rule
 *   object (`config`). Matches resting on a syntax error carry `bad: true`: callers skip and
 *   list them (`badMatches`), keeping the rest (`goodMatches`).
 * - `matchTextAsync`: the same with the parses off the calling thread.
 * - `FileProcessor` / `processFiles` (pool.ts): the same over files, several at once.
 */
import { readFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { sha256 } from "../../util/hash.js";
import type { Napi } from "./langs.js";
import { ensureLanguages } from "./langs.js";
import { compileBytePrefilter, type PrefilterSpec } from "./pattern.js";
import { regionsFor, statementBoundaries } from "./regions.js";
import { lastAtOrBefore } from "../../workspace/text.js";
import type { RawMatch } from "./rewrite.js";
import { collect, combine, opConfig, runRegex, traverse, type Combined, type EngineOp, type Found, type SgNode } from "./traverse.js";
import { langById } from "./langs.js";
import { parsedBytes } from "./reclaim.js";
import { Intervals } from "./intervals.js";

export type { EngineOp, RuleConfig } from "./traverse.js";

export interface EngineJob {
  ops: EngineOp[];
  sel?: string | undefined;
  /** Prefilter per language id. */
  prefilter: Record<string, PrefilterSpec>;
  maxFileBytes: number;
}

export interface EngineFile {
  rel: string;
  abs: string;
  lang: string;
}

export type SkipReason = "binary" | "non-utf8" | "too-large" | "unreadable";

export type FileResult =
  | { rel: string; status: "skipped"; reason: SkipReason; message?: string }
  /** `parseError`: no match, and the parsed code has syntax errors (the file is listed). */
  | { rel: string; status: "searched"; parseError?: true }
  | {
      rel: string;
      status: "matched";
      text: string;
      sha256: string;
      matches: RawMatch[];
      /** [start, end) of ERROR nodes, only computed for files with matches. */
      errors: Array<[number, number]>;
    };

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * `TOLLGATE_PARSE=whole` parses every candidate file whole, as the ast-grep CLI does, instead of
 * only the statements holding a prefilter hit. By default region parsing is used and, when a
 * region has an ERROR node, the whole file is parsed too (SPEC 3.1: the answer is the whole
 * parse's or strictly better).
 */
const WHOLE_FILES = process.env.TOLLGATE_PARSE === "whole";


export function matcherOf(pat: string, sel: string | undefined): ReturnType<typeof opConfig> {
  return opConfig({ pat }, sel);
}

export interface MatchResult {
  /** Every op's matches, file offsets (UTF-16); `bad` ones rest on a syntax error. */
  matches: RawMatch[];
  /** [start, end) of the ERROR nodes of the parse that decided (the whole file's when parsed). */
  errors: Array<[number, number]>;
  /** Whether the deciding parse has ERROR nodes (computed when there is no match too). */
  hadErrors?: boolean;
  /** Regions parsed (absent: the whole file only). */
  regions?: number;
  /** Whether the whole file was parsed after a region had an error. */
  wholeToo?: boolean;
}

type Job = Pick<EngineJob, "ops" | "sel"> & { prefilter?: Record<string, PrefilterSpec> | undefined };

/** The ops a text can match: those whose prefilter requirement holds (all when there is none). */
function activeOps(text: string, job: Job, lang: string): number[] {
  const spec = job.prefilter?.[lang] ?? null;
  const all = job.ops.map((_, i) => i);
  if (spec === null || spec.length !== job.ops.length) return all;
  return all.filter((i) => {
    const req = spec[i]!;
    return req.words.every((w) => text.includes(w)) && req.runs.every((r) => runRegex(r).test(text));
  });
}

const key = (m: RawMatch) => `${m.op}:${m.start}:${m.end}`;

/** Spans of the text to parse ([start, end), UTF-16), answered with their syntax trees in order. */
type ParseSpans = Array<[number, number]>;
/** A request for the nodes a combined rule finds in the whole text (answered by a WholeFind). */
interface WholeRequest {
  whole: Combined;
}
type Request = ParseSpans | WholeRequest;
type Reply = SgRoot[] | SgNode[] | null;
const isWhole = (r: Request): r is WholeRequest => !Array.isArray(r);

/** The combined rule of all of a job's ops (one per job: a whole-file walk needs no prefilter). */
const wholeRules = new WeakMap<Job, Combined | null>();
function wholeRule(job: Job): Combined | null {
  if (!wholeRules.has(job)) wholeRules.set(job, job.ops.length === 0 ? null : combine(job.ops, job.ops.map((_, i) => i), job.sel));
  return wholeRules.get(job)!;
}
type SgRoot = ReturnType<Napi["parse"]>;

const spanText = (text: string, [start, end]: [number, number]) => (start === 0 && end === text.length ? text : text.slice(start, end));

/**
 * Matches of every op in one text (offsets are UTF-16, i.e. JS string indices). See the module
 * comment; `traverse` flags the matches that rest on a syntax error.
 */
export function matchText(napi: Napi, lang: string, text: string, job: Job): MatchResult {
  const steps = matching(napi, lang, text, job);
  let step = steps.next();
  while (!step.done) step = steps.next((step.value as ParseSpans).map((span) => napi.parse(lang as never, spanText(text, span))));
  return step.value;
}

/**
 * matchText with the parses made by `parseAsync`, on libuv's thread pool: the calling thread
 * reads, cuts regions and traverses while other threads parse (napi's `parse` and `parseAsync`
 * build the same document). With `find`, a whole-file parse and its walk are both made off
 * this thread (napi's `findInFiles`, native.ts): only the nodes found come back.
 */
export async function matchTextAsync(napi: Napi, lang: string, text: string, job: Job, parse: AsyncParse = napiParseAsync(napi), find?: WholeFind): Promise<MatchResult> {
  const steps = matching(napi, lang, text, job, find !== undefined);
  let step = steps.next();
  while (!step.done) {
    const request = step.value;
    if (isWhole(request)) step = steps.next(await find!(lang, text, request.whole));
    else step = steps.next(await Promise.all(request.map((span) => parse(lang, spanText(text, span)))));
  }
  return step.value;
}

/**
 * The nodes that `c.rule` finds in a whole parse of `text` (document order), or null when this
 * way is not available for it (the caller then parses the text itself).
 */
export type WholeFind = (lang: string, text: string, c: Combined) => Promise<SgNode[] | null>;

/** Parses a text off the calling thread. */
export type AsyncParse = (lang: string, text: string) => Promise<SgRoot>;

export const napiParseAsync =
  (napi: Napi): AsyncParse =>
  (lang, text) =>
    napi.parseAsync(lang as never, text);

/** An AsyncParse with at most `limit` parses under way (the rest wait their turn, in order). */
export function limitedParse(parse: AsyncParse, limit: number): AsyncParse {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return async (lang, text) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await parse(lang, text);
    } finally {
      release();
    }
  };
}

/**
 * The matching itself: yields the spans to parse and gets their trees back (see matchText);
 * with `wholeFinds`, a whole-file parse is asked for as a WholeRequest instead.
 */
function* matching(napi: Napi, lang: string, text: string, job: Job, wholeFinds = false): Generator<Request, MatchResult, Reply> {
  ensureLanguages(napi, [lang]);
  const active = activeOps(text, job, lang);
  if (active.length === 0) return { matches: [], errors: [] };
  const stringKinds = langById(lang).stringKinds;
  const spec = job.prefilter?.[lang] ?? null;
  const requirements = spec !== null && spec.length === job.ops.length ? spec : undefined;
  // Source parsed is counted once its trees are traversed (reclaim.ts collects dead trees).
  const walk = (root: SgRoot, start: number, end: number) => {
    const out = traverse(root.root(), job.ops, active, job.sel, start, { stringKinds, requirements });
    parsedBytes(end - start);
    return out;
  };
  function* whole(): Generator<Request, MatchResult, Reply> {
    const c = wholeFinds ? wholeRule(job) : null;
    let out: ReturnType<typeof collect> | undefined;
    if (c !== null) {
      const nodes = (yield { whole: c }) as SgNode[] | null;
      if (nodes !== null) {
        out = collect(nodes, c, 0, { stringKinds, requirements });
        if (nodes.length > 0) parsedBytes(text.length);
      }
    }
    if (out === undefined) {
      const [root] = (yield [[0, text.length]]) as SgRoot[];
      out = walk(root!, 0, text.length);
    }
    const { found, errors } = out;
    return { matches: found.map((f) => f.match), errors, ...(errors.length > 0 ? { hadErrors: true } : {}) };
  }
  const hits = lang === "TypeScript" && !job.sel && !WHOLE_FILES ? hitsOf(text, activeSpec(job, lang, active)) : null;
  if (!hits || hits.length === 0) return yield* whole();
  function* regionPass(regions: Array<[number, number]>): Generator<Request, { found: Found[]; errors: Array<[number, number]> }, Reply> {
    const found: Found[] = [];
    const errors: Array<[number, number]> = [];
    const roots = (yield regions) as SgRoot[];
    for (const [k, [start, end]] of regions.entries()) {
      const r = walk(roots[k]!, start, end);
      found.push(...r.found);
      errors.push(...r.errors);
    }
    return { found, errors };
  }
  const cut = regionsOf(text, hits, wholeFinds);
  if (cut === "dense") {
    // Whole first (napi's threads): where the whole parse is clean its answer is exact; where it
    // has error nodes, the statements that could hold a match it lost or spoilt (those
    // overlapping an error node or a match resting on one) are parsed on their own and merged.
    const w = yield* whole();
    if (!w.hadErrors) return w;
    const boundaries = statementBoundaries(text);
    if (!boundaries) return w;
    const spoilt = new Intervals([...w.errors, ...w.matches.filter((m) => m.bad).map((m): [number, number] => [m.start, m.end])]);
    const regions = regionsFor(boundaries, text.length, hits).filter(([start, end]) => spoilt.overlaps(start, end));
    const r = regions.length > 0 ? yield* regionPass(regions) : { found: [], errors: [] };
    return merged(w, r.found, r.errors, boundaries, regions.length);
  }
  if (cut === null) return yield* whole();
  const { regions, boundaries } = cut;
  const r = yield* regionPass(regions);
  if (r.errors.length === 0) return { matches: r.found.map((f) => f.match), errors: [], regions: regions.length };
  // A region with an error node: the whole parse decides (merged).
  const w = yield* whole();
  if (!w.hadErrors) return { ...w, regions: regions.length, wholeToo: true };
  return merged(w, r.found, r.errors, boundaries, regions.length);
}

/**
 * The whole parse's answer (which has error nodes) merged with the regions' (`found`, with the
 * regions' error nodes `regionErrors`). Where the whole parse is clean its answer is exact.
 * Where it has errors, a region's match that the whole parse lacks is added only if it is a
 * real match the whole parse lost to error recovery: no error node anywhere in it in its
 * region's parse (not even in a capture), within one top-level statement, and an error node of
 * the whole parse overlapping it. A match bad in one parse but clean in the other is taken clean.
 */
function merged(w: MatchResult, found: readonly Found[], regionErrors: ReadonlyArray<[number, number]>, boundaries: readonly number[], regions: number): MatchResult {
  const out: MatchResult = { ...w, regions, wholeToo: true };
  const wholeErrors = new Intervals(w.errors);
  const ofRegions = new Intervals(regionErrors);
  const lost = (m: RawMatch) => wholeErrors.overlaps(m.start, m.end);
  const crosses = (m: RawMatch) => boundaries[lastAtOrBefore(boundaries, m.end - 1)]! > m.start;
  // A whole-parse match holding an error node (in a capture: copied verbatim) that runs across
  // a top-level statement boundary is error recovery joining statements (effect's
  // reactivity/Atom.ts: one `!==` expression from line 1411 to 1430), not a node of the file
  // as written: it rests on the error.
  for (const m of w.matches) if (!m.bad && lost(m) && crosses(m)) m.bad = true;
  const byKey = new Map(w.matches.map((m) => [key(m), m]));
  for (const { match } of found) {
    const had = byKey.get(key(match));
    if (!had) {
      if (!match.bad && !ofRegions.overlaps(match.start, match.end) && !crosses(match) && lost(match)) byKey.set(key(match), match);
    } else if (had.bad && !match.bad) byKey.set(key(match), match);
  }
  out.matches = [...byKey.values()].sort((x, y) => x.start - y.start || y.end - x.end || x.op - y.op);
  return out;
}

/** The prefilter of the active ops only (regions are cut around their hits). */
function activeSpec(job: Job, lang: string, active: readonly number[]): PrefilterSpec {
  const spec = job.prefilter?.[lang] ?? null;
  if (spec === null || spec.length !== job.ops.length) return spec;
  return active.map((i) => spec[i]!);
}

/** The matches to use: those that do not rest on a syntax error. */
export function goodMatches(matches: readonly RawMatch[]): RawMatch[] {
  return matches.filter((m) => m.bad !== true);
}

/** The matches skipped because they rest on a syntax error (listed with their position). */
export function badMatches(matches: readonly RawMatch[]): RawMatch[] {
  return matches.filter((m) => m.bad === true);
}

/** Offsets where the prefilter's anchors occur in the text. */
function hitsOf(text: string, spec: PrefilterSpec): Array<[number, number]> | null {
  if (spec === null) return null;
  const hits: Array<[number, number]> = [];
  for (const req of spec) {
    if (req.runs.length > 0) {
      const re = new RegExp(req.runs[0]!, "g");
      for (const m of text.matchAll(re)) hits.push([m.index!, m.index! + m[0].length]);
    } else if (req.words.length > 0) {
      const w = req.words[0]!;
      for (let k = text.indexOf(w); k !== -1; k = text.indexOf(w, k + 1)) hits.push([k, k + w.length]);
    } else return null;
  }
  return hits;
}

/**
 * The statements to parse instead of the whole text (and the boundaries), null for a whole
 * parse, or "dense" (only with whole-file matching in napi's threads): the hits are too many or
 * their statements too large for regions to pay, the whole parse comes first.
 */
function regionsOf(text: string, hits: ReadonlyArray<[number, number]>, wholeFinds: boolean): { regions: Array<[number, number]>; boundaries: number[] } | null | "dense" {
  // A region's parse and walk cost this thread several times what a whole parse costs napi's
  // threads (measured on effect's src/: S1 gains, S2 and S3 lose).
  if (wholeFinds && hits.length * REGION_MAX_HIT_GAP > text.length) return "dense";
  const boundaries = statementBoundaries(text);
  if (!boundaries) return null;
  const regions = regionsFor(boundaries, text.length, hits);
  if (wholeFinds) {
    let bytes = 0;
    for (const [start, end] of regions) bytes += end - start;
    if (bytes > REGION_MAX_SHARE * text.length) return "dense";
  }
  return { regions, boundaries };
}

/** Region parsing beside whole-file matching in napi's threads: at most one hit per this many characters… */
const REGION_MAX_HIT_GAP = 8000;
/** …and regions covering at most this share of the file. */
const REGION_MAX_SHARE = 0.25;

/** A WholeFind for the file at `abs` (whose text is `text`): native.ts's NativeFinder.find. */
export type FileFind = (abs: string, lang: string, text: string, c: Combined) => Promise<SgNode[] | null>;

export class FileProcessor {
  readonly #filters = new Map<string, ((bytes: Buffer) => boolean) | null>();
  constructor(
    readonly napi: Napi,
    readonly job: EngineJob,
  ) {}

  #filter(lang: string): ((bytes: Buffer) => boolean) | null {
    if (!this.#filters.has(lang)) this.#filters.set(lang, compileBytePrefilter(this.job.prefilter[lang] ?? null));
    return this.#filters.get(lang)!;
  }

  process(file: EngineFile): FileResult {
    const read = this.#read(file);
    if (!("bytes" in read)) return read;
    return this.#result(file, read.bytes, read.text, matchText(this.napi, file.lang, read.text, this.job));
  }

  /** process() with the parses on libuv's thread pool (matchTextAsync). */
  async processAsync(file: EngineFile, parse?: AsyncParse, finder?: FileFind): Promise<FileResult> {
    const read = this.#read(file);
    if (!("bytes" in read)) return read;
    const find: WholeFind | undefined = finder && ((lang, text, c) => finder(file.abs, lang, text, c));
    return this.#result(file, read.bytes, read.text, await matchTextAsync(this.napi, file.lang, read.text, this.job, parse, find));
  }

  #read(file: EngineFile): FileResult | { bytes: Buffer; text: string } {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file.abs);
    } catch (err) {
      return { rel: file.rel, status: "skipped", reason: "unreadable", message: err instanceof Error ? err.message : String(err) };
    }
    if (bytes.byteLength > this.job.maxFileBytes) return { rel: file.rel, status: "skipped", reason: "too-large" };
    if (bytes.subarray(0, 8000).includes(0)) return { rel: file.rel, status: "skipped", reason: "binary" };
    if (!isUtf8(bytes)) return { rel: file.rel, status: "skipped", reason: "non-utf8" };
    const filter = this.#filter(file.lang);
    if (filter && !filter(bytes)) return { rel: file.rel, status: "searched" };
    return { bytes, text: decoder.decode(bytes) };
  }

  #result(file: EngineFile, bytes: Buffer, text: string, { matches, errors, hadErrors }: MatchResult): FileResult {
    if (matches.length === 0) return { rel: file.rel, status: "searched", ...(hadErrors ? { parseError: true as const } : {}) };
    return { rel: file.rel, status: "matched", text, sha256: sha256(bytes), matches, errors };
  }
}
