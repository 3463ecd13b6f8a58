/**
 * Turns raw matches (UTF-16 offsets into the file text, with metavariable captures) into a new
 * file text. Pure: no napi here, so the same code runs at preview and at apply (rebase).
 *
 * - `$A` / `$$$ARGS` in the template are replaced by the source text of the capture (for a
 *   multi capture, from its first node's start to its last node's end, so separators survive;
 *   zero nodes → empty).
 * - A match lying wholly inside a capture of another match (used by its template) is rewritten
 *   inside that capture and counted. Any other overlap is reported with both ranges.
 * - Multi-line templates are indented like the line the match starts on; multi-line captures
 *   moved to another indentation are re-indented.
 */

import { lastAtOrBefore, lineStarts } from "../../workspace/text.js";

export interface RawMatch {
  /** Index of the op (pattern) that matched. */
  op: number;
  start: number;
  end: number;
  /** name → [start, end) of the capture, or null when it captured nothing. */
  captures: Record<string, [number, number] | null>;
  /** Set when the match contains a syntax-error node outside its captures. */
  bad?: boolean;
  /** [start, end) of multi-line string/template literals inside its captures (never re-indented). */
  literals?: Array<[number, number]>;
}

export interface EditPair {
  /** Source text of the match. */
  matched: string;
  /** Its replacement (nested rewrites included). */
  replacement: string;
}

export interface PlannedMatch extends EditPair {
  op: number;
  start: number;
  end: number;
  /** 0 for a top-level match, > 0 for a match nested in another's capture. */
  depth: number;
}

export interface Overlap {
  a: { op: number; start: number; end: number };
  b: { op: number; start: number; end: number };
  reason: "partial" | "outside-capture" | "same-node";
}

export type PlanResult =
  | { ok: true; after: string; matches: PlannedMatch[] }
  | { ok: false; overlaps: Overlap[] };

interface Node {
  m: RawMatch;
  depth: number;
  /** children per capture name */
  children: Map<string, Node[]>;
}

export interface TemplatePart {
  literal?: string;
  ref?: { name: string; multi: boolean };
}

/** Splits a template into literals and metavariable references. */
export function parseTemplate(out: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const re = /\$\$\$([A-Z_][A-Z0-9_]*)|\$\$?([A-Z_][A-Z0-9_]*)/g;
  let last = 0;
  for (const m of out.matchAll(re)) {
    if (m.index! > last) parts.push({ literal: out.slice(last, m.index) });
    parts.push({ ref: { name: (m[1] ?? m[2])!, multi: m[1] !== undefined } });
    last = m.index! + m[0].length;
  }
  if (last < out.length) parts.push({ literal: out.slice(last) });
  return parts;
}

/** Names a template refers to. */
export function templateNames(out: string): string[] {
  return [...new Set(parseTemplate(out).flatMap((p) => (p.ref ? [p.ref.name] : [])))];
}

function lineStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    if (c === 10 || c === 13) break;
    i--;
  }
  return i;
}

/** Leading whitespace of the line containing `offset`. */
export function indentAt(text: string, offset: number): string {
  const s = lineStart(text, offset);
  let e = s;
  while (e < text.length && (text[e] === " " || text[e] === "\t")) e++;
  return text.slice(s, e);
}

function reindent(value: string, from: string, to: string): string {
  if (from === to || !value.includes("\n")) return value;
  const lines = value.split("\n");
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith(from)) lines[i] = to + line.slice(from.length);
  }
  return lines.join("\n");
}

/** The end-of-line sequence of a text: CRLF when it uses CRLF, else LF. */
export function eolOf(text: string): "\r\n" | "\n" {
  const i = text.indexOf("\n");
  return i > 0 && text[i - 1] === "\r" ? "\r\n" : "\n";
}

