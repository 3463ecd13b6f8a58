/**
 * Turns raw matches (UTF-16 offsets into the file text, with metavariable captures) into a new
 * file text. Pure: no napi here, so the same code runs at preview and at apply (rebase).
 *
 * - `$A` / `$$$ARGS` in the template are replaced by the source text of the capture (for a
 *   multi capture, from its first node's start to its last node's end, so separators survive;
 *   zero nodes → empty).
 * - A match lying wholly inside a capture of another match (used by its template) is rewritten
 *   inside that capture and counted. Any other overlap is reported with both ranges.
 * - Indentation follows `ast-grep -U` byte for byte (its replacer/indent.rs): a
 *   multi-line capture is shifted from the indentation of its first line to that of the
 *   template line it is written on, then the whole replacement is indented like the line the
 *   match starts on. Like the CLI, indentation counts spaces only (a tab ends it: a tab-indented
 *   line has indentation 0) and a line starting past 512 bytes has none; removing takes the
 *   spaces off only where a line has them all. Three documented differences: nested matches
 *   (above); lines inside a multi-line string or template literal of a capture are never
 *   re-indented (the CLI changes the literal's value), while a line starting in a template's
 *   `${ … }` is code and is; a blank line gets no indentation. And
 *   one the README lists: a template's line breaks are written in the file's line ending
 *   (CRLF files stay CRLF; the CLI inserts the template's LF).
 */

import { lastAtOrBefore, lineStarts } from "../../workspace/text.js";
import { indentAt, shiftLines } from "./indent.js";

export interface RawMatch {
  /** Index of the op (pattern) that matched. */
  op: number;
  start: number;
  end: number;
  /** name → [start, end) of the capture, or null when it captured nothing. */
  captures: Record<string, [number, number] | null>;
  /** Set when the match contains a syntax-error node outside its captures. */
  bad?: boolean;
  /** [start, end) of the text pieces of multi-line string/template literals in its captures (never re-indented). */
  literals?: Array<[number, number]>;
}

