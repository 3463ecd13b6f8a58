/**
 * The metavariable scope checks `ast-grep scan` makes before it runs a rule
 * (crates/config/src/check_var.rs), so ast_scan refuses the rules the CLI refuses instead of
 * filling an undefined metavariable with nothing:
 * - a rule defines the metavariables of its `rule` (patterns, relational and composite
 *   sub-rules, nthChild's ofRule, stopBy rules; not those inside a `matches`d util), of all its
 *   local `utils`, of its `constraints`' rules, and its transforms' names;
 * - a `constraints` key, a transform's `source` and every metavariable a `fix` template reads
 *   must be defined; a transform may not reuse a defined name, nor depend on itself;
 * - a rewriter is checked on its own (its transforms see only its own rule), except that its
 *   `fix` may also read the enclosing rule's metavariables;
 * - a `labels` key must be a metavariable of the rule, its utils or constraints (not a
 *   transform).
 * `message` is not checked (an undefined metavariable there reads as nothing, as in the CLI).
 * Names starting with `_` never capture. A pattern's metavariables are read from its text (a
 * `$NAME` token standing alone), so a pattern object's `context` counts whole where the CLI
 * counts only its selected node: tollgate then accepts a rule the CLI refuses, never the
 * reverse.
 */
import { isMap, isScalar, isSeq, type Node } from "yaml";
import { issue, type CheckCtx } from "./check.js";
import { templateVars } from "./template.js";
import { transformSource, type RuleObject, type Transformation } from "./types.js";

type YNode = Node | null | undefined;

