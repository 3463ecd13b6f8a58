/**
 * Checks ast-grep rule YAML key by key on the YAML syntax tree, so every problem carries the
 * file:line:col of the offending key or value. Unknown keys are errors (a typo must not turn a
 * rule into one that silently matches nothing), except where ast-grep's own parser ignores them
 * (`ignoredKeys`: objects it reads without deny_unknown_fields, such as a relational rule, whose
 * Relation flattens the rule) and published rules rely on that (ast-grep's catalog: `parent:` in
 * an `inside`): there they are warnings, and the rule means what it means to the CLI. Known keys
 * tollgate does not support are errors that name them. What a key's value means (a pattern that
 * does not parse, a util that does not exist) is napi's to judge afterwards (rules.ts).
 */
import { isMap, isScalar, isSeq, parse as parseYamlValue, visit, type Document, type LineCounter, type Node, type Pair, type YAMLMap } from "yaml";
import type { Issue } from "../../errors.js";
import { messageOf } from "../../util/thrown.js";
import { yamlErrorText } from "../../util/yaml-error.js";
import { parseFixTemplate } from "./template.js";
import type { Expansion, Fix, RuleObject, Transformation } from "./types.js";

export interface CheckCtx {
  file: string;
  lines: LineCounter;
  issues: Issue[];
  /** Unknown keys where the CLI ignores them (ignoredKeys). */
  warnings: Issue[];
}

type YNode = Node | null | undefined;

/** Nodes the aliases of one YAML document may expand to (ast-grep's parser has a budget too). */
const ALIAS_BUDGET = 100_000;

/**
 * Replaces every alias of `doc` by a copy of its anchored node (ast-grep's YAML parser resolves
 * aliases; the checks below see mappings, not aliases), within ALIAS_BUDGET nodes in all: a
 * "billion laughs" document is refused at the alias that breaks the budget. The copies keep the
 * anchored node's positions.
 */
export function expandAliases(ctx: CheckCtx, doc: Document.Parsed): boolean {
  let nodes = 0;
  let ok = true;
  visit(doc, {
    Alias(_key, alias) {
      const target = alias.resolve(doc);
      if (!target) return undefined;
      const copy = target.clone() as Node;
      visit(copy, {
        Node: () => {
          nodes++;
        },
      });
      if (nodes > ALIAS_BUDGET) {
        issue(ctx, alias, `YAML aliases expand to more than ${ALIAS_BUDGET} nodes: refused`);
        ok = false;
        return visit.BREAK;
      }
      return copy;
    },
  });
  return ok;
}

export function posOf(ctx: CheckCtx, node: YNode | Pair): { line: number; col: number } {
  const range = (node as { range?: [number, number, number] } | null)?.range ?? ((node as Pair | null)?.key as { range?: number[] } | null)?.range;
  const pos = ctx.lines.linePos(range?.[0] ?? 0);
  return { line: pos.line, col: pos.col };
}

export function issue(ctx: CheckCtx, node: YNode | Pair, message: string): void {
  ctx.issues.push({ file: ctx.file, ...posOf(ctx, node), message });
}

function kindOf(node: YNode): string {
  if (isMap(node)) return "a mapping";
  if (isSeq(node)) return "a list";
  if (isScalar(node)) return node.value === null ? "null" : typeof node.value === "string" ? "a string" : `a ${typeof node.value}`;
  return "nothing";
}

/** The entries of a mapping node, key text → [key node, value node]; reports non-mappings. */
export function entries(ctx: CheckCtx, node: YNode, what: string): Map<string, { key: Node; value: YNode }> | undefined {
  if (!isMap(node)) {
    issue(ctx, node, `${what} must be a mapping, got ${kindOf(node)}`);
    return undefined;
  }
  const out = new Map<string, { key: Node; value: YNode }>();
  for (const pair of node.items) {
    const key = pair.key as Node;
    const name = isScalar(key) ? String(key.value) : "";
    out.set(name, { key, value: pair.value as YNode });
  }
  return out;
}

