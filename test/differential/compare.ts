/**
 * Deciding a case: every difference between tollgate's answer and the CLI's is put to the
 * predicates of src/tools/ast/differences.ts; one that none explains is a failure, reported
 * with the case (language, file, pattern, rewrite, both answers).
 */
import type { SgNode } from "@ast-grep/napi";
import { explain, type Observed } from "../../src/tools/ast/differences.js";
import type { AstGrepMatch } from "../../src/tools/ast-grep.js";
import type { CliMatch } from "./cli.js";

/** A match as ast_grep reports it, by what the comparison reads. */
export type TgMatch = Pick<AstGrepMatch, "path" | "line" | "col" | "endLine" | "endCol" | "text">;

/** Counts of explained differences by entry id, and the unexplained ones described. */
export class Verdict {
  readonly explained = new Map<string, number>();
  readonly failures: string[] = [];

  /** Puts an observed difference to the predicates; a failure when none explains it. */
  judge(o: Observed, describe: () => string): boolean {
    const d = explain(o);
    if (d) this.explained.set(d.id, (this.explained.get(d.id) ?? 0) + 1);
    else this.failures.push(describe());
    return d !== undefined;
  }

  fail(message: string): void {
    this.failures.push(message);
  }
}

export const rangeKey = (m: { line: number; col: number; endLine: number; endCol: number }) => `${m.line}:${m.col}-${m.endLine}:${m.endCol}`;
const matchKey = (m: TgMatch | CliMatch, file: string) => `${file}:${rangeKey(m)} ${JSON.stringify(m.text)}`;

/** Line starts of a text (string indices). */
export function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}

/** The text at a 1-based line/column range, or undefined when it lies outside the text. */
function textAt(text: string, starts: number[], m: TgMatch): string | undefined {
  const a = starts[m.line - 1];
  const b = starts[m.endLine - 1];
  if (a === undefined || b === undefined) return undefined;
  return text.slice(a + m.col - 1, b + m.endCol - 1);
}

/** Positions (`line:col`) of tollgate's positioned parse issues in one file. */
export function issuePositions(parseErrors: readonly string[] | undefined, file: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const e of parseErrors ?? []) {
    const m = /^(.*?):(\d+):(\d+):/.exec(e);
    if (m && m[1] === file) out.push([Number(m[2]), Number(m[3])]);
  }
  return out;
}

const within = (p: [number, number], m: { line: number; col: number; endLine: number; endCol: number }) =>
  (p[0] > m.line || (p[0] === m.line && p[1] >= m.col)) && (p[0] < m.endLine || (p[0] === m.endLine && p[1] <= m.endCol));

export interface MatchCase {
  lang: string;
  pattern: string;
  /** Files of the language directory: name → text. */
  texts: Map<string, string>;
  /** Files whose parse (napi's) has error nodes. */
  withErrors: Set<string>;
  cli: CliMatch[];
  tg: TgMatch[];
  parseErrors: readonly string[] | undefined;
  /** The ERROR nodes of the CLI's parse, by file (cli.ts cliErrors). */
  cliErrors: ReadonlyMap<string, ReadonlyArray<[number, number]>>;
  /** Whether tollgate's grammar and the CLI's parse the pattern alike (grammar.ts). */
  grammarsAgree: boolean;
  /** How tollgate was asked (with the other patterns in one call, or alone). */
  how: string;
}

/** Whether an ERROR node of the CLI's parse lies inside the CLI's match (and is not the match itself), or ends where the match begins. */
const onError = (m: CliMatch, errors: ReadonlyArray<[number, number]> | undefined, text: string) =>
  (errors ?? []).some(
    ([s, e]) => (m.start <= s && e <= m.end && (s !== m.start || e !== m.end)) || (s < m.start && e <= m.start && text.slice(e, m.start).trim() === ""),
  );

/** Compares one pattern's matches over all files of its language. */
export function compareMatches(c: MatchCase, v: Verdict): void {
  const files = [...new Set([...c.cli.map((m) => m.file), ...c.tg.map((m) => m.path)])].sort();
  for (const file of files) {
    const cli = c.cli.filter((m) => m.file === file);
    const tg = c.tg.filter((m) => m.path === file);
    const cliKeys = new Set(cli.map((m) => matchKey(m, file)));
    const tgKeys = new Set(tg.map((m) => matchKey(m, file)));
    const text = c.texts.get(file) ?? "";
    const starts = lineStarts(text);
    const fileHasErrors = c.withErrors.has(file);
    const issues = issuePositions(c.parseErrors, file);
    const head = () => `${c.lang} ${file}: pattern ${JSON.stringify(c.pattern)} (${c.how})`;
    const answers = () => `\n  tollgate: ${[...tgKeys].join("\n            ") || "(none)"}\n  ast-grep: ${[...cliKeys].join("\n            ") || "(none)"}`;
    for (const m of tg) {
      if (cliKeys.has(matchKey(m, file))) continue;
      const o: Observed = c.grammarsAgree
        ? { kind: "extra-match", fileHasErrors, textAtRange: textAt(text, starts, m) === m.text }
        : { kind: "grammars", agree: false };
      v.judge(o, () => `${head()}: tollgate's match ${matchKey(m, file)} is not the CLI's${answers()}`);
    }
    for (const m of cli) {
      if (tgKeys.has(matchKey(m, file))) continue;
      const o: Observed = c.grammarsAgree
        ? { kind: "missing-match", fileHasErrors, listedIssue: issues.some((p) => within(p, m)), cliMatchOnError: onError(m, c.cliErrors.get(file), text) }
        : { kind: "grammars", agree: false };
      v.judge(o, () => `${head()}: the CLI's match ${matchKey(m, file)} is missing${answers()}`);
    }
  }
}

