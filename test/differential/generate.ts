/**
 * Patterns and rewrites made from real nodes: a node's text with sub-nodes replaced by `$A`,
 * `$B` (single nodes), `$_` (a single node, not captured) or `$$$A` (a run of sibling nodes), kept only when napi matches the
 * pattern on its own source node; rewrites swap or duplicate metavariables, lift one out of
 * the match, or wrap the match one level deeper (multi-line captures get re-indented).
 */
import type { SgNode, SgRoot } from "@ast-grep/napi";

/** A seeded PRNG (mulberry32): the same seed, the same cases. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

export function shuffle<T>(r: Rand, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export interface Source {
  /** File name in the language's temp directory. */
  file: string;
  text: string;
  root: SgRoot;
}

export interface Generated {
  pattern: string;
  /** The file and char range of the node the pattern was made from (it must match there). */
  file: string;
  start: number;
  end: number;
  multiLine: boolean;
  multi: boolean;
  /** Metavariables: name → kind of the node it replaced, or `list:` and the kinds of the nodes. */
  vars: Map<string, string>;
}

export interface RewriteCase extends Generated {
  out: string;
  how: "swap" | "dup" | "lift" | "wrap";
}

interface Hole {
  start: number;
  end: number;
  name: string;
}

/** Kinds of comment nodes, in every grammar. */
export const COMMENT = /comment/;
const namedCode = (c: SgNode) => c.isNamed() && !COMMENT.test(String(c.kind()));
/** A node's named children, comments left out. */
export const named = (n: SgNode) => n.children().filter(namedCode);

/** A node a pattern may be made from (`kids`: its children): a bounded size, at least one named child. */
function candidate(n: SgNode, kids: readonly SgNode[]): boolean {
  const text = n.text();
  if (text.length < 8 || text.length > 400 || text.split("\n").length > 14) return false;
  if (/\$[A-Z_$]/.test(text) || String(n.kind()) === "ERROR" || COMMENT.test(String(n.kind()))) return false;
  return kids.some(namedCode);
}

// A root's candidates depend on the tree alone, and the generators draw from the same roots many
// times: each tree is walked once (every step of the walk is a call into napi).
const candidatesOf = new WeakMap<SgRoot, readonly SgNode[]>();

/** The nodes of `root` a pattern may be made from, in document order. */
export function candidates(root: SgRoot): readonly SgNode[] {
  const known = candidatesOf.get(root);
  if (known) return known;
  const out: SgNode[] = [];
  const visit = (n: SgNode, depth: number) => {
    const kids = n.children();
    if (depth > 0 && n.isNamed() && candidate(n, kids)) out.push(n);
    if (depth < 60) for (const c of kids) visit(c, depth + 1);
  };
  visit(root.root(), 0);
  candidatesOf.set(root, out);
  return out;
}

/** The descendants (children and grandchildren) a single metavariable may replace. */
function singles(n: SgNode): SgNode[] {
  const kids = named(n);
  return [...kids, ...kids.flatMap((k) => named(k))].filter((k) => k.text().trim() !== "");
}

/** Runs of siblings (2+ named children of one node) a `$$$` metavariable may replace. */
function lists(n: SgNode): SgNode[][] {
  const out: SgNode[][] = [];
  for (const p of [n, ...named(n)]) {
    const kids = named(p);
    if (kids.length < 2) continue;
    out.push(kids);
  }
  return out;
}

function fill(text: string, base: number, holes: Hole[]): string {
  let out = "";
  let at = 0;
  for (const h of [...holes].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, h.start - base) + h.name;
    at = h.end - base;
  }
  return out + text.slice(at);
}

const overlaps = (a: Hole, holes: Hole[]) => holes.some((h) => a.start < h.end && h.start < a.end);

/** The pattern's fixed text (metavariables and whitespace removed) has something to match. */
function hasFixedText(pattern: string): boolean {
  return pattern.replace(/\$\$\$[A-Z]+|\$[A-Z_]+/g, "").replace(/\s+/g, "").length >= 3;
}