export function planRewrite(text: string, raw: readonly RawMatch[], templates: readonly string[]): PlanResult {
  const parsed = templates.map((t) => parseTemplate(t));
  const used = parsed.map((parts) => new Set(parts.flatMap((p) => (p.ref ? [p.ref.name] : []))));
  const sorted = [...raw].sort((x, y) => x.start - y.start || y.end - x.end || x.op - y.op);
  const roots: Node[] = [];
  const stack: Node[] = [];
  const overlaps: Overlap[] = [];
  const span = (m: RawMatch) => ({ op: m.op, start: m.start, end: m.end });
  for (const m of sorted) {
    while (stack.length > 0 && stack[stack.length - 1]!.m.end <= m.start) stack.pop();
    const parent = stack[stack.length - 1];
    if (!parent) {
      const node: Node = { m, depth: 0, children: new Map() };
      roots.push(node);
      stack.push(node);
      continue;
    }
    if (m.end > parent.m.end) {
      overlaps.push({ a: span(parent.m), b: span(m), reason: "partial" });
      continue;
    }
    if (m.start === parent.m.start && m.end === parent.m.end && m.op !== parent.m.op) {
      overlaps.push({ a: span(parent.m), b: span(m), reason: "same-node" });
      continue;
    }
    let slot: string | undefined;
    for (const name of used[parent.m.op] ?? []) {
      const cap = parent.m.captures[name];
      if (cap && cap[0] <= m.start && m.end <= cap[1]) {
        slot = name;
        break;
      }
    }
    if (slot === undefined) {
      overlaps.push({ a: span(parent.m), b: span(m), reason: "outside-capture" });
      continue;
    }
    const node: Node = { m, depth: parent.depth + 1, children: new Map() };
    const list = parent.children.get(slot) ?? [];
    list.push(node);
    parent.children.set(slot, list);
    stack.push(node);
  }
  if (overlaps.length > 0) return { ok: false, overlaps };

  const eol = eolOf(text);
  const planned: PlannedMatch[] = [];

  const renderRange = (start: number, end: number, children: readonly Node[]): string => {
    let out = "";
    let pos = start;
    for (const child of children) {
      out += text.slice(pos, child.m.start) + render(child);
      pos = child.m.end;
    }
    return out + text.slice(pos, end);
  };

  const render = (node: Node): string => {
    const { m } = node;
    const parts = parsed[m.op] ?? [];
    const matchIndent = indentAt(text, m.start);
    let out = "";
    // Leading whitespace of the output line being written (the match's line at first).
    let lineIndent = matchIndent;
    const appendLiteral = (lit: string) => {
      const lines = lit.split(/\r?\n/);
      out += lines[0];
      for (let i = 1; i < lines.length; i++) {
        const line = lines[i]!;
        out += eol + (line.length > 0 ? matchIndent : "") + line;
        const ws = /^[ \t]*/.exec(line)![0];
        lineIndent = matchIndent + ws;
      }
    };
    for (const part of parts) {
      if (part.literal !== undefined) {
        appendLiteral(part.literal);
        continue;
      }
      const ref = part.ref!;
      const cap = m.captures[ref.name];
      if (!cap) continue; // captured nothing ($$$ with zero nodes)
      const value = renderRange(cap[0], cap[1], node.children.get(ref.name) ?? []);
      out += reindent(value, indentAt(text, cap[0]), lineIndent);
      const nl = value.lastIndexOf("\n");
      if (nl !== -1) lineIndent = /^[ \t]*/.exec(out.slice(out.lastIndexOf("\n") + 1))![0];
    }
    planned.push({ op: m.op, start: m.start, end: m.end, depth: node.depth, matched: text.slice(m.start, m.end), replacement: out });
    return out;
  };

  const after = renderRange(0, text.length, roots);
  planned.sort((x, y) => x.start - y.start || y.end - x.end || x.op - y.op);
  return { ok: true, after, matches: planned };
}

/** Keeps the first `n` matches in document order (outer before inner): a kept inner always has its outer. */
export function truncateMatches(raw: readonly RawMatch[], n: number): RawMatch[] {
  return [...raw].sort((x, y) => x.start - y.start || y.end - x.end || x.op - y.op).slice(0, n);
}

/** Ordered (matched, replacement) pairs, the identity of an edit for stale checks. */
export function pairsOf(matches: readonly EditPair[]): string {
  return JSON.stringify(matches.map((m) => [m.matched, m.replacement]));
}

/** 1-based line/column (UTF-16 columns) of offsets in a text, computed lazily. */
export class LineIndex {
  #starts: number[] | undefined;
  constructor(readonly text: string) {}
  pos(offset: number): { line: number; col: number } {
    this.#starts ??= lineStarts(this.text);
    const line = lastAtOrBefore(this.#starts, offset);
    return { line: line + 1, col: offset - this.#starts[line]! + 1 };
  }
}
