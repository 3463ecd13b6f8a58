/**
 * ast-grep rules made from real nodes, for the generative rule differential: each rule is drawn
 * from one node of a cleanly parsed file and its surroundings (kind, children, ancestors,
 * siblings, position, leading text, a pattern made from it), so that it matches that node, and
 * combines the rule features ast_scan evaluates: relational rules (`has`, `inside`, `follows`,
 * `precedes`, with and without `stopBy: end` and `field`), composites (`all`, `any`, `not`),
 * `regex`, `nthChild`, `matches` with local utils, and patterns with constraints.
 */
import type { SgNode } from "@ast-grep/napi";
import { COMMENT, makePattern, named, pick, type Rand, type Source } from "./generate.js";

export interface GeneratedRule {
  id: string;
  /** The rule document's body: `rule` and, where drawn, `utils` and `constraints`. */
  body: Record<string, unknown>;
  /** The features the rule uses (for the summary line). */
  features: string[];
  file: string;
}

const kindOf = (n: SgNode) => String(n.kind());
const FIELDS = ["name", "body", "value", "left", "right", "function", "arguments", "object", "property", "condition", "key", "type", "parameters"];

/** Named descendants of `n` up to `depth` levels down. */
function descendants(n: SgNode, depth: number): SgNode[] {
  if (depth === 0) return [];
  return named(n).flatMap((c) => [c, ...descendants(c, depth - 1)]);
}

/** The field of `parent` that holds `child`, when it is one of the common field names. */
function fieldOf(parent: SgNode, child: SgNode): string | undefined {
  const at = child.range().start.index;
  const end = child.range().end.index;
  return FIELDS.find((f) => {
    const got = parent.field(f as never) as SgNode | null;
    return got !== null && got.range().start.index === at && got.range().end.index === end && kindOf(got) === kindOf(child);
  });
}

/** The leading word characters of the node's text as an anchored regex (undefined when it starts otherwise). */
function leadingRegex(n: SgNode): string | undefined {
  const m = /^[A-Za-z0-9_]{1,4}/.exec(n.text());
  return m ? `^${m[0]}` : undefined;
}

type Draw = (r: Rand, n: SgNode, src: Source) => { rule: Record<string, unknown>; features: string[]; extra?: Record<string, unknown> } | undefined;

const hasChild: Draw = (r, n) => {
  const deep = r() < 0.5;
  const pool = deep ? descendants(n, 3) : named(n);
  if (pool.length === 0) return undefined;
  const c = pick(r, pool);
  const field = !deep && r() < 0.5 ? fieldOf(n, c) : undefined;
  return {
    rule: { kind: kindOf(n), has: { kind: kindOf(c), ...(deep ? { stopBy: "end" } : {}), ...(field ? { field } : {}) } },
    features: ["has", ...(deep ? ["stopBy"] : []), ...(field ? ["field"] : [])],
  };
};

const insideParent: Draw = (r, n) => {
  const up = n.ancestors().filter((a) => a.isNamed());
  if (up.length === 0) return undefined;
  const deep = r() < 0.5;
  const a = deep ? pick(r, up.slice(0, 6)) : up[0]!;
  const field = !deep && r() < 0.5 ? fieldOf(a, n) : undefined;
  return {
    rule: { kind: kindOf(n), inside: { kind: kindOf(a), ...(deep ? { stopBy: "end" } : {}), ...(field ? { field } : {}) } },
    features: ["inside", ...(deep ? ["stopBy"] : []), ...(field ? ["field"] : [])],
  };
};

const sibling: Draw = (r, n) => {
  const parent = n.parent();
  if (!parent) return undefined;
  const kids = named(parent);
  const i = kids.findIndex((k) => k.range().start.index === n.range().start.index && kindOf(k) === kindOf(n));
  if (i < 0) return undefined;
  const before = r() < 0.5;
  const pool = before ? kids.slice(0, i) : kids.slice(i + 1);
  if (pool.length === 0) return undefined;
  const deep = r() < 0.5;
  const s = deep ? pick(r, pool) : before ? pool[pool.length - 1]! : pool[0]!;
  const rel = before ? "follows" : "precedes";
  return { rule: { kind: kindOf(n), [rel]: { kind: kindOf(s), ...(deep ? { stopBy: "end" } : {}) } }, features: [rel, ...(deep ? ["stopBy"] : [])] };
};