/** One pattern from node `n`, or undefined when the draw makes none. */
export function makePattern(r: Rand, src: Source, n: SgNode, wantMulti: boolean): Generated | undefined {
  const start = n.range().start.index;
  const end = n.range().end.index;
  const holes: Hole[] = [];
  const vars = new Map<string, string>();
  if (wantMulti) {
    const ls = lists(n);
    if (ls.length === 0) return undefined;
    const kids = pick(r, ls);
    const from = Math.floor(r() * kids.length);
    const to = from + Math.floor(r() * (kids.length - from));
    holes.push({ start: kids[from]!.range().start.index, end: kids[to]!.range().end.index, name: "$$$A" });
    vars.set("A", `list:${[...new Set(kids.slice(from, to + 1).map((k) => String(k.kind())))].join(",")}`);
  }
  const singlesOf = singles(n);
  const count = 1 + Math.floor(r() * 2);
  for (let i = 0; i < count && singlesOf.length > 0; i++) {
    // A second metavariable mostly replaces a node of the first one's kind, so rewrites can swap them.
    const first = holes.length > 0 ? [...vars.values()].find((k) => !k.startsWith("list:")) : undefined;
    const alike = first === undefined ? [] : singlesOf.filter((k) => String(k.kind()) === first);
    const k = pick(r, alike.length > 1 && r() < 0.7 ? alike : singlesOf);
    // One in six is the anonymous `$_`, which matches a node and captures nothing.
    const anonymous = r() < 1 / 6;
    const name = anonymous ? "_" : wantMulti ? ["B", "C"][i]! : ["A", "B"][i]!;
    const hole = { start: k.range().start.index, end: k.range().end.index, name: `$${name}` };
    if (hole.start === start && hole.end === end) continue;
    if (overlaps(hole, holes)) continue;
    holes.push(hole);
    if (!anonymous) vars.set(name, String(k.kind()));
  }
  if (vars.size === 0) return undefined;
  const pattern = fill(src.text.slice(start, end), start, holes).trim();
  if (!hasFixedText(pattern)) return undefined;
  let ok: boolean;
  try {
    ok = n.matches(pattern);
  } catch {
    ok = false;
  }
  if (!ok) return undefined;
  return { pattern, file: src.file, start, end, multiLine: pattern.includes("\n"), multi: wantMulti, vars };
}

const WRAP: Record<string, (body: string, statement: boolean) => string> = {
  ts: (b, s) => (s ? `{\n${b}\n}` : `wrap(\n${b}\n)`),
  tsx: (b, s) => (s ? `{\n${b}\n}` : `wrap(\n${b}\n)`),
  js: (b, s) => (s ? `{\n${b}\n}` : `wrap(\n${b}\n)`),
  json: (b) => `[\n${b}\n]`,
  css: (b) => `@media print {\n${b}\n}`,
  html: (b) => `<div>\n${b}\n</div>`,
  python: (b) => `if True:\n${b.replace(/^ {2}/gm, "    ")}`,
  go: (b) => `{\n${b}\n}`,
  rust: (b) => `{\n${b}\n}`,
};

/** A rewrite of a generated pattern, or undefined when the draw makes none. */
/**
 * The `$$$` lists that capture at least one node at every match of the pattern in its source
 * (`root`): lifting one that can be empty would delete code and leave text that no longer parses.
 */
export function neverEmpty(g: Generated, root: SgRoot): Set<string> {
  const lists = [...g.vars].filter(([, k]) => k.startsWith("list:")).map(([n]) => n);
  const matches = root.root().findAll({ rule: { pattern: g.pattern } });
  return new Set(lists.filter((n) => matches.every((m) => m.getMultipleMatches(n).length > 0)));
}

export function makeRewrite(r: Rand, lang: string, g: Generated, kind: string, nonEmpty: ReadonlySet<string>): RewriteCase | undefined {
  const names = [...g.vars.keys()];
  const isList = (n: string) => g.vars.get(n)!.startsWith("list:");
  const singleNames = names.filter((n) => !isList(n));
  const ref = (n: string) => (isList(n) ? `$$$${n}` : `$${n}`);
  // Lifting a list of nodes of different kinds (a block and its `except` clauses) out of
  // their parent, or a list that can be empty, would make code that no longer parses: lifted
  // are single nodes and uniform lists that are never empty.
  const liftable = names.filter((n) => !isList(n) || (!g.vars.get(n)!.includes(",") && nonEmpty.has(n)));
  const sameKind = singleNames.flatMap((a) => singleNames.filter((b) => a < b && g.vars.get(a) === g.vars.get(b)).map((b) => [a, b] as const));
  const hows = [...(sameKind.length > 0 ? (["swap", "dup"] as const) : []), ...(liftable.length > 0 ? (["lift"] as const) : []), "wrap"] as const;
  // Swaps and duplicates are drawn first when the pattern has two metavariables of one kind.
  const how = sameKind.length > 0 && r() < 0.6 ? pick(r, ["swap", "dup"] as const) : pick(r, hows);
  let out: string;
  if (how === "swap" || how === "dup") {
    const [a, b] = pick(r, sameKind);
    out = g.pattern.replace(/\$(\$\$)?[A-Z]+/g, (m) => (m === `$${a}` ? (how === "swap" ? `$${b}` : m) : m === `$${b}` ? `$${a}` : m));
  } else if (how === "lift") {
    out = ref(pick(r, liftable));
  } else {
    // A template naming `$_` is refused (it captures nothing): no wrap of such a pattern.
    if (g.pattern.includes("$_")) return undefined;
    const statement = /statement|declaration|definition|item|rule_set|element/.test(kind);
    out = WRAP[lang]!(g.pattern.replace(/^/gm, "  "), statement);
  }
  if (out === g.pattern) return undefined;
  return { ...g, out, how };
}
