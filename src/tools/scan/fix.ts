/**
 * From a matched node to what ast-grep would do with it: the message with metavariables, the
 * fix's replaced range (`expandStart`/`expandEnd`) and its text (template, transforms,
 * `rewrite` with rewriters and `joinBy`). napi evaluates `replace`/`substring`/`convert` with
 * ast-grep's own (Rust) regexes; `rewrite`, and what is computed from a rewrite's output, is
 * evaluated here, following crates/config/src/transform/rewrite.rs.
 */
import { localTransformNames, napiConfigOf } from "./rules.js";
import { deindentedValue, renderFix, renderMessage, templateVars, type TemplateEnv } from "./template.js";
import { transformSource, type Expansion, type Fix, type Rewriter, type RuleObject, type ScanRule, type Transformation } from "./types.js";
import type { SgNode } from "./matcher.js";

type Range2 = [number, number];

function rangeOf(node: SgNode): Range2 {
  const r = node.range();
  return [r.start.index, r.end.index];
}

/** The subset of a rule (or rewriter) needed to evaluate matches of it. */
interface Evaluable {
  rule: RuleObject;
  constraints?: Record<string, RuleObject> | undefined;
  utils?: Record<string, RuleObject> | undefined;
  transform?: Record<string, Transformation> | undefined;
  fix?: Fix | undefined;
}

/**
 * The metavariable environment of a match: its own captures and transforms, then the
 * enclosing rule's (a rewriter sees the variables of the rule that invoked it).
 */