/** Whether match `inner` lies wholly in a capture of `outer` that the template uses. */
export function inUsedCapture(outer: CliMatch, inner: CliMatch, used: ReadonlySet<string>): boolean {
  for (const [name, [s, e]] of outer.captures) if (used.has(name) && s <= inner.start && inner.end <= e) return true;
  return false;
}

interface Level {
  m: CliMatch;
  depth: number;
  parent?: Level;
}

/**
 * The CLI's matches as tollgate nests them (by start, the longer first; a match inside a used
 * capture of the enclosing one goes one level deeper), or the first pair that overlaps otherwise.
 */
export function nest(matches: readonly CliMatch[], used: ReadonlySet<string>): { levels: Level[] } | { overlap: [CliMatch, CliMatch] } {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const stack: Level[] = [];
  const levels: Level[] = [];
  for (const m of sorted) {
    while (stack.length > 0 && stack[stack.length - 1]!.m.end <= m.start) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent && (m.end > parent.m.end || (m.start === parent.m.start && m.end === parent.m.end) || !inUsedCapture(parent.m, m, used)))
      return { overlap: [parent.m, m] };
    const level: Level = parent ? { m, depth: parent.depth + 1, parent } : { m, depth: 0 };
    levels.push(level);
    stack.push(level);
  }
  return { levels };
}

/**
 * The CLI's rewrite applied inside-out: the deepest matches first (their replacements as the
 * CLI gives them), then, level by level, the CLI re-run on the text so far gives the
 * enclosing matches' replacements at their shifted ranges. Undefined when a level's match is
 * not found again with its captures at their shifted ranges (an inner rewrite changed how the
 * CLI parses the enclosing match).
 */
export function insideOut(text: string, levels: readonly Level[], rerun: (text: string) => CliMatch[]): string | undefined {
  const maxDepth = Math.max(...levels.map((l) => l.depth));
  // Edits so far in original coordinates: [start, end, length delta].
  const edits: Array<[number, number, number]> = [];
  const shift = (p: number) => edits.reduce((s, [, e, d]) => (e <= p ? s + d : s), 0);
  let current = text;
  for (let depth = maxDepth; depth >= 0; depth--) {
    const here = levels.filter((l) => l.depth === depth).map((l) => l.m);
    const found = depth === maxDepth ? undefined : rerun(current);
    const planned: Array<{ start: number; end: number; replacement: string; orig: CliMatch }> = [];
    for (const m of here) {
      const start = m.start + shift(m.start);
      const end = m.end + shift(m.end);
      const again = found ? found.find((f) => f.start === start && f.end === end) : m;
      if (!again || again.replacement === undefined || !again.replaced) return undefined;
      // The CLI must see the enclosing match as before: each capture where the original's lies now.
      for (const [name, [s, e]] of m.captures) {
        const now = again.captures.get(name);
        if (!now || now[0] !== s + shift(s) || now[1] !== e + shift(e)) return undefined;
      }
      planned.push({ start: again.replaced[0], end: again.replaced[1], replacement: again.replacement, orig: m });
    }
    planned.sort((a, b) => b.start - a.start);
    for (const p of planned) current = current.slice(0, p.start) + p.replacement + current.slice(p.end);
    for (const p of planned) edits.push([p.orig.start, p.orig.end, p.replacement.length - (p.end - p.start)]);
  }
  return current;
}

/** The lines after the first shifted by `d` spaces (up to -d leading spaces removed when negative), as the CLI re-indents a capture. */
function shiftLines(text: string, d: number): string {
  if (d === 0) return text;
  return text
    .split("\n")
    .map((l, i) => (i === 0 ? l : d > 0 ? " ".repeat(d) + l : l.replace(new RegExp(`^ {0,${-d}}`), "")))
    .join("\n");
}

