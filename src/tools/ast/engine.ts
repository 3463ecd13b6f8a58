/**
 * Per-file work of ast_grep/ast_edit: read, classify (binary / non-UTF-8 / too large), text
 * prefilter, parse, match. Parses run on the calling thread (`parse`) or on libuv's thread pool
 * (`parseAsync`, pool.ts); inputs and outputs are plain data, and a file's result (FileResult)
 * depends on its bytes and the job only.
 *
 * The engine API (also for rule-based tools such as ast_scan):
 * - `matchText(napi, lang, text, { ops, sel?, prefilter? })`: every op's matches in one text,
 *   one whole-file parse and one traversal for all ops (traverse.ts); an op is a pattern or a
 *   napi rule object (`config`). Matches resting on a syntax error carry `bad: true`: callers
 *   skip and list them (`badMatches`), keeping the rest (`goodMatches`); `issues` are the places
 *   where a syntax error may hide a match.
 * - `matchTextAsync`: the same with the parses off the calling thread.
 * - `FileProcessor` / `processFiles` (pool.ts): the same over files, several at once.
 */
import { isAscii, isUtf8 } from "node:buffer";
import { sha256 } from "../../util/hash.js";
import { RegularFileReader } from "../../util/regular.js";
import type { Napi } from "./langs.js";
import { ensureLanguages, langById, type LangInfo } from "./langs.js";
import { compileBytePrefilter, fixedTokens, type Latin1View, type PrefilterSpec } from "./pattern.js";
import { statementBoundaries } from "./regions.js";
import { lastAtOrBefore } from "../../workspace/text.js";
import { LineIndex, type RawMatch } from "./rewrite.js";
import {
  collect,
  combine,
  compileRequirement,
  meets,
  opConfig,
  traverse,
  type CompiledRequirement,
  type Combined,
  type EngineOp,
  type Found,
  type SgNode,
  type TraverseOptions,
  type Walked,
} from "./traverse.js";
import type { Reclaimer } from "./reclaim.js";
import { Intervals } from "./intervals.js";
import { messageOf } from "../../util/thrown.js";

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

/** A place (1-based line and UTF-16 column) where a syntax error may hide a match (MatchResult.issues). */
export interface ParseIssue {
  line: number;
  col: number;
}

export type FileResult =
  | { rel: string; status: "skipped"; reason: SkipReason; message?: string }
  | { rel: string; status: "searched"; issues?: ParseIssue[] }
  | {
      rel: string;
      status: "matched";
      text: string;
      sha256: string;
      matches: RawMatch[];
      /** Set when the whole file's parse has syntax errors (away from the good matches). */
      syntaxErrors?: true;
      issues?: ParseIssue[];
    };

export function matcherOf(pat: string, sel: string | undefined): ReturnType<typeof opConfig> {
  return opConfig({ pat }, sel);
}

export interface MatchResult {
  /** Every op's matches, file offsets (UTF-16); `bad` ones rest on a syntax error. */
  matches: RawMatch[];
  /**
   * Offsets of the syntax errors where a match may be missing: an ERROR node or an invented
   * token's node that holds one of the ops' fixed tokens, where no clean parse of its statement
   * covers it (each at its first fixed token).
   */
  issues: number[];
  /** Whether the whole file's parse has syntax errors. */
  hadErrors?: boolean;
  /** Statements parsed on their own where the whole parse has syntax errors. */
  regions?: number;
}

type FixedTokens = ReturnType<typeof fixedTokens>;

type Job = Pick<EngineJob, "ops" | "sel"> & { prefilter?: Record<string, PrefilterSpec> | undefined };

/** `memo`'s value for `key`, made by `make` the first time it is asked for. */
function once<T>(memo: Map<string, T>, key: string, make: () => T): T {
  if (!memo.has(key)) memo.set(key, make());
  return memo.get(key)!;
}

/**
 * What matching a job compiles once, for every text it is asked about: each language's prefilter
 * requirements with their regexes, and the combined rule of all the ops (a whole-file walk needs
 * no prefilter).
 */
export class CompiledJob {
  readonly #requirements = new Map<string, ReadonlyArray<CompiledRequirement> | null>();
  readonly #fixed = new Map<string, ReadonlyArray<FixedTokens | null>>();
  readonly #anchors = new Map<string, ReadonlyArray<string | null>>();
  readonly #tokens = new Map<string, ReadonlyArray<readonly string[] | null>>();
  #whole: Combined | null | undefined;
  constructor(readonly job: Job) {}