/** Reports keys not in `known`; `unsupported` keys get their own message. */
export function onlyKeys(
  ctx: CheckCtx,
  map: Map<string, { key: Node; value: YNode }>,
  known: readonly string[],
  what: string,
  unsupported: Record<string, string> = {},
): void {
  for (const [name, { key }] of map) {
    if (known.includes(name)) continue;
    if (unsupported[name]) issue(ctx, key, unsupported[name]);
    else issue(ctx, key, `Unknown key "${name}" in ${what}. Known keys: ${known.join(", ")}`);
  }
}

/**
 * Warns of keys not in `known` where ast-grep's parser ignores them (objects it reads without
 * deny_unknown_fields: a relational rule, a rewriter, a utility rule file, a transformation, a
 * fix object, nthChild, a label); they mean nothing to napi either.
 */
export function ignoredKeys(ctx: CheckCtx, map: Map<string, { key: Node; value: YNode }>, known: readonly string[], what: string): string[] {
  const ignored: string[] = [];
  for (const [name, { key }] of map) {
    if (known.includes(name)) continue;
    ignored.push(name);
    ctx.warnings.push({
      file: ctx.file,
      ...posOf(ctx, key),
      message: `Unknown key "${name}" in ${what} is ignored, as ast-grep ignores it there. Known keys: ${known.join(", ")}`,
    });
  }
  return ignored;
}

export function str(ctx: CheckCtx, node: YNode, what: string): string | undefined {
  if (isScalar(node) && typeof node.value === "string") return node.value;
  issue(ctx, node, `${what} must be a string, got ${kindOf(node)}`);
  return undefined;
}

function num(ctx: CheckCtx, node: YNode, what: string): number | undefined {
  if (isScalar(node) && typeof node.value === "number" && Number.isInteger(node.value)) return node.value;
  issue(ctx, node, `${what} must be an integer, got ${kindOf(node)}`);
  return undefined;
}

export function strList(ctx: CheckCtx, node: YNode, what: string): string[] | undefined {
  if (isScalar(node) && typeof node.value === "string") return [node.value];
  if (!isSeq(node)) {
    issue(ctx, node, `${what} must be a list of strings, got ${kindOf(node)}`);
    return undefined;
  }
  const out: string[] = [];
  for (const item of node.items) {
    const s = str(ctx, item as YNode, `${what} entry`);
    if (s !== undefined) out.push(s);
  }
  return out;
}

/** Plain JSON value of a node (for metadata and napi-bound objects). */
export function plain(node: YNode): unknown {
  return node ? (node as { toJSON(): unknown }).toJSON() : null;
}

const ATOMIC_KEYS = ["pattern", "kind", "regex", "nthChild", "range"] as const;
const RELATIONAL_KEYS = ["inside", "has", "precedes", "follows"] as const;
const COMPOSITE_KEYS = ["all", "any", "not", "matches"] as const;
const RULE_KEYS: readonly string[] = [...ATOMIC_KEYS, ...RELATIONAL_KEYS, ...COMPOSITE_KEYS];

const STRICTNESS = ["cst", "smart", "ast", "relaxed", "signature", "template"];

/** `pattern: { context, selector, strictness }`. */
function checkPatternObject(ctx: CheckCtx, value: YNode): void {
  const p = entries(ctx, value, "pattern")!;
  onlyKeys(ctx, p, ["context", "selector", "strictness"], "pattern");
  if (!p.has("context")) issue(ctx, value, "pattern object needs `context`");
  for (const [k, v] of p) {
    const s = str(ctx, v.value, `pattern.${k}`);
    if (k === "strictness" && s !== undefined && !STRICTNESS.includes(s)) {
      issue(ctx, v.value, `pattern.strictness must be one of ${STRICTNESS.join(", ")}, got "${s}"`);
    }
  }
}

/** `nthChild`: a number or An+B string, or `{ position, reverse, ofRule }`. */
function checkNthChild(ctx: CheckCtx, value: YNode): void {
  if (isScalar(value) && (typeof value.value === "number" || typeof value.value === "string")) return;
  const n = entries(ctx, value, "nthChild");
  if (!n) return;
  ignoredKeys(ctx, n, ["position", "reverse", "ofRule"], "nthChild");
  if (!n.has("position")) issue(ctx, value, "nthChild needs `position`");
  const ofRule = n.get("ofRule");
  if (ofRule) checkRule(ctx, ofRule.value, "nthChild.ofRule");
  const rev = n.get("reverse");
  if (rev && !(isScalar(rev.value) && typeof rev.value.value === "boolean")) issue(ctx, rev.value, "nthChild.reverse must be true or false");
}