// A `$` may follow the name when it opens a substitution (`${`): in a template literal the text
// before it is a leaf of its own (`$A${x}` defines A).
const PATTERN_VAR = /(?<![A-Za-z0-9_$])\$(?:\$\$?)?([A-Z_][A-Z0-9_]*)(?![A-Za-z0-9_]|\$(?!\{))/g;

/** Capturing metavariables written in a pattern's text. */
function patternVars(pattern: string): Set<string> {
  const out = new Set<string>();
  for (const m of pattern.matchAll(PATTERN_VAR)) if (!m[1]!.startsWith("_")) out.add(m[1]!);
  return out;
}

/** Rule::defined_vars: what a rule object captures. */
export function ruleVars(rule: unknown, out = new Set<string>()): Set<string> {
  if (rule === null || typeof rule !== "object") return out;
  const r = rule as RuleObject;
  const p = r.pattern;
  if (typeof p === "string") for (const v of patternVars(p)) out.add(v);
  else if (p && typeof p === "object" && typeof (p as { context?: unknown }).context === "string") {
    for (const v of patternVars((p as { context: string }).context)) out.add(v);
  }
  const nth = r.nthChild;
  if (nth && typeof nth === "object") ruleVars((nth as { ofRule?: unknown }).ofRule, out);
  for (const key of ["inside", "has", "precedes", "follows"]) {
    const rel = r[key];
    if (!rel || typeof rel !== "object") continue;
    ruleVars(rel, out);
    const stop = (rel as { stopBy?: unknown }).stopBy;
    if (stop && typeof stop === "object") ruleVars(stop, out);
  }
  for (const key of ["all", "any"]) if (Array.isArray(r[key])) for (const sub of r[key] as unknown[]) ruleVars(sub, out);
  ruleVars(r.not, out);
  return out;
}

function sourceVar(t: Transformation): string {
  return transformSource(t).replace(/^\$+/, "");
}

/** The value node of `key` in a mapping node (for positions). */
function child(node: YNode, key: string): YNode {
  if (!isMap(node)) return undefined;
  for (const pair of node.items) if (isScalar(pair.key) && String(pair.key.value) === key) return pair.value as YNode;
  return undefined;
}

function keyNode(node: YNode, key: string): YNode {
  if (!isMap(node)) return undefined;
  for (const pair of node.items) if (isScalar(pair.key) && String(pair.key.value) === key) return pair.key;
  return undefined;
}

/** Every fix template of a `fix` node (a string, `{ template }`, or a titled list), with its node. */
function fixTemplates(node: YNode): Array<{ template: string; at: YNode }> {
  if (isScalar(node) && typeof node.value === "string") return [{ template: node.value, at: node }];
  if (isSeq(node)) return node.items.flatMap((item) => fixTemplates(item as YNode));
  const t = child(node, "template");
  return isScalar(t) && typeof t.value === "string" ? [{ template: t.value, at: t }] : [];
}

const undefinedVar = (name: string, section: string) =>
  `Undefined meta var \`${name}\` used in \`${section}\` (the rule, its local utils, constraints and transforms do not define $${name}; ast-grep refuses the rule too)`;

interface CoreParts {
  rule: RuleObject;
  constraints?: Record<string, RuleObject> | undefined;
  utils?: Record<string, RuleObject> | undefined;
  transform?: Record<string, Transformation> | undefined;
}

/**
 * check_vars for one rule core (a rule or a rewriter): reports undefined constraint keys and
 * transform sources, reused and cyclic transform names; returns (node vars, all vars).
 */
function checkCore(ctx: CheckCtx, core: CoreParts, node: YNode, extraUtils?: Record<string, RuleObject>): { nodeVars: Set<string>; vars: Set<string> } {
  const vars = ruleVars(core.rule);
  for (const u of Object.values({ ...extraUtils, ...core.utils })) ruleVars(u, vars);
  for (const c of Object.values(core.constraints ?? {})) ruleVars(c, vars);
  for (const name of Object.keys(core.constraints ?? {})) {
    if (!vars.has(name)) issue(ctx, keyNode(child(node, "constraints"), name) ?? node, undefinedVar(name, "constraints"));
  }
  const nodeVars = new Set(vars);
  const transform = core.transform ?? {};
  const tnode = child(node, "transform");
  // A transform reading transforms round to itself: ast-grep cannot order them (checked first,
  // as the CLI does when it reads the transforms).
  const cyclic = new Set<string>();
  for (const name of Object.keys(transform)) {
    const chain: string[] = [];
    let cur = name;
    while (Object.hasOwn(transform, cur) && !chain.includes(cur)) {
      chain.push(cur);
      cur = sourceVar(transform[cur]!);
    }
    if (cur !== name) continue;
    cyclic.add(name);
    issue(ctx, keyNode(tnode, name) ?? node, `\`${name}\` has a cyclic dependency (transform ${chain.map((s) => `$${s}`).join(" → ")} → $${name})`);
  }
  for (const name of Object.keys(transform)) {
    if (vars.has(name) && !cyclic.has(name))
      issue(ctx, keyNode(tnode, name) ?? node, `Transform var \`${name}\` has already defined (the rule captures a metavariable of that name)`);
    vars.add(name);
  }
  for (const [name, t] of Object.entries(transform)) {
    const src = sourceVar(t);
    if (!vars.has(src)) issue(ctx, child(tnode, name) ?? node, undefinedVar(src, "transform"));
  }
  return { nodeVars, vars };
}

function checkFixVars(ctx: CheckCtx, fixNode: YNode, vars: ReadonlySet<string>): void {
  for (const { template, at } of fixTemplates(fixNode)) {
    for (const name of templateVars(template)) if (!vars.has(name)) issue(ctx, at, undefinedVar(name, "fix"));
  }
}

interface RuleParts extends CoreParts {
  rewriters?: Array<CoreParts & { id: string }> | undefined;
  labels?: Record<string, unknown> | undefined;
}

/**
 * The CLI's metavariable checks on one rule document (`root`, a checked rule whose parts are
 * given); issues carry the offending key's or value's position.
 */
export function checkRuleVars(ctx: CheckCtx, root: YNode, parts: RuleParts): void {
  const { nodeVars, vars } = checkCore(ctx, parts, root);
  checkFixVars(ctx, child(root, "fix"), vars);
  const rwNodes = child(root, "rewriters");
  for (const [i, rw] of (parts.rewriters ?? []).entries()) {
    const at = isSeq(rwNodes) ? (rwNodes.items[i] as YNode) : root;
    const own = checkCore(ctx, rw, at, parts.utils);
    checkFixVars(ctx, child(at, "fix"), new Set([...own.vars, ...vars]));
  }
  const labels = child(root, "labels");
  for (const name of Object.keys(parts.labels ?? {})) {
    if (!nodeVars.has(name)) issue(ctx, keyNode(labels, name) ?? root, `Label meta-variable \`${name}\` must be defined in \`rule\` or \`constraints\``);
  }
}