  /** Per op, the prefilter requirement in `lang`; null when the job has none there. */
  requirements(lang: string): ReadonlyArray<CompiledRequirement> | null {
    return once(this.#requirements, lang, () => {
      const spec = this.job.prefilter?.[lang] ?? null;
      return spec !== null && spec.length === this.job.ops.length ? spec.map(compileRequirement) : null;
    });
  }

  /** Each op's fixed tokens in `lang` (pattern.ts fixedTokens); null for a rule object. */
  #fixedTokens(lang: string, info: LangInfo): ReadonlyArray<FixedTokens | null> {
    return once(this.#fixed, lang, () => this.job.ops.map((op) => (op.config ? null : fixedTokens(op.pat, info))));
  }

  /**
   * Each op's anchor in `lang` as a regex source, or null for an op without one (a rule object, a
   * lone metavariable): the op's first run of its prefilter requirement where it has one (a match
   * shows it whole, and it is rarer than any of its words), else its longest fixed word, else its
   * first fixed punctuation character.
   */
  anchors(lang: string, info: LangInfo): ReadonlyArray<string | null> {
    return once(this.#anchors, lang, () => {
      const reqs = this.requirements(lang);
      return this.#fixedTokens(lang, info).map((t, i) => {
        if (t === null) return null;
        const run = reqs?.[i]?.runs[0];
        if (run !== undefined) return `(?:${run.source})`;
        const word = [...t.words, ...t.tails].sort((a, b) => b.length - a.length)[0];
        if (word !== undefined) return wordSource(word, t.tails.includes(word));
        return t.chars.length > 0 ? escapeRegex(t.chars[0]!) : null;
      });
    });
  }

  /**
   * Each op's fixed tokens in `lang` (pattern.ts fixedTokens) as regex sources: a word as a whole
   * word, a punctuation character anywhere; null for an op without any (a rule object, a lone
   * metavariable), which may match anywhere.
   */
  tokens(lang: string, info: LangInfo): ReadonlyArray<readonly string[] | null> {
    return once(this.#tokens, lang, () =>
      this.#fixedTokens(lang, info).map((t) => {
        if (t === null) return null;
        const all = [...t.words.map((w) => wordSource(w, false)), ...t.tails.map((w) => wordSource(w, true)), ...t.chars.map(escapeRegex)];
        return all.length > 0 ? all : null;
      }),
    );
  }

  /** The ops a part of a text can match: those whose prefilter requirement holds (all when there is none). */
  activeOps(text: string, lang: string): number[] {
    const reqs = this.requirements(lang);
    const all = this.job.ops.map((_, i) => i);
    return reqs === null ? all : all.filter((i) => meets(reqs[i]!, text));
  }

  /** The ops a whole file's text can match: activeOps less those whose file text it lacks. */
  fileOps(text: string, lang: string): number[] {
    const reqs = this.requirements(lang);
    return this.activeOps(text, lang).filter((i) => {
      const file = reqs?.[i]?.file;
      return file === undefined || text.includes(file);
    });
  }

  /** The combined rule of all of the job's ops. */
  wholeRule(): Combined | null {
    const { ops, sel } = this.job;
    this.#whole ??=
      ops.length === 0
        ? null
        : combine(
            ops,
            ops.map((_, i) => i),
            sel,
          );
    return this.#whole;
  }
}

/** Spans of the text to parse ([start, end), UTF-16), answered with their syntax trees in order. */
type ParseSpans = Array<[number, number]>;
/** A request for the nodes a combined rule finds in the whole text (answered by a WholeFind). */
interface WholeRequest {
  whole: Combined;
}
type Request = ParseSpans | WholeRequest;
type Reply = SgRoot[] | SgNode[] | null;
const isWhole = (r: Request): r is WholeRequest => !Array.isArray(r);

type SgRoot = ReturnType<Napi["parse"]>;

const spanText = (text: string, [start, end]: [number, number]) => (start === 0 && end === text.length ? text : text.slice(start, end));

/**
 * Matches of every op in one text (offsets are UTF-16, i.e. JS string indices). See the module
 * comment; `traverse` flags the matches that rest on a syntax error.
 */
export function matchText(napi: Napi, lang: string, text: string, job: Job): MatchResult {
  ensureLanguages(napi, [lang]);
  return matchTextHere(napi, lang, text, new CompiledJob(job));
}

