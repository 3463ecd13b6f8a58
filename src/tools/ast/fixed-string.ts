/**
 * The ast-grep CLI's file check for `run --pattern`: a file is searched only when it contains the
 * pattern's "fixed string", the first longest leaf text of the pattern's tree (metavariables count
 * as empty). A match can lack it: after a `$$$` ellipsis ast-grep skips the pattern's unnamed
 * tokens, so `($$$A === $C)` matches `(typeof a !== "f")`, which the CLI reports only in files
 * holding `===` somewhere. ast_grep and ast_edit follow `run` (also with a selector); `scan` (and
 * ast_scan) has no such check. The pattern's root also tells whether `scan` takes a pattern rule
 * at all: one whose root is an ERROR node has no node kinds to match.
 */
import { expandoChar, type Napi } from "./langs.js";

type PatNode = ReturnType<ReturnType<ReturnType<Napi["parse"]>["root"]>["children"]>[number];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A metavariable's text in a pattern processed with `expando` (ast-grep's extract_meta_var). */
function metaVarTest(expando: string): RegExp {
  const e = escapeRe(expando);
  return new RegExp(`^(?:(?:${e}){3}[A-Z0-9_]*|(?:${e}){1,2}[A-Z_][A-Z0-9_]*)$`, "u");
}

/** The pattern as ast-grep parses it: `$` runs before a name, and `$$$` alone, become the expando character. */
export function preprocessPattern(pat: string, expando: string): string {
  if (expando === "$") return pat;
  return pat.replace(/\$+/g, (run, at: number) => {
    const next = pat[at + run.length];
    return (next !== undefined && /[A-Z_]/.test(next)) || run.length === 3 ? expando.repeat(run.length) : run;
  });
}

/** Whether a child is one tree-sitter invented (MISSING) or an empty node: the CLI leaves those out of the pattern. */
function isEmpty(n: PatNode): boolean {
  const r = n.range();
  return r.start.index === r.end.index;
}

/** The pattern's root as the CLI takes it: down from the parse's root while a node has one child (and perhaps an empty one after it). */
function patternRoot(root: PatNode): PatNode {
  let node = root;
  for (;;) {
    const kids = node.children();
    if (kids.length === 1 || (kids.length === 2 && isEmpty(kids[1]!))) node = kids[0]!;
    else return node;
  }
}

/** The longest leaf text below `node` in UTF-8 bytes, the first of equal ones; "" for a metavariable. */
function longestLeaf(node: PatNode, isMeta: RegExp): string {
  const text = node.text();
  if (isMeta.test(text)) return "";
  if (node.isLeaf()) return text;
  let best = "";
  for (const child of node.children()) {
    if (isEmpty(child)) continue;
    const s = longestLeaf(child, isMeta);
    if (Buffer.byteLength(s) > Buffer.byteLength(best)) best = s;
  }
  return best;
}

/**
 * The CLI's fixed string of a pattern in `lang`, as file text ("" when any file may hold a match).
 * With a selector (`sel`), the pattern is contextual: its tree is the first node of that kind in
 * the parse of the context, as the CLI's Pattern::contextual takes it.
 */
export function fixedString(napi: Napi, lang: string, pat: string, sel?: string): string {
  const expando = expandoChar(lang);
  let node: PatNode | null;
  try {
    const root = napi.parse(lang, preprocessPattern(pat, expando)).root();
    node = sel === undefined ? patternRoot(root) : root.find({ rule: { kind: sel } });
  } catch {
    return "";
  }
  return node ? longestLeaf(node, metaVarTest(expando)) : "";
}

/** Whether the CLI's root of a plain pattern in `lang` is an ERROR node (false when it does not parse at all: napi reports that). */
export function patternRootIsError(napi: Napi, lang: string, pat: string): boolean {
  try {
    return patternRoot(napi.parse(lang, preprocessPattern(pat, expandoChar(lang))).root()).kind() === "ERROR";
  } catch {
    return false;
  }
}
