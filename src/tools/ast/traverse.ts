/**
 * One traversal of a syntax tree for many matchers (ast_edit's ops, ast_scan's rules): every
 * matcher's matches and the tree's ERROR nodes come from a single `findAll` with an `any` of
 * all of them, instead of one walk per matcher (a walk of a large tree costs about as much as
 * the match itself). A node found by the combined rule is then checked against each matcher
 * (`matches`), and its captures are read from the matcher's own match (`find` on the node
 * returns the node itself first), so constraints, utils and transforms behave as in a lone
 * `findAll` with that matcher.
 */
import type { Napi } from "./langs.js";
import type { RawMatch } from "./rewrite.js";

export type SgNode = ReturnType<ReturnType<Napi["parse"]>["root"]>;

/** A napi rule object (`NapiConfig`: rule, constraints, utils, transform). */
export type RuleConfig = { rule: Record<string, unknown>; constraints?: Record<string, unknown>; utils?: Record<string, unknown>; transform?: Record<string, unknown> } & Record<string, unknown>;

export interface EngineOp {
  /** The pattern (ast_edit, ast_grep); ignored when `config` is given. */
  pat: string;
  /** A napi rule object used as the matcher instead of `pat` (ast_scan's rules). */
  config?: RuleConfig | undefined;
  /** Captures to extract: name → multi. */
  captures: Record<string, boolean>;
  /** Every capture the matcher declares (for the syntax-error check); default: `captures`. */
  all?: Record<string, boolean>;
}

/** The napi matcher of an op. */
export function opConfig(op: Pick<EngineOp, "pat" | "config">, sel: string | undefined): RuleConfig {
  if (op.config) return op.config;
  return { rule: { pattern: sel ? { context: op.pat, selector: sel } : op.pat } };
}

export interface Found {
  node: SgNode;
  match: RawMatch;
}

export interface TraverseOptions {
  /** Kinds of string-like nodes whose inner lines a rewrite never re-indents. */
  stringKinds?: readonly string[] | undefined;
}

function captureNodes(node: SgNode, name: string, multi: boolean): SgNode[] {
  if (multi) {
    const many = node.getMultipleMatches(name);
    if (many.length > 0) return many;
    const one = node.getMatch(name);
    return one ? [one] : [];
  }
  const one = node.getMatch(name);
  if (one) return [one];
  // `$A` written in the template for a `$$$A` capture, or vice versa.
  return node.getMultipleMatches(name);
}

function rangeOf(nodes: readonly SgNode[], offset: number): [number, number] | null {
  if (nodes.length === 0) return null;
  return [nodes[0]!.range().start.index + offset, nodes[nodes.length - 1]!.range().end.index + offset];
}

/** Ranges of every capture an op declares (the text a rewrite copies verbatim). */
function allCaptureRanges(node: SgNode, op: EngineOp, offset: number): Array<[number, number]> {
  return Object.entries(op.all ?? op.captures)
    .map(([name, multi]) => rangeOf(captureNodes(node, name, multi), offset))
    .filter((c): c is [number, number] => c !== null);
}

/** Merges the ops' utils into one map, or undefined when two define the same id differently. */
function mergedUtils(configs: readonly RuleConfig[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const c of configs) {
    for (const [id, rule] of Object.entries(c.utils ?? {})) {
      if (id in out && JSON.stringify(out[id]) !== JSON.stringify(rule)) return undefined;
      out[id] = rule;
    }
  }
  return out;
}

/**
 * Matches of every op in `root` (offsets shifted by `offset`, the root's position in the file)
 * and the ERROR nodes' ranges. Matches resting on a syntax error are flagged `bad` (see
 * flagErrors); nothing is dropped here.
 */