/** matchText in a language already registered, each tree's source counted by `onParsed`. */
function matchTextHere(napi: Napi, lang: string, text: string, job: CompiledJob, onParsed?: (bytes: number) => void): MatchResult {
  const steps = matching(lang, text, job, false, onParsed);
  let step = steps.next();
  while (!step.done) step = steps.next((step.value as ParseSpans).map((span) => napi.parse(lang as never, spanText(text, span))));
  return step.value;
}

/**
 * matchText with the parses made by `parseAsync`, on libuv's thread pool (napi's `parse` and
 * `parseAsync` build the same document). With `find`, the whole-file parse and its walk are
 * both made off this thread (napi's `findInFiles`, native.ts): only the nodes found come back.
 */
export async function matchTextAsync(
  napi: Napi,
  lang: string,
  text: string,
  job: CompiledJob,
  parse: AsyncParse = napiParseAsync(napi),
  find?: WholeFind,
  onParsed?: (bytes: number) => void,
): Promise<MatchResult> {
  const steps = matching(lang, text, job, find !== undefined, onParsed);
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
    napi.parseAsync(lang, text);

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

const isClean = (w: Walked) => w.errors.length === 0 && w.missing.length === 0;

/** What the matching of one text needs besides the text: the job's ops and where parses are counted. */
interface Matcher {
  lang: string;
  job: Job;
  compiled: CompiledJob;
  active: number[];
  info: LangInfo;
  options: TraverseOptions;
  /** Source bytes whose trees were just traversed (a Reclaimer's parsedBytes), if counted. */
  onParsed: (bytes: number) => void;
}

/**
 * The matching itself: yields the spans to parse and gets their trees back (see matchText);
 * with `wholeFinds`, the whole-file parse is asked for as a WholeRequest instead.
 *
 * The whole file is parsed, as the ast-grep CLI parses it. Where that parse is clean its
 * matches are the answer. Where it has syntax errors, napi's error recovery and the CLI's can
 * differ (napi parses UTF-16 text, the CLI UTF-8, and tree-sitter weighs a recovery by the bytes
 * it skips), so a match may be lost or spoilt in one and not in the other. A match overlapping
 * an error is flagged `bad` (traverse.ts). For TypeScript, each top-level statement (regions.ts)
 * that overlaps an error holding one of the ops' fixed tokens is parsed on its own: where that
 * parse is clean, it is the statement's parse as written, and its matches replace the whole
 * parse's there. Errors holding a fixed token that no clean statement parse covers are the
 * result's `issues`: a match the CLI finds may be missing there.
 */
function* matching(
  lang: string,
  text: string,
  compiled: CompiledJob,
  wholeFinds = false,
  onParsed: (bytes: number) => void = ignoreBytes,
): Generator<Request, MatchResult, Reply> {
  const active = compiled.fileOps(text, lang);
  if (active.length === 0) return { matches: [], issues: [] };
  const info = langById(lang);
  const { job } = compiled;
  const options = { stringKinds: info.stringKinds, requirements: compiled.requirements(lang) ?? undefined, source: text };
  const m: Matcher = { lang, job, compiled, active, info, options, onParsed };
  const w = yield* wholeWalk(m, text, wholeFinds);
  if (isClean(w)) return { matches: w.found.map((f) => f.match), issues: [] };
  const holds = tokenFinder(text, compiled.tokens(lang, info), active);
  // A zero-width piece (an empty ERROR node) stands for the character at its place.
  const pieces = [...w.errors, ...w.missing.map(([, s, e]): [number, number] => [s, e])].map(([s, e]): [number, number] => [s, Math.max(e, s + 1)]);
  const { spans, matchless } = statementsToParse(m, text, pieces, holds);
  const { covered, recovered } = spans.length > 0 ? statementWalks(m, spans, (yield spans) as SgRoot[]) : { covered: [], recovered: [] };
  const quiet = [...covered, ...matchless].sort((x, y) => x[0] - y[0]);
  const anchors = anchorRegex(m);
  return {
    matches: mergedMatches(w.found, covered, recovered),
    issues: issuesOf(text, pieces, quiet, holds, anchors, gluedOf(w, anchors, text, pieces, quiet)),
    hadErrors: w.errors.length > 0 || w.missing.length > 0,
    ...(spans.length > 0 ? { regions: spans.length } : {}),
  };
}

function ignoreBytes(): void {}

/** A tree's walk, its source counted as parsed once traversed (a Reclaimer collects dead trees). */
function walkRoot(m: Matcher, root: SgRoot, start: number, end: number): Walked {
  const out = traverse(root.root(), m.job.ops, m.active, m.job.sel, start, m.options);
  m.onParsed(end - start);
  return out;
}

/** The whole text's walk: by napi's own threads when asked (`wholeFinds`) and available, else by a parse here. */
function* wholeWalk(m: Matcher, text: string, wholeFinds: boolean): Generator<Request, Walked, Reply> {
  const c = wholeFinds ? m.compiled.wholeRule() : null;
  if (c !== null) {
    const nodes = (yield { whole: c }) as SgNode[] | null;
    if (nodes !== null) {
      if (nodes.length > 0) m.onParsed(text.length);
      const keep = m.active.length < c.active.length ? new Set(m.active) : undefined;
      return collect(nodes, c, 0, keep ? { ...m.options, keep } : m.options);
    }
  }
  const [root] = (yield [[0, text.length]]) as SgRoot[];
  return walkRoot(m, root!, 0, text.length);
}

/**
 * The top-level statements to parse alone (they overlap an error piece holding a fixed token and
 * meet an op's prefilter requirement) and those that cannot hold a match (neither parsed alone
 * nor listed).
 */
function statementsToParse(
  m: Matcher,
  text: string,
  pieces: ReadonlyArray<[number, number]>,
  holds: (start: number, end: number) => number,
): { spans: Array<[number, number]>; matchless: Array<[number, number]> } {
  const spans: Array<[number, number]> = [];
  const matchless: Array<[number, number]> = [];
  // A statement is suspect only where an error piece holds a fixed token: without one, no
  // statement is, and the text need not be split.
  if (m.lang !== "TypeScript" || !pieces.some(([s, e]) => holds(s, e) !== -1)) return { spans, matchless };
  const boundaries = statementBoundaries(text);
  for (const span of boundaries ? suspectStatements(boundaries, text.length, pieces, holds) : []) {
    (m.compiled.activeOps(text.slice(span[0], span[1]), m.lang).length > 0 ? spans : matchless).push(span);
  }
  return { spans, matchless };
}

/** The statements whose own parse is clean (`covered`) and their matches. */
function statementWalks(
  m: Matcher,
  spans: ReadonlyArray<[number, number]>,
  roots: readonly SgRoot[],
): { covered: Array<[number, number]>; recovered: RawMatch[] } {
  const covered: Array<[number, number]> = [];
  const recovered: RawMatch[] = [];
  for (const [k, span] of spans.entries()) {
    // A statement that has an ERROR node alone too covers nothing: one look for the first
    // ERROR (by kind, no node's text read) spares it the full walk.
    if (roots[k]!.root().find({ rule: { kind: "ERROR" } }) !== null) {
      m.onParsed(span[1] - span[0]);
      continue;
    }
    const r = walkRoot(m, roots[k]!, span[0], span[1]);
    if (!isClean(r)) continue;
    covered.push(span);
    for (const f of r.found) recovered.push(f.match);
  }
  return { covered, recovered };
}

/**
 * The whole parse's matches with the clean statement parses' answers in their place, in order.
 * A whole-parse match reaching across such a statement's bounds is none of its nodes: flagged.
 */
function mergedMatches(found: readonly Found[], covered: Array<[number, number]>, recovered: readonly RawMatch[]): RawMatch[] {
  const cover = new Intervals(covered);
  const inCovered = insideAny(covered);
  const matches: RawMatch[] = [];
  for (const { match } of found) {
    if (!cover.overlaps(match.start, match.end)) matches.push(match);
    else if (!inCovered(match.start, match.end)) matches.push({ ...match, bad: true });
  }
  matches.push(...recovered);
  return matches.sort((x, y) => x.start - y.start || y.end - x.end || x.op - y.op);
}

/**
 * Each error piece's parts outside the quiet statements (clean alone, or unable to match) is
 * listed at its first fixed token, and at every occurrence of an op's anchor token in it (a lost
 * match holds its anchor, so one of these lies in it). Sorted offsets.
 */
function issuesOf(
  text: string,
  pieces: ReadonlyArray<[number, number]>,
  quiet: ReadonlyArray<[number, number]>,
  holds: (start: number, end: number) => number,
  anchors: RegExp | undefined,
  glued: ReadonlyArray<[number, number]>,
): number[] {
  const issues = new Set<number>();
  const open: Array<[number, number]> = [];
  // The nodes recovery glued to an error (traverse.ts Walked.glued) are searched for anchors too.
  const starts = quiet.map((q) => q[0]);
  for (const [s, e] of glued) open.push(...uncovered(s, e, quiet, starts));
  for (const [s, e] of pieces) {
    for (const [ps, pe] of uncovered(s, e, quiet, starts)) {
      const at = holds(ps, pe);
      if (at === -1) continue;
      issues.add(at);
      open.push([ps, pe]);
    }
  }
  if (open.length > 0 && anchors) for (const at of anchorsIn(text, merged(open), anchors)) issues.add(at);
  return [...issues].sort((a, b) => a - b);
}

/** The union of the ranges, as sorted disjoint ranges. */
function merged(ranges: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [s, e] of [...ranges].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Whether a range lies inside one of the (sorted, disjoint) spans; the spans indexed once, for many questions. */
function insideAny(spans: ReadonlyArray<[number, number]>): (start: number, end: number) => boolean {
  const starts = spans.map((s) => s[0]);
  return (start, end) => {
    if (spans.length === 0) return false;
    const k = lastAtOrBefore(starts, start);
    return spans[k]![0] <= start && end <= spans[k]![1];
  };
}

/** The parts of [start, end) outside the (sorted, disjoint) spans (`starts`: their starts). */
function uncovered(start: number, end: number, spans: ReadonlyArray<[number, number]>, starts: readonly number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = start;
  // The spans before the last one starting at or before `start` end before it.
  for (let k = spans.length > 0 ? lastAtOrBefore(starts, start) : 0; k < spans.length; k++) {
    const [s, e] = spans[k]!;
    if (e <= at) continue;
    if (s >= end) break;
    if (s > at) out.push([at, s]);
    at = Math.max(at, e);
  }
  if (at < end) out.push([at, end]);
  return out;
}

/**
 * The first offset in [start, end) where one of the active ops' fixed tokens occurs (pattern.ts
 * fixedTokens: a word as a whole word, a punctuation character anywhere), or -1. An op without
 * fixed tokens (a rule object, a lone metavariable) may match anywhere: then `start`.
 */
function tokenFinder(text: string, tokens: ReadonlyArray<readonly string[] | null>, active: readonly number[]): (start: number, end: number) => number {
  const alternatives = new Set<string>();
  for (const i of active) {
    const sources = tokens[i];
    if (!sources) return (start, end) => (start < end ? start : -1);
    for (const source of sources) alternatives.add(source);
  }
  return firstFrom(text, new RegExp([...alternatives].join("|"), "g"));
}

/**
 * `(start, end) => the first offset in [start, end) where \`re\` (global) matches, or -1`, each
 * question a search from `start` (no list of every occurrence in the text). The last answer is
 * reused while questions move forward within it (pieces come in document order): no occurrence
 * starts between the last question's start and its answer, so the answer stands.
 */
function firstFrom(text: string, re: RegExp): (start: number, end: number) => number {
  let asked = -1;
  let found = -1;
  return (start, end) => {
    if (asked === -1 || start < asked || found < start) {
      re.lastIndex = start;
      const m = re.exec(text);
      asked = start;
      found = m ? m.index : Number.POSITIVE_INFINITY;
    }
    return found < end ? found : -1;
  };
}

/**
 * Offsets inside the (sorted) pieces where an active op's anchor (anchorRegex) starts.
 */
function anchorsIn(text: string, pieces: ReadonlyArray<[number, number]>, re: RegExp): number[] {
  const out: number[] = [];
  let from = 0;
  for (const [s, e] of pieces) {
    re.lastIndex = Math.max(from, s);
    for (let m = re.exec(text); m !== null && m.index < e; m = re.exec(text)) out.push(m.index);
    from = Math.max(from, e);
  }
  return out;
}

/**
 * The error neighbours to search for anchors (Walked.glued), asked of napi only where one may
 * add an issue: an anchor found there counts unless it lies in a quiet statement (cut away) or
 * starts inside an error piece (that piece's part holds a fixed token where the anchor starts,
 * so issuesOf searches it anyway). Without such a free anchor no neighbour is read; otherwise
 * an error whose parent holds none is settled (its neighbours lie in the parent).
 */
function gluedOf(
  w: Walked,
  re: RegExp | undefined,
  text: string,
  pieces: ReadonlyArray<[number, number]>,
  quiet: ReadonlyArray<[number, number]>,
): Array<[number, number]> {
  if (!w.glued || re === undefined) return [];
  const inQuiet = insideAny(quiet);
  const inPiece = new Intervals(pieces);
  const free: number[] = [];
  for (let x = re.exec(text); x !== null; re.lastIndex = x.index + 1, x = re.exec(text)) {
    if (!inQuiet(x.index, x.index + 1) && !inPiece.overlaps(x.index, x.index + 1)) free.push(x.index);
  }
  if (free.length === 0) return [];
  return w.glued((s, e) => {
    if (inQuiet(s, e)) return true;
    const k = lastAtOrBefore(free, e - 1);
    return !(free[k]! >= s && free[k]! < e);
  });
}

/** The active ops' anchors (CompiledJob.anchors) as one global regex; undefined when none has one. */
function anchorRegex(m: Matcher): RegExp | undefined {
  const sources = m.compiled.anchors(m.lang, m.info);
  const alternatives = new Set(m.active.map((i) => sources[i]).filter((x): x is string => x !== null && x !== undefined));
  return alternatives.size === 0 ? undefined : new RegExp([...alternatives].join("|"), "g");
}

/** A fixed word as a whole token; a number's tail (`em` of `0.5em`) may follow anything but an identifier character after it. */
const wordSource = (word: string, tail: boolean) => `${tail ? "" : "(?<![A-Za-z0-9_$])"}${escapeRegex(word)}(?![A-Za-z0-9_$])`;

const escapeRegex = (x: string) => x.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/**
 * The top-level statements ([start, end) between boundaries) that overlap a syntax error's
 * piece holding a fixed token there, in order.
 */
function suspectStatements(
  boundaries: readonly number[],
  length: number,
  pieces: ReadonlyArray<[number, number]>,
  holds: (start: number, end: number) => number,
): Array<[number, number]> {
  const picked = new Set<number>();
  const endOf = (k: number) => (k + 1 < boundaries.length ? boundaries[k + 1]! : length);
  for (const [s, e] of pieces) {
    const a = lastAtOrBefore(boundaries, s);
    const b = lastAtOrBefore(boundaries, Math.max(s, e - 1));
    for (let k = a; k <= b; k++) {
      if (picked.has(k)) continue;
      if (holds(Math.max(s, boundaries[k]!), Math.min(e, endOf(k))) !== -1) picked.add(k);
    }
  }
  return [...picked].sort((x, y) => x - y).map((k): [number, number] => [boundaries[k]!, endOf(k)]);
}

/** The matches to use: those that do not rest on a syntax error. */
export function goodMatches(matches: readonly RawMatch[]): RawMatch[] {
  return matches.filter((m) => m.bad !== true);
}

/** The matches skipped because they rest on a syntax error (listed with their position). */
export function badMatches(matches: readonly RawMatch[]): RawMatch[] {
  return matches.filter((m) => m.bad === true);
}

/** A WholeFind for the file at `abs` (whose text is `text`): native.ts's NativeFinder.find. */
export type FileFind = (abs: string, lang: string, text: string, c: Combined) => Promise<SgNode[] | null>;

/** What a file's FileResult is made from (a MatchResult, or the result cache's copy of one). */
type Answer = Pick<MatchResult, "matches" | "issues" | "hadErrors">;

/**
 * Answers kept across runs (`--cache`, src/cache): a file's answer for this job by its language
 * and content. A hit stands in for the parse; `put` keeps an answer just computed.
 */
export interface MatchCache {
  /** `sha256`: of the file's bytes; `text`: their decoding (the answer's ranges are checked against it). */
  get(lang: string, sha256: string, text: string): Answer | undefined;
  put(lang: string, sha256: string, text: string, answer: Answer): void;
}

/** A file read for the engine: its text and the sha256 of its bytes. */
interface Read {
  text: string;
  sha256: string;
}

/**
 * One run's per-file work: the job's byte prefilters, the dynamic languages registered once, and
 * the parsed source counted for the run's Reclaimer (when there is one).
 */
export class FileProcessor {
  readonly #filters = new Map<string, ((bytes: Buffer, view?: Latin1View) => boolean) | null>();
  readonly #languages = { done: false };
  readonly #compiled: CompiledJob;
  readonly #onParsed: ((bytes: number) => void) | undefined;
  /** What is kept of a file is its text and hash: its bytes are read into one reused buffer. */
  readonly #reader = new RegularFileReader();
  constructor(
    readonly napi: Napi,
    readonly job: EngineJob,
    readonly cache?: MatchCache | undefined,
    reclaimer?: Reclaimer,
  ) {
    this.#onParsed = reclaimer && ((bytes) => reclaimer.parsedBytes(bytes));
    this.#compiled = new CompiledJob(job);
  }

  #filter(lang: string): ((bytes: Buffer, view?: Latin1View) => boolean) | null {
    return once(this.#filters, lang, () => compileBytePrefilter(this.job.prefilter[lang] ?? null));
  }

  process(file: EngineFile): FileResult {
    const read = this.#read(file);
    if (!("text" in read)) return read;
    const hit = this.#hit(file, read);
    if (hit) return this.#result(file, read, hit);
    ensureLanguages(this.napi, [file.lang], this.#languages);
    return this.#result(file, read, this.#kept(file, read, matchTextHere(this.napi, file.lang, read.text, this.#compiled, this.#onParsed)));
  }

  /**
   * process() with the parses made off this thread (matchTextAsync). Reads and hashes stay on
   * this thread: a synchronous read and SHA-256 cost less of it than queueing them on libuv's
   * pool through promises does.
   */
  async processAsync(file: EngineFile, parse?: AsyncParse, finder?: FileFind): Promise<FileResult> {
    const read = this.#read(file);
    if (!("text" in read)) return read;
    const hit = this.#hit(file, read);
    if (hit) return this.#result(file, read, hit);
    const find: WholeFind | undefined = finder && ((lang, text, c) => finder(file.abs, lang, text, c));
    ensureLanguages(this.napi, [file.lang], this.#languages);
    const answer = await matchTextAsync(this.napi, file.lang, read.text, this.#compiled, parse, find, this.#onParsed);
    return this.#result(file, read, this.#kept(file, read, answer));
  }

  /** The result cache's answer for the file, when there is a cache and it has one. */
  #hit(file: EngineFile, read: Read): Answer | undefined {
    return this.cache?.get(file.lang, read.sha256, read.text);
  }

  /** A computed answer, kept in the result cache (when there is one). */
  #kept(file: EngineFile, read: Read, answer: MatchResult): MatchResult {
    this.cache?.put(file.lang, read.sha256, read.text, answer);
    return answer;
  }

  /** A file read, classified (unreadable, too large, binary, not UTF-8), prefiltered, decoded and hashed. */
  #read(file: EngineFile): FileResult | Read {
    let bytes: Buffer | null;
    try {
      bytes = this.#reader.read(file.abs, this.job.maxFileBytes);
    } catch (err) {
      return { rel: file.rel, status: "skipped", reason: "unreadable", message: messageOf(err) };
    }
    if (bytes === null) return { rel: file.rel, status: "skipped", reason: "too-large" };
    if (bytes.subarray(0, 8000).includes(0)) return { rel: file.rel, status: "skipped", reason: "binary" };
    if (!isUtf8(bytes)) return { rel: file.rel, status: "skipped", reason: "non-utf8" };
    const filter = this.#filter(file.lang);
    const view: Latin1View = {};
    if (filter && !filter(bytes, view)) return { rel: file.rel, status: "searched" };
    // An ASCII file's latin1 view is its text (the prefilter's, or made here: latin1 decodes
    // faster). Other valid UTF-8 (checked above): Buffer's decoder gives the same text as a
    // fatal one, faster; a byte-order mark stays in the text, as the CLI sees it.
    const text = isAscii(bytes) ? (view.text ?? bytes.toString("latin1")) : bytes.toString("utf8");
    return { text, sha256: sha256(bytes) };
  }

  #result(file: EngineFile, read: Read, { matches, issues, hadErrors }: Answer): FileResult {
    const { text } = read;
    const listed = issues.length > 0 ? { issues: positions(text, issues) } : {};
    if (matches.length === 0) return { rel: file.rel, status: "searched", ...listed };
    return {
      rel: file.rel,
      status: "matched",
      text,
      sha256: read.sha256,
      matches,
      ...(hadErrors ? { syntaxErrors: true as const } : {}),
      ...listed,
    };
  }
}

/** Line and column of each offset. */
function positions(text: string, offsets: readonly number[]): ParseIssue[] {
  const index = new LineIndex(text);
  return offsets.map((o) => index.pos(o));
}