interface EditPair {
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

type PlanResult = { ok: true; after: string; matches: PlannedMatch[] } | { ok: false; overlaps: Overlap[] };

interface Node {
  m: RawMatch;
  depth: number;
  /** children per capture name */
  children: Map<string, Node[]>;
}

interface TemplatePart {
  literal?: string;
  ref?: { name: string; multi: boolean };
}

/** Splits a template into literals and metavariable references. */
function parseTemplate(out: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const re = /\$\$\$([A-Z_][A-Z0-9_]*)|\$\$?([A-Z_][A-Z0-9_]*)/g;
  let last = 0;
  for (const m of out.matchAll(re)) {
    if (m.index > last) parts.push({ literal: out.slice(last, m.index) });
    parts.push({ ref: { name: (m[1] ?? m[2])!, multi: m[1] !== undefined } });
    last = m.index + m[0].length;
  }
  if (last < out.length) parts.push({ literal: out.slice(last) });
  return parts;
}

/** parseTemplate with each part's offset in the template. */
function parseTemplateAt(out: string): Array<TemplatePart & { at: number }> {
  let at = 0;
  return parseTemplate(out).map((p) => {
    const here = at;
    at +=
      p.literal !== undefined
        ? p.literal.length
        : out.startsWith("$$$", here)
          ? 3 + p.ref!.name.length
          : out.startsWith("$$", here)
            ? 2 + p.ref!.name.length
            : 1 + p.ref!.name.length;
    return { ...p, at: here };
  });
}

/** Names a template refers to. */
export function templateNames(out: string): string[] {
  return [...new Set(parseTemplate(out).flatMap((p) => (p.ref ? [p.ref.name] : [])))];
}

/** The end-of-line sequence of a text: CRLF when it uses CRLF, else LF. */
function eolOf(text: string): "\r\n" | "\n" {
  const i = text.indexOf("\n");
  return i > 0 && text[i - 1] === "\r" ? "\r\n" : "\n";
}

/** A character in neither the text nor the templates, to mark protected line breaks. */
function markerFor(text: string, templates: readonly string[]): string {
  for (let c = 0xe000; c <= 0xf8ff; c++) {
    const ch = String.fromCharCode(c);
    if (!text.includes(ch) && !templates.some((t) => t.includes(ch))) return ch;
  }
  return "\u0000";
}

/** A step's templates parsed once: their parts, the names each uses, each part's indentation. */
export interface Templates {
  texts: readonly string[];
  parsed: readonly TemplatePart[][];
  used: readonly Set<string>[];
  /** A metavariable's indentation is that of its template line (the CLI's create_template). */
  varIndents: readonly number[][];
}

export function prepareTemplates(texts: readonly string[]): Templates {
  const parsed = texts.map((t) => parseTemplate(t));
  return {
    texts,
    parsed,
    used: parsed.map((parts) => new Set(parts.flatMap((p) => (p.ref ? [p.ref.name] : [])))),
    varIndents: texts.map((t) => parseTemplateAt(t).map((p) => (p.ref ? indentAt(t, p.at) : 0))),
  };
}

export function planRewrite(text: string, raw: readonly RawMatch[], templates: readonly string[] | Templates): PlanResult {
  const t = "texts" in templates ? templates : prepareTemplates(templates);
  const { roots, overlaps } = nestMatches(raw, t.used);
  if (overlaps.length > 0) return { ok: false, overlaps };
  const planned: PlannedMatch[] = [];
  const renderer = createRenderer(text, raw, t, planned);
  const after = renderer.unmark(renderer.renderRange(0, text.length, roots));
  planned.sort((x, y) => x.start - y.start || y.end - x.end || x.op - y.op);
  return { ok: true, after, matches: planned };
}

/**
 * The matches as a tree: an inner match nests under the outer one whose capture (one the outer's
 * template uses) holds it. A match that overlaps another any other way is an overlap.
 */
function nestMatches(raw: readonly RawMatch[], used: readonly Set<string>[]): { roots: Node[]; overlaps: Overlap[] } {
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
    const slot = slotOf(parent.m, m, used[parent.m.op]);
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
  return { roots, overlaps };
}

/** The capture of `outer`, among those its template uses, that holds `inner`. */
function slotOf(outer: RawMatch, inner: RawMatch, used: ReadonlySet<string> | undefined): string | undefined {
  for (const name of used ?? []) {
    const cap = outer.captures[name];
    if (cap && cap[0] <= inner.start && inner.end <= cap[1]) return name;
  }
  return undefined;
}

/**
 * Slices of the text with the line breaks inside multi-line string literals of captures emitted as
 * "\n" + marker, so no re-indenting touches the line after them; `unmark` removes the marker.
 */
function literalSlicer(text: string, raw: readonly RawMatch[], templates: readonly string[]) {
  const literals = raw.flatMap((m) => m.literals ?? []).sort((x, y) => x[0] - y[0]);
  const mark = literals.length > 0 ? markerFor(text, templates) : "";
  const unmark = (s: string) => (mark === "" ? s : s.split(mark).join(""));
  const slice = (start: number, end: number): string => {
    const t = text.slice(start, end);
    if (mark === "" || !t.includes("\n")) return t;
    let out = "";
    let last = 0;
    for (let i = t.indexOf("\n"); i !== -1; i = t.indexOf("\n", i + 1)) {
      const at = start + i;
      // The line after this break is literal text when it starts in a literal's text piece.
      if (literals.some(([ls, le]) => ls <= at && at + 1 < le)) {
        out += `${t.slice(last, i + 1)}${mark}`;
        last = i + 1;
      }
    }
    return out + t.slice(last);
  };
  return { mark, unmark, slice };
}

/** Renders a tree of matches into the text, recording each match's replacement in `planned`. */
function createRenderer(text: string, raw: readonly RawMatch[], templates: Templates, planned: PlannedMatch[]) {
  const eol = eolOf(text);
  const { mark, unmark, slice } = literalSlicer(text, raw, templates.texts);
  const { parsed, varIndents } = templates;

  const renderRange = (start: number, end: number, children: readonly Node[]): string => {
    let out = "";
    let pos = start;
    for (const child of children) {
      out += slice(pos, child.m.start) + render(child);
      pos = child.m.end;
    }
    return out + slice(pos, end);
  };

  const render = (node: Node): string => {
    const { m } = node;
    const parts = parsed[m.op] ?? [];
    const indents = varIndents[m.op] ?? [];
    let out = "";
    parts.forEach((part, k) => {
      if (part.literal !== undefined) {
        out += eol === "\n" ? part.literal.replace(/\r\n/g, "\n") : part.literal.replace(/\r?\n/g, "\r\n");
        return;
      }
      const ref = part.ref!;
      const cap = m.captures[ref.name];
      if (!cap) return; // captured nothing ($$$ with zero nodes)
      const value = renderRange(cap[0], cap[1], node.children.get(ref.name) ?? []);
      out += shiftLines(value, indentAt(text, cap[0]), indents[k]!, mark || undefined);
    });
    out = shiftLines(out, 0, indentAt(text, m.start), mark || undefined);
    planned.push({ op: m.op, start: m.start, end: m.end, depth: node.depth, matched: text.slice(m.start, m.end), replacement: unmark(out) });
    return out;
  };
  return { renderRange, unmark };
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
  #astral: boolean | undefined;
  constructor(readonly text: string) {}
  /** 1-based line and column; a column counts characters (code points), as the ast-grep CLI's do. */
  pos(offset: number): { line: number; col: number } {
    this.#starts ??= lineStarts(this.text);
    const line = lastAtOrBefore(this.#starts, offset);
    const start = this.#starts[line]!;
    let col = offset - start + 1;
    // A character outside the BMP is two UTF-16 units and one column.
    this.#astral ??= /[\uD800-\uDBFF]/.test(this.text);
    if (this.#astral) for (let i = start; i < offset; i++) if ((this.text.charCodeAt(i) & 0xfc00) === 0xdc00) col--;
    return { line: line + 1, col };
  }
}