/** `range: { start: { line, column }, end: { line, column } }`. */
function checkRange(ctx: CheckCtx, value: YNode): void {
  const r = entries(ctx, value, "range");
  if (!r) return;
  onlyKeys(ctx, r, ["start", "end"], "range");
  for (const side of ["start", "end"]) {
    const s = r.get(side);
    if (!s) {
      issue(ctx, value, `range needs \`${side}\``);
      continue;
    }
    const p = entries(ctx, s.value, `range.${side}`);
    if (!p) continue;
    onlyKeys(ctx, p, ["line", "column"], `range.${side}`);
    for (const k of ["line", "column"]) {
      if (!p.has(k)) issue(ctx, s.value, `range.${side} needs \`${k}\``);
      else num(ctx, p.get(k)!.value, `range.${side}.${k}`);
    }
  }
}

/**
 * Checks a rule object (atomic, relational, composite); returns it as plain data. `relation`: the
 * object of an `inside`/`has`/`precedes`/`follows`, whose unknown keys are warned of and dropped.
 */
export function checkRule(ctx: CheckCtx, node: YNode, what: string, extra: readonly string[] = [], relation = false): RuleObject | undefined {
  const map = entries(ctx, node, what);
  if (!map) return undefined;
  const before = ctx.issues.length;
  const known = [...RULE_KEYS, ...extra];
  if (relation) {
    // Out of the rule too: the rule handed on is this YAML node as plain data (the caller's too).
    for (const name of ignoredKeys(ctx, map, known, what)) {
      (node as YAMLMap).delete(map.get(name)!.key);
      map.delete(name);
    }
  } else onlyKeys(ctx, map, known, what);
  if (map.size === 0) issue(ctx, node, `${what} is empty: it needs at least one of ${RULE_KEYS.join(", ")}`);
  for (const [name, { value }] of map) {
    switch (name) {
      case "pattern":
        if (isMap(value)) checkPatternObject(ctx, value);
        else str(ctx, value, "pattern");
        break;
      case "kind":
      case "regex":
      case "matches":
        str(ctx, value, name);
        break;
      case "nthChild":
        checkNthChild(ctx, value);
        break;
      case "range":
        checkRange(ctx, value);
        break;
      case "inside":
      case "has":
      case "precedes":
      case "follows":
        checkRelation(ctx, value, name);
        break;
      case "all":
      case "any":
        if (!isSeq(value)) issue(ctx, value, `${name} must be a list of rules, got ${kindOf(value)}`);
        else value.items.forEach((item, i) => checkRule(ctx, item as YNode, `${name}[${i}]`));
        break;
      case "not":
        checkRule(ctx, value, "not");
        break;
    }
  }
  return ctx.issues.length === before ? (plain(node) as RuleObject) : undefined;
}

function checkStopBy(ctx: CheckCtx, node: YNode, what: string): void {
  if (isScalar(node) && (node.value === "neighbor" || node.value === "end")) return;
  if (isScalar(node)) {
    issue(ctx, node, `${what}.stopBy must be neighbor, end or a rule, got ${JSON.stringify(node.value)}`);
    return;
  }
  checkRule(ctx, node, `${what}.stopBy`);
}

function checkRelation(ctx: CheckCtx, node: YNode, what: string): void {
  const map = entries(ctx, node, what);
  if (!map) return;
  checkRule(ctx, node, what, ["stopBy", "field"], true);
  const stop = map.get("stopBy");
  if (stop) checkStopBy(ctx, stop.value, what);
  const field = map.get("field");
  if (field) {
    str(ctx, field.value, `${what}.field`);
    if (what !== "inside" && what !== "has") issue(ctx, field.key, `field is only valid in inside and has, not ${what}`);
  }
}