class MatchEnv implements TemplateEnv {
  readonly #local = new Map<string, string | undefined>();
  #computing = new Set<string>();
  constructor(
    readonly text: string,
    readonly node: SgNode,
    readonly owner: Evaluable,
    readonly ctx: EvalContext,
    readonly parent?: MatchEnv,
  ) {}
  single(name: string): Range2 | undefined {
    const n = this.node.getMatch(name);
    if (n) return rangeOf(n);
    return this.parent?.single(name);
  }
  multi(name: string): Range2 | undefined {
    const nodes = this.node.getMultipleMatches(name);
    if (nodes.length > 0) return [rangeOf(nodes[0]!)[0], rangeOf(nodes[nodes.length - 1]!)[1]];
    return this.parent?.multi(name);
  }
  nodes(name: string, multi: boolean): SgNode[] {
    if (multi) {
      const nodes = this.node.getMultipleMatches(name);
      return nodes.length > 0 ? nodes : (this.parent?.nodes(name, multi) ?? []);
    }
    const n = this.node.getMatch(name);
    return n ? [n] : (this.parent?.nodes(name, multi) ?? []);
  }
  isTransform(name: string): boolean {
    return Boolean(this.owner.transform && Object.hasOwn(this.owner.transform, name)) || Boolean(this.parent?.isTransform(name));
  }
  transformed(name: string): string | undefined {
    const t = this.owner.transform?.[name];
    if (!t) return this.parent?.transformed(name);
    if (this.#local.has(name)) return this.#local.get(name);
    if (!localTransformNames(this.owner.transform!).has(name)) {
      const v = this.node.getTransformed(name);
      return v ?? undefined;
    }
    if (this.#computing.has(name)) return undefined; // a cycle: nothing, as ast-grep's ordering would reject
    this.#computing.add(name);
    const value = this.#kept(t, this.#computeLocal(t));
    this.#computing.delete(name);
    this.#local.set(name, value);
    return value;
  }
  /** insert_transformation: a value whose source is a captured node is kept de-indented from that node's line. */
  #kept(t: Transformation, value: string | undefined): string | undefined {
    if (value === undefined || !value.includes("\n")) return value;
    const source = transformSource(t);
    const multi = source.startsWith("$$$");
    const first = this.nodes(source.replace(/^\$+/, ""), multi)[0];
    return first ? deindentedValue(value, this.text, rangeOf(first)[0]) : value;
  }
  /** Text of a transform's source variable. */
  #sourceText(source: string): string | undefined {
    const multi = source.startsWith("$$$");
    const name = source.replace(/^\$+/, "");
    if (!multi && this.isTransform(name)) return this.transformed(name);
    const r = multi ? this.multi(name) : this.single(name);
    return r ? this.text.slice(r[0], r[1]) : undefined;
  }
  #computeLocal(t: Transformation): string | undefined {
    if ("rewrite" in t) return this.#rewrite(t.rewrite);
    if ("substring" in t) {
      const s = this.#sourceText(t.substring.source);
      if (s === undefined) return undefined;
      const chars = Array.from(s);
      const norm = (i: number | undefined, dflt: number) => (i === undefined ? dflt : i < 0 ? Math.max(0, chars.length + i) : Math.min(i, chars.length));
      const a = norm(t.substring.startChar, 0);
      const b = norm(t.substring.endChar, chars.length);
      return a < b ? chars.slice(a, b).join("") : "";
    }
    if ("convert" in t) {
      const s = this.#sourceText(t.convert.source);
      return s === undefined ? undefined : convertCase(s, t.convert.toCase, t.convert.separatedBy);
    }
    if ("replace" in t) {
      const s = this.#sourceText(t.replace.source);
      if (s === undefined) return undefined;
      // Only reached for a replace over a rewrite's output (napi cannot see that text): JavaScript's
      // RegExp with Rust's `(?P<name>` spelled `(?<name>` (README: differences).
      const re = new RegExp(t.replace.replace.replace(/\(\?P</g, "(?<"), "gu");
      return s.replace(re, t.replace.by.replace(/\$\{(\w+)\}/g, "$<$1>"));
    }
    return undefined;
  }
  #rewrite(r: { source: string; rewriters: string[]; joinBy?: string }): string | undefined {
    const multi = r.source.startsWith("$$$");
    const name = r.source.replace(/^\$+/, "");
    const nodes = this.nodes(name, multi);
    if (nodes.length === 0) return undefined;
    const start = rangeOf(nodes[0]!)[0];
    const end = rangeOf(nodes[nodes.length - 1]!)[1];
    const rewriters = r.rewriters.flatMap((id) => this.ctx.rewriters.filter((w) => w.id === id));
    const edits: Array<{ start: number; end: number; text: string }> = [];
    for (const node of nodes) edits.push(...this.#replaceOne(node, rewriters));
    if (r.joinBy !== undefined) {
      let out = "";
      let pos = -1;
      for (const [i, e] of edits.entries()) {
        if (i > 0 && pos > e.start) continue; // overlapping: skipped, as the CLI does
        if (i > 0) out += r.joinBy;
        out += e.text;
        pos = e.end;
      }
      return out;
    }
    let out = "";
    let pos = start;
    for (const e of edits) {
      if (pos > e.start) continue;
      out += this.text.slice(pos, e.start) + e.text;
      pos = e.end;
    }
    return out + this.text.slice(pos, end);
  }
  /**
   * replace_one: the node and its descendants in pre-order; at each, the first rewriter that
   * matches gives an edit (descendants of a rewritten node still yield edits, which the caller
   * skips as overlapping, like the CLI).
   */
  #replaceOne(node: SgNode, rewriters: readonly Rewriter[]): Array<{ start: number; end: number; text: string }> {
    type Hit = { start: number; end: number; depth: number; order: number; node: SgNode; w: Rewriter };
    const hits: Hit[] = [];
    rewriters.forEach((w, order) => {
      const found = node.findAll(
        napiConfigOf({
          rule: w.rule,
          utils: { ...this.ctx.utils, ...w.utils },
          ...(w.constraints ? { constraints: w.constraints } : {}),
          ...(w.transform ? { transform: w.transform } : {}),
        }) as never,
      );
      for (const n of found) {
        if (!this.#agrees(n, w)) continue;
        const [s, e] = rangeOf(n);
        hits.push({ start: s, end: e, depth: n.ancestors().length, order, node: n, w });
      }
    });
    hits.sort((a, b) => a.start - b.start || a.depth - b.depth || a.order - b.order);
    const out: Array<{ start: number; end: number; text: string }> = [];
    let last: Hit | undefined;
    for (const h of hits) {
      // the same node matched by a later rewriter: the first one wins
      if (last && last.start === h.start && last.end === h.end && last.depth === h.depth) continue;
      last = h;
      const env = new MatchEnv(this.text, h.node, h.w, this.ctx, this);
      out.push({ start: h.start, end: h.end, text: renderFix(h.w.fix.parts, env, h.start) });
    }
    return out;
  }
  /** A rewriter's capture named like one of the enclosing rule's must capture the same text. */
  #agrees(n: SgNode, w: Rewriter): boolean {
    for (const name of templateVars(w.fix?.template ?? "")) {
      const own = n.getMatch(name);
      const outer = this.single(name);
      if (own && outer && own.text() !== this.text.slice(outer[0], outer[1])) return false;
    }
    return true;
  }
}

