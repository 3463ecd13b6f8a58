/**
 * Per-file work of ast_grep/ast_edit: read, classify (binary / non-UTF-8 / too large), text
 * prefilter, parse, match. Runs on the main thread or inside worker threads (worker.ts); its
 * inputs and outputs are plain data so they cross the thread boundary as is.
 */
import { readFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import type { Napi } from "./langs.js";
import { ensureLanguages } from "./langs.js";
import { compileBytePrefilter, type PrefilterSpec } from "./pattern.js";
import { regionsFor, statementBoundaries } from "./regions.js";
import type { RawMatch } from "./rewrite.js";

export interface EngineOp {
  pat: string;
  /** Captures to extract: name → multi. */
  captures: Record<string, boolean>;
  /** Every capture the pattern declares (for the syntax-error check); default: `captures`. */
  all?: Record<string, boolean>;
}

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
 * only the statements holding a prefilter hit. Region parsing is ~3x cheaper and finds the same
 * matches, plus those that the whole-file parse loses to tree-sitter's error recovery around
 * syntax the bundled grammar does not know (docs/benchmarks.md); `whole` gives ast-grep's
 * exact answer. Worker threads inherit the environment.
 */
const WHOLE_FILES = process.env.TOLLGATE_PARSE === "whole";

export function matcherOf(pat: string, sel: string | undefined): string | { rule: ReturnType<typeof patternRule> } {
  return sel ? { rule: patternRule(pat, sel) } : pat;
}

type SgNode = ReturnType<ReturnType<Napi["parse"]>["root"]>;

function captureRange(node: SgNode, name: string, multi: boolean, offset: number): [number, number] | null {
  if (multi) {
    const nodes = node.getMultipleMatches(name);
    if (nodes.length === 0) return null;
    return [nodes[0]!.range().start.index + offset, nodes[nodes.length - 1]!.range().end.index + offset];
  }
  const one = node.getMatch(name);
  if (one) {
    const r = one.range();
    return [r.start.index + offset, r.end.index + offset];
  }
  // `$A` written in the template for a `$$$A` capture, or vice versa.
  const many = node.getMultipleMatches(name);
  if (many.length === 0) return null;
  return [many[0]!.range().start.index + offset, many[many.length - 1]!.range().end.index + offset];
}

/**
 * Matches of every op in one text (offsets are UTF-16, i.e. JS string indices).
 *
 * Syntax errors: tree-sitter wraps what it cannot parse in ERROR nodes (often large ones, and
 * often for valid code newer than the bundled grammar). A match that sits inside an ERROR node
 * is itself a cleanly parsed subtree and is kept; a match that contains an ERROR node outside
 * its metavariable captures (whose text is copied verbatim) rests on a misparse and is flagged
 * `bad`: its file is skipped and reported under "Parse issues".
 */
export function matchText(
  napi: Napi,
  lang: string,
  text: string,
  job: Pick<EngineJob, "ops" | "sel"> & { prefilter?: Record<string, PrefilterSpec> | undefined },
): MatchResult {
  ensureLanguages(napi, [lang]);
  const regions = regionsToParse(lang, text, job);
  const out: MatchResult = { matches: [], errors: [], ...(regions ? { regions: regions.length } : {}) };
  for (const [start, end] of regions ?? [[0, text.length] as [number, number]]) {
    matchRoot(napi.parse(lang as never, start === 0 && end === text.length ? text : text.slice(start, end)).root(), start, job, out);
  }
  return out;
}

export interface MatchResult {
  matches: RawMatch[];
  errors: Array<[number, number]>;
  /** Whether any parsed region has ERROR nodes (computed when there is no match too). */
  hadErrors?: boolean;
  regions?: number;
}

function regionsToParse(lang: string, text: string, job: { sel?: string | undefined; prefilter?: Record<string, PrefilterSpec> | undefined }): Array<[number, number]> | null {
  return lang === "TypeScript" && !job.sel && !WHOLE_FILES ? regionsOf(text, job.prefilter?.[lang] ?? null) : null;
}

function matchRoot(root: SgNode, start: number, job: Pick<EngineJob, "ops" | "sel">, out: MatchResult): void {
  const found: Array<{ node: SgNode; match: RawMatch }> = [];
  const local: Array<[number, number]> = [];
  collect(root, start, job, found, local);
  if (local.length > 0) out.hadErrors = true;
  if (found.length === 0) return;
  if (local.length > 0) flagMisparsed(found, local, job.ops, start);
  flagMissing(found, job.ops, start);
  out.errors.push(...local);
  for (const f of found) out.matches.push(f.match);
}

/** Ranges of every capture an op declares (the text a rewrite copies verbatim). */
function allCaptureRanges(node: SgNode, op: EngineOp, offset: number): Array<[number, number]> {
  return Object.entries(op.all ?? op.captures)
    .map(([name, multi]) => captureRange(node, name, multi, offset))
    .filter((c): c is [number, number] => c !== null);
}

/** Flags matches containing an ERROR node outside their captures (see matchText). */
function flagMisparsed(found: Array<{ node: SgNode; match: RawMatch }>, errors: Array<[number, number]>, ops: readonly EngineOp[], offset: number): void {
  for (const { node, match } of found) {
    const inner = errors.filter(([es, ee]) => es >= match.start && ee <= match.end && !(es === match.start && ee === match.end));
    if (inner.length === 0) continue;
    const caps = allCaptureRanges(node, ops[match.op]!, offset);
    if (inner.some(([es, ee]) => !caps.some(([cs, ce]) => cs <= es && ee <= ce))) match.bad = true;
  }
}

/**
 * Flags matches that rest on a token tree-sitter invented: error recovery inserts a MISSING
 * node (zero width, so empty text) for an absent `)` and carries on, so `Effect.map(x, f;`
 * would match and be rewritten as if it were whole. A zero-width node strictly inside a
 * capture is copied verbatim and does not count. Only the matched subtrees are searched.
 */
function flagMissing(found: Array<{ node: SgNode; match: RawMatch }>, ops: readonly EngineOp[], offset: number): void {
  for (const { node, match } of found) {
    if (match.bad) continue;
    const missing = node.findAll({ rule: { regex: "^$" } } as never).map((n) => n.range().start.index + offset);
    if (missing.length === 0) continue;
    const caps = allCaptureRanges(node, ops[match.op]!, offset);
    if (missing.some((at) => !caps.some(([cs, ce]) => cs < at && at < ce))) match.bad = true;
  }
}

function patternRule(pat: string, sel: string | undefined): { pattern: string | { context: string; selector: string } } {
  return { pattern: sel ? { context: pat, selector: sel } : pat };
}

/**
 * Matches of every op, and the ERROR nodes (as [start, end); without matches, at least one if
 * there is any). One op,
 * the common case, takes a single traversal for both (`any` of the pattern and `kind: ERROR`):
 * walking a whole tree twice cost about as much again as the match itself.
 */
function collect(root: SgNode, offset: number, job: Pick<EngineJob, "ops" | "sel">, found: Array<{ node: SgNode; match: RawMatch }>, errors: Array<[number, number]>): void {
  const push = (node: SgNode, index: number) => {
    const op = job.ops[index]!;
    const r = node.range();
    const captures: Record<string, [number, number] | null> = {};
    for (const [name, multi] of Object.entries(op.captures)) captures[name] = captureRange(node, name, multi, offset);
    found.push({ node, match: { op: index, start: r.start.index + offset, end: r.end.index + offset, captures } });
  };
  const errorAt = (node: SgNode) => {
    const r = node.range();
    errors.push([r.start.index + offset, r.end.index + offset]);
  };
  if (job.ops.length === 1) {
    const rule = patternRule(job.ops[0]!.pat, job.sel);
    for (const node of root.findAll({ rule: { any: [rule, { kind: "ERROR" }] } } as never)) {
      if (node.kind() !== "ERROR") push(node, 0);
      else {
        errorAt(node);
        if (node.matches({ rule } as never)) push(node, 0);
      }
    }
    return;
  }
  job.ops.forEach((op, index) => {
    for (const node of root.findAll(matcherOf(op.pat, job.sel) as never)) push(node, index);
  });
  if (found.length > 0) for (const e of root.findAll({ rule: { kind: "ERROR" } } as never)) errorAt(e);
  else {
    const e = root.find({ rule: { kind: "ERROR" } } as never);
    if (e) errorAt(e);
  }
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

/** The statements to parse instead of the whole text, or null for a whole parse. */
function regionsOf(text: string, spec: PrefilterSpec): Array<[number, number]> | null {
  const hits = hitsOf(text, spec);
  if (!hits || hits.length === 0) return null;
  const boundaries = statementBoundaries(text);
  if (!boundaries) return null;
  return regionsFor(boundaries, text.length, hits);
}

/** Whether any match rests on a misparse (see matchText). */
export function matchesTouchErrors(matches: readonly RawMatch[]): boolean {
  return matches.some((m) => m.bad === true);
}

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
    return { rel: file.rel, status: "matched", text, sha256: createHash("sha256").update(bytes).digest("hex"), matches, errors };
  }
}