/** How far the CLI re-indented a multi-line nested text inside its parent's replacement `out`: found by trying shifts. */
function multiLineShift(out: string, inner: string): number | undefined {
  const shifts = [0, ...Array.from({ length: 40 }, (_, i) => [i + 1, -(i + 1)]).flat()];
  return shifts.find((k) => out.includes(shiftLines(inner, k)));
}

/** Leading spaces and tabs of the line holding offset `at`. */
function indentAt(text: string, at: number): number {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, at))![0].length;
}

/**
 * How far the CLI re-indented the line holding a one-line nested match inside its parent's
 * replacement `out`: its text does not show it, its line's indentation does (the first line of
 * `out` keeps the parent's own line). Undefined when the text is not in `out`.
 */
function oneLineShift(source: string, parent: Level, child: Level, out: string): number | undefined {
  const at = out.indexOf(child.m.text);
  if (at === -1) return undefined;
  const line = out.lastIndexOf("\n", at - 1) === -1 ? indentAt(source, parent.m.start) : indentAt(out, at);
  return line - indentAt(source, child.m.start);
}

/**
 * The CLI's replacements composed inside-out without parsing again: an enclosing match's
 * replacement (as the CLI gives it on the original text) with the text of each nested match,
 * as the CLI re-indented it there, replaced by that match's own composed replacement,
 * re-indented alike. For rewrites whose inner results the CLI would parse otherwise (a swap
 * that makes a key of a value). Undefined when a nested match's text is not found in it.
 */
export function composeInsideOut(text: string, levels: readonly Level[]): string | undefined {
  const memo = new Map<Level, string | undefined>();
  const rewritten = (l: Level): string | undefined => {
    if (memo.has(l)) return memo.get(l);
    let out = l.m.replacement;
    const children = levels.filter((c) => c.parent === l).sort((a, b) => b.m.text.length - a.m.text.length);
    for (const c of children) {
      if (out === undefined) break;
      const inner = rewritten(c);
      if (inner === undefined) {
        out = undefined;
        break;
      }
      const d = c.m.text.includes("\n") ? multiLineShift(out, c.m.text) : oneLineShift(text, l, c, out);
      out = d === undefined ? undefined : out.split(shiftLines(c.m.text, d)).join(shiftLines(inner, d));
    }
    memo.set(l, out);
    return out;
  };
  let current = text;
  for (const root of levels.filter((l) => l.depth === 0).sort((a, b) => b.m.start - a.m.start)) {
    const r = rewritten(root);
    if (r === undefined || !root.m.replaced) return undefined;
    current = current.slice(0, root.m.replaced[0]) + r + current.slice(root.m.replaced[1]);
  }
  return current;
}

/** The innermost string literal or substitution at each line start of a parsed text. */
export function stringLineStarts(root: SgNode, text: string, stringKinds: readonly string[]): Set<number> {
  const substitution = /substitution|interpolation/;
  const out = new Set<number>();
  lineStarts(text).forEach((offset, i) => {
    let node: SgNode | undefined = root;
    let inString = false;
    while (node) {
      const child: SgNode | undefined = node.children().find((c) => c.range().start.index < offset && offset < c.range().end.index);
      if (!child) break;
      if (stringKinds.includes(String(child.kind()))) inString = true;
      else if (substitution.test(String(child.kind()))) inString = false;
      node = child;
    }
    if (inString) out.add(i + 1);
  });
  return out;
}

export interface LineFacts {
  crlf: boolean;
  /** 1-based lines of tollgate's output starting inside a string literal. */
  stringLines: Set<number>;
  /** 1-based lines where tollgate skipped a match resting on a syntax error. */
  skippedLines: Set<number>;
}

/** Line differences between tollgate's output and a baseline, each put to the predicates; whether all are explained. */
export function compareLines(
  source: string,
  tg: string,
  base: string,
  facts: LineFacts,
  v: Verdict,
  head: () => string,
): { explained: boolean; lines: number } {
  const t = tg.split("\n");
  const b = base.split("\n");
  if (t.length !== b.length) return { explained: false, lines: Math.abs(t.length - b.length) };
  const original = source.split("\n");
  const diffs: Observed[] = [];
  t.forEach((line, i) => {
    if (line === b[i]) return;
    diffs.push({
      kind: "line",
      tollgate: line,
      cli: b[i]!,
      original: original.length === t.length ? original[i] : undefined,
      inStringLiteral: facts.stringLines.has(i + 1),
      crlf: facts.crlf,
      skippedMatchLine: facts.skippedLines.has(i + 1),
    });
  });
  const scratch = new Verdict();
  for (const d of diffs) scratch.judge(d, head);
  if (scratch.failures.length > 0) return { explained: false, lines: scratch.failures.length };
  for (const d of diffs) v.judge(d, head);
  return { explained: true, lines: diffs.length };
}