interface EvalContext {
  rewriters: readonly Rewriter[];
  utils: Record<string, RuleObject> | undefined;
}

/** StopBy::find for expandStart (previous siblings) / expandEnd (next siblings). */
function expand(node: SgNode, e: Expansion, dir: "prev" | "next", utils: Record<string, RuleObject> | undefined): SgNode | undefined {
  const config = { rule: e.rule, ...(utils ? { utils } : {}) } as never;
  if (e.stopBy === "neighbor") {
    const n = dir === "prev" ? node.prev() : node.next();
    return n && n.matches(config) ? n : undefined;
  }
  const all = dir === "prev" ? node.prevAll() : node.nextAll();
  const stop = typeof e.stopBy === "object" ? ({ rule: e.stopBy.rule, ...(utils ? { utils } : {}) } as never) : undefined;
  for (const n of all) {
    if (n.matches(config)) return n;
    if (stop && n.matches(stop)) return undefined;
  }
  return undefined;
}

export interface Evaluated {
  start: number;
  end: number;
  message: string;
  fix?: { start: number; end: number; text: string };
}

/** Message and fix of one match of `rule` in `text`. */
export function evaluateMatch(rule: ScanRule, node: SgNode, text: string): Evaluated {
  const ctx: EvalContext = { rewriters: rule.rewriters ?? [], utils: rule.utils };
  const env = new MatchEnv(text, node, rule, ctx);
  const [start, end] = rangeOf(node);
  const out: Evaluated = { start, end, message: renderMessage(rule.message, env) };
  if (rule.fix) {
    let fs = start;
    let fe = end;
    if (rule.fix.expandStart) {
      const n = expand(node, rule.fix.expandStart, "prev", rule.utils);
      if (n) fs = rangeOf(n)[0];
    }
    if (rule.fix.expandEnd) {
      const n = expand(node, rule.fix.expandEnd, "next", rule.utils);
      if (n) fe = rangeOf(n)[1];
    }
    out.fix = { start: fs, end: fe, text: renderFix(rule.fix.parts, env, start) };
  }
  return out;
}

/** StringCase::apply, for a convert over a rewrite's output. */
function convertCase(s: string, toCase: string, separatedBy?: string[]): string {
  if (toCase === "lowerCase") return s.toLowerCase();
  if (toCase === "upperCase") return s.toUpperCase();
  const cap = (w: string) => (w ? w[0]!.toUpperCase() + w.slice(1) : w);
  if (toCase === "capitalize") return cap(s);
  const seps = separatedBy ?? ["caseChange", "dash", "dot", "slash", "space", "underscore"];
  const chars: Record<string, string> = { dash: "-", dot: ".", slash: "/", space: " ", underscore: "_" };
  const delim = new Set(seps.flatMap((x) => (chars[x] ? [chars[x]] : [])));
  const words: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (delim.has(c)) {
      if (cur) words.push(cur);
      cur = "";
      continue;
    }
    if (seps.includes("caseChange") && cur && /[A-Z]/.test(c) && /[a-z0-9]/.test(cur[cur.length - 1]!)) {
      words.push(cur);
      cur = "";
    }
    cur += c;
  }
  if (cur) words.push(cur);
  const lower = words.map((w) => w.toLowerCase());
  if (toCase === "snakeCase") return lower.join("_");
  if (toCase === "kebabCase") return lower.join("-");
  if (toCase === "pascalCase") return lower.map(cap).join("");
  if (toCase === "camelCase") return lower.map((w, i) => (i === 0 ? w : cap(w))).join("");
  return s;
}