export function traverse(root: SgNode, ops: readonly EngineOp[], active: readonly number[], sel: string | undefined, offset: number, options: TraverseOptions = {}): { found: Found[]; errors: Array<[number, number]> } {
  const found: Found[] = [];
  const errors: Array<[number, number]> = [];
  const configs = active.map((i) => opConfig(ops[i]!, sel));
  const utils = mergedUtils(configs);
  // Ops whose captures can be read off the combined match: plain rules (no constraints or
  // transform) are tried by `any` in order, so the first of them that matches owns the env.
  const plain = configs.map((c) => Object.keys(c).every((k) => k === "rule"));
  const combined = { rule: { any: [...configs.map((c) => c.rule), { kind: "ERROR" }] }, ...(utils && Object.keys(utils).length > 0 ? { utils } : {}) };
  const push = (node: SgNode, index: number) => {
    const op = ops[index]!;
    const r = node.range();
    const captures: Record<string, [number, number] | null> = {};
    let literals: Array<[number, number]> | undefined;
    for (const [name, multi] of Object.entries(op.captures)) {
      const nodes = captureNodes(node, name, multi);
      const range = rangeOf(nodes, offset);
      captures[name] = range;
      if (range && options.stringKinds && options.stringKinds.length > 0) {
        for (const n of nodes) {
          if (!n.text().includes("\n")) continue;
          const rule = { rule: { any: options.stringKinds.map((kind) => ({ kind })) } };
          for (const s of n.findAll(rule as never)) {
            const sr = s.range();
            if (sr.start.line !== sr.end.line) (literals ??= []).push([sr.start.index + offset, sr.end.index + offset]);
          }
        }
      }
    }
    found.push({ node, match: { op: index, start: r.start.index + offset, end: r.end.index + offset, captures, ...(literals ? { literals } : {}) } });
  };
  const visit = (node: SgNode, isError: boolean) => {
    if (isError) {
      const r = node.range();
      errors.push([r.start.index + offset, r.end.index + offset]);
    }
    // The node's env is op k's only while no earlier branch of `any` can have matched it: a
    // plain op that matched owns it, an op with constraints may have matched by rule alone.
    let direct = !isError;
    active.forEach((index, k) => {
      const config = configs[k]!;
      const hit = node.matches(config as never);
      if (hit && direct && plain[k]) {
        direct = false;
        push(node, index);
        return;
      }
      if (hit || !plain[k]) direct = false;
      if (!hit) return;
      const self = node.find(config as never);
      if (self) push(self, index);
    });
  };
  if (active.length === 0) return { found, errors };
  if (utils === undefined) {
    // Conflicting util ids: one walk per op (rare; each op keeps its own utils).
    for (const k of active.keys()) for (const node of root.findAll(configs[k] as never)) push(node, active[k]!);
    for (const e of root.findAll({ rule: { kind: "ERROR" } } as never)) {
      const r = e.range();
      errors.push([r.start.index + offset, r.end.index + offset]);
    }
  } else if (active.length === 1 && plain[0]) {
    // One plain op, the common case: the node's env is the op's (ERROR is the last branch).
    for (const node of root.findAll(combined as never)) {
      if (node.kind() !== "ERROR") push(node, active[0]!);
      else visit(node, true);
    }
  } else {
    for (const node of root.findAll(combined as never)) visit(node, node.kind() === "ERROR");
  }
  flagErrors(found, errors, ops, offset);
  return { found, errors };
}

/**
 * Flags matches that rest on a syntax error (SPEC 3.1): tree-sitter wraps what it cannot parse
 * in ERROR nodes, and invents zero-width MISSING tokens (an absent `)`) to carry on. A match
 * inside an ERROR node is itself a cleanly parsed subtree and is kept; a match containing an
 * ERROR node, or a MISSING token, outside its metavariable captures (whose text is copied
 * verbatim) rests on a misparse and is flagged `bad`.
 */
function flagErrors(found: readonly Found[], errors: ReadonlyArray<[number, number]>, ops: readonly EngineOp[], offset: number): void {
  for (const { node, match } of found) {
    const inner = errors.filter(([es, ee]) => es >= match.start && ee <= match.end && !(es === match.start && ee === match.end));
    if (inner.length > 0) {
      const caps = allCaptureRanges(node, ops[match.op]!, offset);
      if (inner.some(([es, ee]) => !caps.some(([cs, ce]) => cs <= es && ee <= ce))) {
        match.bad = true;
        continue;
      }
    }
    const missing = node.findAll({ rule: { regex: "^$" } } as never).map((n) => n.range().start.index + offset);
    if (missing.length === 0) continue;
    const caps = allCaptureRanges(node, ops[match.op]!, offset);
    if (missing.some((at) => !caps.some(([cs, ce]) => cs < at && at < ce))) match.bad = true;
  }
}