const nth: Draw = (r, n) => {
  const parent = n.parent();
  if (!parent) return undefined;
  const kids = parent.children().filter((c) => c.isNamed());
  const i = kids.findIndex((k) => k.range().start.index === n.range().start.index && kindOf(k) === kindOf(n));
  if (i < 0) return undefined;
  const fromEnd = r() < 0.3;
  return {
    rule: { kind: kindOf(n), nthChild: fromEnd ? { position: kids.length - i, reverse: true } : i + 1 },
    features: ["nthChild"],
  };
};

const notHas: Draw = (r, n, src) => {
  const others = descendants(src.root.root(), 4).map(kindOf);
  if (others.length === 0) return undefined;
  const k = pick(r, others);
  return { rule: { kind: kindOf(n), not: { has: { kind: k, stopBy: "end" } } }, features: ["not", "has", "stopBy"] };
};

const anyOf: Draw = (r, n, src) => {
  const others = descendants(src.root.root(), 3);
  if (others.length === 0) return undefined;
  const o = pick(r, others);
  const re = leadingRegex(o);
  return {
    rule: { any: [{ kind: kindOf(n) }, { kind: kindOf(o), ...(re && r() < 0.5 ? { regex: re } : {}) }] },
    features: ["any", ...(re ? ["regex"] : [])],
  };
};

const regexAll: Draw = (r, n) => {
  const re = leadingRegex(n);
  if (!re) return undefined;
  const kids = descendants(n, 2);
  const has = kids.length > 0 && r() < 0.6 ? [{ has: { kind: kindOf(pick(r, kids)), stopBy: "end" } }] : [];
  return { rule: { all: [{ kind: kindOf(n) }, { regex: re }, ...has] }, features: ["all", "regex", ...(has.length ? ["has"] : [])] };
};

const utilMatches: Draw = (r, n) => {
  const kids = named(n);
  if (kids.length === 0) return undefined;
  const c = pick(r, kids);
  return {
    rule: { kind: kindOf(n), has: { matches: "child-kind" } },
    extra: { utils: { "child-kind": { kind: kindOf(c) } } },
    features: ["matches", "utils", "has"],
  };
};

const patternRule: Draw = (r, n, src) => {
  const g = makePattern(r, src, n, r() < 0.5);
  if (!g) return undefined;
  const up = n.ancestors().filter((a) => a.isNamed());
  const roll = r();
  if (roll < 0.3 && up.length > 0) {
    return { rule: { pattern: g.pattern, inside: { kind: kindOf(pick(r, up.slice(0, 6))), stopBy: "end" } }, features: ["pattern", "inside", "stopBy"] };
  }
  const single = [...g.vars.entries()].filter(([name, kind]) => !kind.startsWith("list:") && name !== "_");
  if (roll < 0.7 && single.length > 0) {
    const [name, kind] = pick(r, single);
    return { rule: { pattern: g.pattern }, extra: { constraints: { [name]: { kind } } }, features: ["pattern", "constraints"] };
  }
  return { rule: { pattern: g.pattern }, features: ["pattern"] };
};

// Plain patterns run through the ast engine (not napi's rule matcher): drawn as often as the rest together.
const DRAWS: Draw[] = [hasChild, insideParent, sibling, nth, notHas, anyOf, regexAll, utilMatches, ...Array<Draw>(8).fill(patternRule)];

/** A node rules are drawn from: named, not a comment or an error, not the whole file, of bounded size. */
function drawable(n: SgNode): boolean {
  const k = kindOf(n);
  return n.isNamed() && k !== "ERROR" && !COMMENT.test(k) && n.parent() !== null && n.text().length <= 400 && !/\$[A-Z_$]/.test(n.text());
}

/** Up to `count` rules (ids `r<index>`), drawn from random nodes of the sources. */
export function makeRules(r: Rand, sources: readonly Source[], count: number): GeneratedRule[] {
  const pools = sources.map((s) => ({ s, nodes: descendants(s.root.root(), 40).filter(drawable) })).filter((p) => p.nodes.length > 0);
  const out: GeneratedRule[] = [];
  const seen = new Set<string>();
  for (let attempt = 0; out.length < count && attempt < count * 20 && pools.length > 0; attempt++) {
    const { s, nodes } = pick(r, pools);
    const n = pick(r, nodes);
    const drawn = pick(r, DRAWS)(r, n, s);
    if (!drawn) continue;
    const body = { rule: drawn.rule, ...(drawn.extra ?? {}) };
    const key = JSON.stringify(body);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id: `r${out.length}`, body, features: drawn.features, file: s.file });
  }
  return out;
}
