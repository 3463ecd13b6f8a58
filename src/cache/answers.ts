/**
 * The answers the cache keeps and how each is checked: the ast engine's matches of a file (for
 * ast_grep, ast_edit and ast_scan's plain-pattern rules), ast_scan's evaluated matches of the
 * rules that apply to a file, what ast_edit planned from a file's matches, and what staging
 * derived from a file's edits (its diff).
 */
import type { AnswerCodec } from "./store.js";

type Range = [number, number];

/**
 * What the engine found in one file: its ops' matches (with the captures rewrites need) and
 * where a syntax error may hide a match. Offsets are UTF-16 indices into the file's text. The
 * shape is the engine's per-file result, declared here so the cache depends on no tool.
 */
export interface EngineAnswer {
  matches: Array<{
    op: number;
    start: number;
    end: number;
    captures: Record<string, Range | null>;
    bad?: boolean;
    literals?: Range[];
  }>;
  issues: number[];
  hadErrors?: boolean;
}

/** What one file gave each applicable rule (in the order the rules were given): matches with message and fix, and those resting on a syntax error. */
export type ScanAnswer = Array<{
  good: Array<{ start: number; end: number; message: string; fix?: { start: number; end: number; text: string } }>;
  bad: Array<{ start: number; end: number }>;
}>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isInteger(v);
const isRange = (v: unknown): v is Range => Array.isArray(v) && v.length === 2 && isInt(v[0]) && isInt(v[1]);
const isSpan = (v: unknown): v is { start: number; end: number } => isObj(v) && isInt(v.start) && isInt(v.end);

function isEngineMatch(m: unknown): boolean {
  if (!isSpan(m) || !isInt((m as Record<string, unknown>).op)) return false;
  const { captures, bad, literals } = m as Record<string, unknown>;
  if (!isObj(captures) || !Object.values(captures).every((c) => c === null || isRange(c))) return false;
  if (bad !== undefined && typeof bad !== "boolean") return false;
  return literals === undefined || (Array.isArray(literals) && literals.every(isRange));
}

export const engineCodec: AnswerCodec<EngineAnswer> = {
  is: (v): v is EngineAnswer =>
    isObj(v) &&
    Array.isArray(v.matches) &&
    v.matches.every(isEngineMatch) &&
    Array.isArray(v.issues) &&
    v.issues.every(isInt) &&
    (v.hadErrors === undefined || typeof v.hadErrors === "boolean"),
  *ranges(v) {
    for (const m of v.matches) {
      yield [m.start, m.end];
      for (const c of Object.values(m.captures)) if (c) yield c;
      for (const l of m.literals ?? []) yield l;
    }
    // An issue is an offset: it must lie within the text.
    for (const o of v.issues) yield [o, o];
  },
};

function isGood(g: unknown): boolean {
  if (!isSpan(g) || typeof (g as Record<string, unknown>).message !== "string") return false;
  const fix = (g as Record<string, unknown>).fix;
  return fix === undefined || (isSpan(fix) && typeof (fix as Record<string, unknown>).text === "string");
}

export const scanCodec: AnswerCodec<ScanAnswer> = {
  is: (v): v is ScanAnswer =>
    Array.isArray(v) && v.every((r) => isObj(r) && Array.isArray(r.good) && r.good.every(isGood) && Array.isArray(r.bad) && r.bad.every(isSpan)),
  *ranges(v) {
    for (const r of v) {
      for (const g of r.good) {
        yield [g.start, g.end];
        if (g.fix) yield [g.fix.start, g.fix.end];
      }
      for (const b of r.bad) yield [b.start, b.end];
    }
  },
};

/** What staging derived from a file's text and edits (domain StagedDiff), with the edits' ranges it was made at. */
export interface StagedAnswer {
  edits: Range[];
  afterSha256: string;
  additions: number;
  deletions: number;
  diff: string;
}

export const stagedCodec: AnswerCodec<StagedAnswer> = {
  is: (v): v is StagedAnswer =>
    isObj(v) &&
    Array.isArray(v.edits) &&
    v.edits.every(isRange) &&
    typeof v.afterSha256 === "string" &&
    /^[0-9a-f]{64}$/.test(v.afterSha256) &&
    isInt(v.additions) &&
    isInt(v.deletions) &&
    typeof v.diff === "string",
  ranges: (v) => v.edits,
};

/**
 * What ast_edit planned from one file's matches when no limit cut them: the edits, the change
 * details without their path (the preview's lines are made from them), the matches per op, and
 * the sha256 of the (matched, replacement) pairs that a rebase at apply time compares.
 */
export interface EditAnswer {
  edits: Array<{ start: number; end: number; text: string }>;
  changes: Array<{ line: number; col: number; endLine: number; endCol: number; matched: string; replacement: string; nested: boolean }>;
  perOp: number[];
  pairs: string;
}

const isStr = (v: unknown): v is string => typeof v === "string";

function isChange(c: unknown): boolean {
  if (!isObj(c)) return false;
  return [c.line, c.col, c.endLine, c.endCol].every(isInt) && isStr(c.matched) && isStr(c.replacement) && typeof c.nested === "boolean";
}

export const editCodec: AnswerCodec<EditAnswer> = {
  is: (v): v is EditAnswer =>
    isObj(v) &&
    Array.isArray(v.edits) &&
    v.edits.every((e) => isSpan(e) && isStr((e as Record<string, unknown>).text)) &&
    Array.isArray(v.changes) &&
    v.changes.every(isChange) &&
    Array.isArray(v.perOp) &&
    v.perOp.every(isInt) &&
    isStr(v.pairs) &&
    /^[0-9a-f]{64}$/.test(v.pairs),
  *ranges(v) {
    for (const e of v.edits) yield [e.start, e.end];
  },
};
