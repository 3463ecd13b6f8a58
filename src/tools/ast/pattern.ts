/**
 * Pattern text helpers: metavariables of a pattern, references in a rewrite template, and the
 * text prefilter (a file that lacks a pattern's fixed identifiers cannot match it, so it need
 * not be parsed).
 */
import type { LangInfo } from "./langs.js";

interface MetaVarRef {
  name: string;
  multi: boolean;
  start: number;
  end: number;
}

const META_RE = /\$\$\$([A-Z_][A-Z0-9_]*)|\$\$\$|\$\$?([A-Z_][A-Z0-9_]*)/g;

/** Metavariable references in a pattern or template, in order. Anonymous `$$$` is skipped. */
function metaVarRefs(text: string): MetaVarRef[] {
  const out: MetaVarRef[] = [];
  for (const m of text.matchAll(META_RE)) {
    const multiName = m[1];
    const single = m[2];
    if (multiName !== undefined) out.push({ name: multiName, multi: true, start: m.index, end: m.index + m[0].length });
    else if (single !== undefined) out.push({ name: single, multi: false, start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** Capturing metavariables a pattern declares: name → multi. `$_` and `$_X` do not capture. */
export function patternCaptures(pat: string): Map<string, boolean> {
  const map = new Map<string, boolean>();
  for (const ref of metaVarRefs(pat)) {
    if (ref.name.startsWith("_")) continue;
    map.set(ref.name, (map.get(ref.name) ?? false) || ref.multi);
  }
  return map;
}

/** What a file must contain (as text) to possibly match one pattern. */
export interface PatternRequirement {
  /** Plain substrings. */
  words: string[];
  /** Regex sources (flags: none) for runs like `Effect.map` with trivia allowed in between. */
  runs: string[];
  /**
   * Text the whole file must contain, not asked of a part of it: the CLI's `run` check on the
   * pattern's fixed string (fixed-string.ts).
   */
  file?: string;
}

/** A prefilter: a file is a candidate when some pattern's requirements all hold; null = no filter. */
export type PrefilterSpec = PatternRequirement[] | null;

function gapSource(lang: LangInfo): string {
  // Bytes >= 0x80 stand for any non-ASCII character (the filter runs on a latin1 view of the
  // UTF-8 bytes), so Unicode whitespace is covered. `?` allows optional chaining (`a?.b`).
  const base = "[\\s\\x80-\\xff?]";
  if (lang.comments === "c") return `(?:${base}|\\/\\/[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/)*`;
  if (lang.comments === "hash") return `(?:${base}|#[^\\n]*|\\\\\\r?\\n)*`;
  return `${base}*`;
}

/** Tokens of a pattern outside strings and comments: words, `.`, required operators, and breaks. */
type Token = { kind: "word"; text: string; afterDigit: boolean } | { kind: "dot" } | { kind: "op"; text: string } | { kind: "break" };

/**
 * A scanned token: a Token, or what decides where ast-grep skips pattern tokens. After a `$$$`
 * ellipsis it skips the pattern's unnamed tokens (keywords, operators) up to the next named node,
 * so `$$$A === $C` matches `a instanceof B`; a metavariable or string is named, and a closing
 * bracket below the ellipsis's depth ends its list.
 */
type Scanned = Token | { kind: "ellipsis" } | { kind: "named" } | { kind: "open" } | { kind: "close" };

/**
 * Operators a JavaScript or TypeScript match must show as written. Each is one token that cannot
 * be spelled with trivia inside it, and ast-grep matches a pattern's operator token by kind, so
 * the target holds the same characters. `<=`/`>=` and shifts are left out: `<T>=` or `A<B<C>>`
 * spell type-argument closers, which a target may write with a space between.
 */
const REQUIRED_OPERATORS = new Set(["===", "!==", "==", "!=", "&&", "||", "??", "=>"]);
const OPERATOR_CHARS = /[=<>!&|?+\-*/%^~:]/;

/** The operator run starting at `i` (characters of OPERATOR_CHARS), as `[text, end]`. */
function operatorRun(pat: string, i: number): [string, number] {
  let j = i;
  while (j < pat.length && OPERATOR_CHARS.test(pat[j]!)) j++;
  return [pat.slice(i, j), j];
}

/**
 * The end of the characters after a CSS `#`: the CLI's matcher does not compare a hex colour's
 * digits (`$A: #129FEA;` matches `color: #fff;`), so none of them is a token, letters or digits first.
 */
function cssHashEnd(pat: string, i: number): number {
  let j = i + 1;
  while (j < pat.length && /[A-Za-z0-9_]/.test(pat[j]!)) j++;
  return j;
}

function scan(pat: string, lang: LangInfo): Scanned[] {
  const out: Scanned[] = [];
  let i = 0;
  const n = pat.length;
  while (i < n) {
    const ch = pat[i]!;
    if (ch === "$") {
      const m = /^\$\$?\$?[A-Z_][A-Z0-9_]*|^\$\$\$/.exec(pat.slice(i));
      out.push(m === null ? { kind: "break" } : { kind: m[0].startsWith("$$$") ? "ellipsis" : "named" });
      i += m ? m[0].length : 1;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") {
      let j = i + 1;
      while (j < n && pat[j] !== ch) j += pat[j] === "\\" ? 2 : 1;
      out.push({ kind: "named" });
      i = j + 1;
      continue;
    }
    if (lang.comments === "c" && ch === "/" && pat[i + 1] === "/") {
      const j = pat.indexOf("\n", i);
      i = j === -1 ? n : j;
      continue;
    }
    if (lang.comments === "c" && ch === "/" && pat[i + 1] === "*") {
      const j = pat.indexOf("*/", i + 2);
      i = j === -1 ? n : j + 2;
      continue;
    }
    if (lang.comments === "hash" && ch === "#") {
      const j = pat.indexOf("\n", i);
      i = j === -1 ? n : j;
      continue;
    }
    if (lang.id === "Css" && ch === "#") {
      out.push({ kind: "break" });
      i = cssHashEnd(pat, i);
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(pat[j]!)) j++;
      // An identifier glued to `$` or a non-ASCII character is only partly known: keep the
      // ASCII part as a word but never as part of a run.
      const glued = (i > 0 && /[$\u0080-\uffff]/.test(pat[i - 1]!)) || (j < n && /[$\u0080-\uffff]/.test(pat[j]!));
      if (glued) out.push({ kind: "break" });
      out.push({ kind: "word", text: pat.slice(i, j), afterDigit: i > 0 && /[0-9]/.test(pat[i - 1]!) });
      if (glued) out.push({ kind: "break" });
      i = j;
      continue;
    }
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === ".") {
      out.push({ kind: "dot" });
      i++;
      continue;
    }
    if ((lang.family === "js" || lang.family === "ts") && OPERATOR_CHARS.test(ch)) {
      // Only a whole run is taken: `>==` may be a type closer and `==`, so it requires nothing.
      const [run, end] = operatorRun(pat, i);
      out.push(REQUIRED_OPERATORS.has(run) ? { kind: "op", text: run } : { kind: "break" });
      i = Math.max(end, i + 1);
      continue;
    }
    out.push({ kind: "([{".includes(ch) ? "open" : ")]}".includes(ch) ? "close" : "break" });
    i++;
  }
  return out;
}

/** The tokens a match must show: words and operators an ellipsis may skip become breaks. */
function tokens(pat: string, lang: LangInfo): Token[] {
  const out: Token[] = [];
  let depth = 0;
  let skipBelow: number | null = null; // skipping after an ellipsis opened at this depth
  for (const t of scan(pat, lang)) {
    if (t.kind === "ellipsis") skipBelow = Math.min(skipBelow ?? depth, depth);
    else if (t.kind === "named") skipBelow = null;
    else if (t.kind === "open") depth++;
    else if (t.kind === "close" && --depth < (skipBelow ?? -1)) skipBelow = null;
    if (t.kind === "word" || t.kind === "op" || t.kind === "dot") out.push(skipBelow !== null && t.kind !== "dot" ? { kind: "break" } : t);
    else out.push({ kind: "break" });
  }
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** ASCII identifier characters: a whole identifier token is never glued to one of these. */
const IDENT_BEFORE = "(?<![A-Za-z0-9_$])";
const IDENT_AFTER = "(?![A-Za-z0-9_$])";

/**
 * Requirements of one pattern. Identifiers and keywords of a pattern must appear verbatim in
 * any match (ast-grep compares leaf text), and tokens joined by `.` appear in that order with
 * only whitespace or comments between them. A run's words are whole tokens in the source, so
 * `Effect.map` does not admit `Effect.mapError` (the one exception: a word that follows a digit
 * in the pattern, as `e5` in `1e5`, is the tail of a number and gets no left boundary).
 * Returns null when nothing is required.
 */
export function patternRequirement(pat: string, lang: LangInfo): PatternRequirement | null {
  const toks = tokens(pat, lang);
  const words = new Set<string>();
  const runs: string[] = [];
  const gap = gapSource(lang);
  let run: string[] = [];
  let runAfterDigit = false;
  let lastWasDot = false;
  const flush = () => {
    if (run.length >= 2 && lang.tokenRuns) runs.push((runAfterDigit ? "" : IDENT_BEFORE) + run.map(escapeRe).join(`${gap}\\.${gap}`) + IDENT_AFTER);
    run = [];
  };
  for (const t of toks) {
    if (t.kind === "word") {
      if (t.text.length >= 2) words.add(t.text);
      if (run.length > 0 && !lastWasDot) flush();
      if (run.length === 0) runAfterDigit = t.afterDigit;
      run.push(t.text);
      lastWasDot = false;
    } else if (t.kind === "dot") {
      if (lastWasDot || run.length === 0) flush();
      lastWasDot = run.length > 0;
    } else {
      if (t.kind === "op") words.add(t.text);
      flush();
      lastWasDot = false;
    }
  }
  flush();
  if (lang.tokenRuns) runs.push(...operandRuns(toks, gap));
  const plain = [...words];
  if (plain.length === 0 && runs.length === 0) return null;
  return { words: plain.sort((a, b) => b.length - a.length), runs };
}

/** A binary operator token: its operands start and end right at it (`=>` may take a parameter list). */
const isBinaryOp = (t: Token | undefined): t is Extract<Token, { kind: "op" }> => t?.kind === "op" && t.text !== "=>";

/**
 * Runs of a word that stands alone as an operand of a binary operator: `!== undefined` in
 * `$A !== undefined`. Such a word is between the pattern's edges or binary operators, so in any
 * match it is a whole leaf operand (a leaf matches only a leaf of the same text), which follows or
 * precedes its operator with only trivia between: binary expressions have no other children.
 * A word next to a dot, a bracket, a keyword or a metavariable may head a larger node whose
 * leading unnamed tokens ast-grep skips (`async` before `function`), so it gets no such run.
 */
function operandRuns(toks: readonly Token[], gap: string): string[] {
  const runs: string[] = [];
  for (const [i, t] of toks.entries()) {
    if (t.kind !== "word" || t.afterDigit) continue;
    const before = toks[i - 1];
    const after = toks[i + 1];
    if (!(i === 0 || isBinaryOp(before)) || !(i === toks.length - 1 || isBinaryOp(after))) continue;
    const word = escapeRe(t.text);
    if (isBinaryOp(before)) runs.push(`${escapeRe(before.text)}${gap}${word}${IDENT_AFTER}`);
    if (isBinaryOp(after)) runs.push(`${IDENT_BEFORE}${word}${gap}${escapeRe(after.text)}`);
  }
  return runs;
}

/** Prefilter for a set of patterns (null = every file is a candidate). */
export function buildPrefilter(pats: readonly string[], lang: LangInfo, contextual: boolean): PrefilterSpec {
  if (contextual) return null; // a contextual pattern's text is mostly context, not the match
  const reqs: PatternRequirement[] = [];
  for (const pat of pats) {
    const req = patternRequirement(pat, lang);
    if (req === null) return null;
    reqs.push(req);
  }
  return reqs;
}

/** Compiled form of a prefilter, for a latin1 view of file bytes. */
export function compilePrefilter(spec: PrefilterSpec): ((latin1: string) => boolean) | null {
  if (spec === null) return null;
  const compiled = spec.map((r) => ({
    words: r.file ? [...r.words, Buffer.from(r.file).toString("latin1")] : r.words,
    runs: r.runs.map((s) => new RegExp(s)),
  }));
  return (text) => compiled.some((r) => r.words.every((w) => text.includes(w)) && r.runs.every((re) => re.test(text)));
}

/** The latin1 view of a file's bytes that a byte prefilter made, if it made one. */
export interface Latin1View {
  text?: string;
}

/**
 * The same filter on raw UTF-8 bytes: the words are checked on the buffer itself (no string is
 * made for files lacking them), the runs on a latin1 view of the survivors only. The view it made
 * is left in `view` (for an ASCII file it is the file's text: the caller need not decode again).
 */
export function compileBytePrefilter(spec: PrefilterSpec): ((bytes: Buffer, view?: Latin1View) => boolean) | null {
  if (spec === null) return null;
  const compiled = spec.map((r) => ({
    words: [...r.words.map((w) => Buffer.from(w, "latin1")), ...(r.file ? [Buffer.from(r.file)] : [])],
    runs: r.runs.map((s) => new RegExp(s)),
  }));
  return (bytes, view = {}) =>
    // One latin1 view of the bytes for every op whose words are there (made only if one is).
    compiled.some((r) => {
      if (!r.words.every((w) => bytes.includes(w))) return false;
      if (r.runs.length === 0) return true;
      const latin1 = (view.text ??= bytes.toString("latin1"));
      return r.runs.every((re) => re.test(latin1));
    });
}

/**
 * The fixed tokens of a pattern, the text any match must show outside its metavariables: its
 * words (identifiers, keywords), the tails of its numbers (`em` of `0.5em`, `x1F` of `0x1F`:
 * whole at their end but glued to digits in front) and each punctuation character (`===` gives
 * `=`, so a text holding a token's part is taken to hold it). A number's digits are not required:
 * a grammar may compare only its unit (CSS's `float_value` is not a leaf, `0.5em` matches
 * `2.25em`). Comments are left out; a string literal gives its quote. Empty when the pattern is
 * metavariables only (then any text may hold a match).
 */
export function fixedTokens(pat: string, lang: LangInfo): { words: string[]; tails: string[]; chars: string[] } {
  const words = new Set<string>();
  const tails = new Set<string>();
  const chars = new Set<string>();
  let i = 0;
  const n = pat.length;
  while (i < n) {
    const ch = pat[i]!;
    if (ch === "$") {
      const m = /^\$\$?\$?[A-Z_][A-Z0-9_]*|^\$\$\$/.exec(pat.slice(i));
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    if (lang.comments === "c" && ch === "/" && (pat[i + 1] === "/" || pat[i + 1] === "*")) {
      const j = pat[i + 1] === "/" ? pat.indexOf("\n", i) : pat.indexOf("*/", i + 2);
      i = j === -1 ? n : pat[i + 1] === "/" ? j : j + 2;
      continue;
    }
    if (lang.comments === "hash" && ch === "#") {
      const j = pat.indexOf("\n", i);
      i = j === -1 ? n : j;
      continue;
    }
    if (lang.id === "Css" && ch === "#") {
      chars.add(ch);
      i = cssHashEnd(pat, i);
      continue;
    }
    if (/[A-Za-z0-9_]/.test(ch)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(pat[j]!)) j++;
      const word = pat.slice(i, j);
      const tail = word.replace(/^[0-9]+/, "");
      if (tail === word) words.add(word);
      else if (tail !== "") tails.add(tail);
      i = j;
      continue;
    }
    if (!/\s/.test(ch) && ch.charCodeAt(0) < 0x80) chars.add(ch);
    i++;
  }
  return { words: [...words], tails: [...tails], chars: [...chars] };
}