function checkExpansion(ctx: CheckCtx, node: YNode, what: string): Expansion | undefined {
  const map = entries(ctx, node, what);
  if (!map) return undefined;
  const before = ctx.issues.length;
  checkRule(ctx, node, what, ["stopBy"]);
  const stop = map.get("stopBy");
  if (stop) checkStopBy(ctx, stop.value, what);
  if (ctx.issues.length > before) return undefined;
  const all = plain(node) as RuleObject;
  const { stopBy, ...rule } = all as RuleObject & { stopBy?: unknown };
  return { rule, stopBy: stopBy === undefined || stopBy === "neighbor" ? "neighbor" : stopBy === "end" ? "end" : { rule: stopBy as RuleObject } };
}

/** `fix`: a string, `{ template, expandStart, expandEnd, title }`, or a list of those (the first is applied, as `--update-all` does). */
export function checkFix(ctx: CheckCtx, node: YNode): Fix | undefined {
  if (isScalar(node) && typeof node.value === "string") return { template: node.value, parts: parseFixTemplate(node.value) };
  if (isSeq(node)) {
    if (node.items.length === 0) {
      issue(ctx, node, "fix list is empty");
      return undefined;
    }
    const fixes = node.items.map((item, i) => {
      const m = isMap(item) ? entries(ctx, item, `fix[${i}]`) : undefined;
      if (m && !m.has("title")) issue(ctx, item as YNode, "a fix in a list must have a title");
      return checkFix(ctx, item as YNode);
    });
    return fixes[0];
  }
  const map = entries(ctx, node, "fix");
  if (!map) return undefined;
  ignoredKeys(ctx, map, ["template", "expandStart", "expandEnd", "title"], "fix");
  const t = map.get("template");
  if (!t) {
    issue(ctx, node, "fix needs `template`");
    return undefined;
  }
  const template = str(ctx, t.value, "fix.template");
  if (map.has("title")) str(ctx, map.get("title")!.value, "fix.title");
  const fix: Fix = { template: template ?? "", parts: parseFixTemplate(template ?? "") };
  const es = map.get("expandStart");
  const ee = map.get("expandEnd");
  if (es) {
    const e = checkExpansion(ctx, es.value, "expandStart");
    if (e) fix.expandStart = e;
  }
  if (ee) {
    const e = checkExpansion(ctx, ee.value, "expandEnd");
    if (e) fix.expandEnd = e;
  }
  return fix;
}

const TRANSFORM_KEYS: Record<string, readonly string[]> = {
  replace: ["source", "replace", "by"],
  substring: ["source", "startChar", "endChar"],
  convert: ["source", "toCase", "separatedBy"],
  rewrite: ["source", "rewriters", "joinBy"],
};
const REQUIRED: Record<string, readonly string[]> = {
  replace: ["source", "replace", "by"],
  substring: ["source"],
  convert: ["source", "toCase"],
  rewrite: ["source", "rewriters"],
};
const CASES = ["lowerCase", "upperCase", "capitalize", "camelCase", "snakeCase", "kebabCase", "pascalCase"];
const SEPARATORS = ["caseChange", "dash", "dot", "slash", "space", "underscore"];

/**
 * The string form, `replace($A, replace='^.+', by=', ')`, as ast-grep 0.38+ reads it: a
 * function name, the source metavariable, then `key=value` arguments (quoted strings,
 * integers, identifiers, or `[a, b]` lists).
 */
function parseTransformString(text: string): { value?: Transformation; error?: string } {
  const m = /^\s*(replace|substring|convert|rewrite)\s*\(\s*(\$\$?\$?[A-Za-z_][A-Za-z0-9_]*)\s*(.*)\)\s*$/s.exec(text);
  if (!m) return { error: `"${text}" is not a transformation: expected replace(...), substring(...), convert(...) or rewrite(...) with a $VAR source` };
  const [, kind, source, rest] = m as unknown as [string, string, string, string];
  const args: Record<string, unknown> = { source };
  let s = rest.trim();
  while (s.length > 0) {
    if (!s.startsWith(",")) return { error: `expected "," in "${text}" near "${s}"` };
    s = s.slice(1).trim();
    const key = /^([A-Za-z]+)\s*=\s*/.exec(s);
    if (!key) return { error: `expected key=value in "${text}" near "${s}"` };
    s = s.slice(key[0].length);
    let value: unknown;
    // As ast-grep's decompose_args: a quoted or [list] value ends at the next closing mark (no
    // escapes), and is read as a YAML scalar or sequence.
    if (s.startsWith("'") || s.startsWith('"') || s.startsWith("[")) {
      const close = s[0] === "[" ? "]" : s[0]!;
      const end = s.indexOf(close, 1);
      if (end === -1) return { error: `unclosed ${s[0]} in "${text}"` };
      try {
        value = parseYamlValue(s.slice(0, end + 1));
      } catch (err) {
        return { error: `${key[1]} in "${text}": ${yamlErrorText(messageOf(err))}` };
      }
      s = s.slice(end + 1);
    } else {
      const tok = /^[^,\s)]+/.exec(s);
      if (!tok) return { error: `missing value for ${key[1]} in "${text}"` };
      value = /^-?\d+$/.test(tok[0]) ? Number(tok[0]) : tok[0];
      s = s.slice(tok[0].length);
    }
    args[key[1]!] = value;
    s = s.trim();
  }
  return { value: { [kind]: args } as unknown as Transformation };
}

/** `transform`: name → object or string form. Returns object forms. */
export function checkTransform(ctx: CheckCtx, node: YNode): Record<string, Transformation> | undefined {
  const map = entries(ctx, node, "transform");
  if (!map) return undefined;
  const out: Record<string, Transformation> = {};
  const before = ctx.issues.length;
  for (const [name, { key, value }] of map) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) issue(ctx, key, `transform name "${name}" must be a metavariable name (A-Z, 0-9, _)`);
    let t: Transformation | undefined;
    if (isScalar(value) && typeof value.value === "string") {
      const parsed = parseTransformString(value.value);
      if (parsed.error) issue(ctx, value, parsed.error);
      t = parsed.value;
    } else {
      const m = entries(ctx, value, `transform.${name}`);
      if (!m) continue;
      if (m.size !== 1) {
        issue(ctx, value, `transform.${name} must have exactly one of replace, substring, convert, rewrite`);
        continue;
      }
      const [kind, inner] = [...m][0]!;
      if (!TRANSFORM_KEYS[kind]) {
        issue(ctx, inner.key, `Unknown transformation "${kind}". Known: replace, substring, convert, rewrite`);
        continue;
      }
      const im = entries(ctx, inner.value, `transform.${name}.${kind}`);
      if (!im) continue;
      ignoredKeys(ctx, im, TRANSFORM_KEYS[kind], `transform.${name}.${kind}`);
      t = { [kind]: plain(inner.value) } as unknown as Transformation;
      for (const req of REQUIRED[kind]!) if (!im.has(req)) issue(ctx, inner.value, `transform.${name}.${kind} needs \`${req}\``);
      for (const [k, v] of im) {
        if (["source", "replace", "by", "toCase", "joinBy"].includes(k)) str(ctx, v.value, `transform.${name}.${kind}.${k}`);
        if (k === "startChar" || k === "endChar") num(ctx, v.value, `transform.${name}.${kind}.${k}`);
        if (k === "rewriters" || k === "separatedBy") strList(ctx, v.value, `transform.${name}.${kind}.${k}`);
      }
    }
    if (!t) continue;
    const [kind, args] = Object.entries(t)[0] as [string, Record<string, unknown>];
    if (typeof args.source === "string" && !/^\$(\$\$)?[A-Z_][A-Z0-9_]*$/.test(args.source)) {
      issue(ctx, value, `transform.${name}: source must be a metavariable such as $A or $$$A, got "${args.source}"`);
    }
    if (kind === "convert" && typeof args.toCase === "string" && !CASES.includes(args.toCase)) {
      issue(ctx, value, `transform.${name}: toCase must be one of ${CASES.join(", ")}, got "${args.toCase}"`);
    }
    if (kind === "convert" && Array.isArray(args.separatedBy)) {
      for (const sep of args.separatedBy)
        if (!SEPARATORS.includes(String(sep)))
          issue(ctx, value, `transform.${name}: separatedBy entries must be ${SEPARATORS.join(", ")}, got "${String(sep)}"`);
    }
    if (kind === "rewrite" && typeof args.rewriters === "string") args.rewriters = [args.rewriters];
    out[name] = t;
  }
  return ctx.issues.length === before ? out : undefined;
}
