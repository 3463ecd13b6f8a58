/**
 * How ast_scan finds the nodes its rules match in one file. Kept behind this one interface so
 * the matching strategy can change (the fidelity issue's single-traversal engine) without
 * touching fixes, findings or staging: whatever finds the nodes, they are napi nodes of one
 * parse of the file, in document order per rule.
 */
import type { Napi } from "../ast/langs.js";
import { traverse, type EngineOp, type RuleConfig } from "../ast/traverse.js";
import { napiConfigOf } from "./rules.js";
import type { ScanRule } from "./types.js";

export type SgRoot = ReturnType<Napi["parse"]>;
export type SgNode = ReturnType<SgRoot["root"]>;

export interface RuleMatches {
  rule: ScanRule;
  nodes: SgNode[];
}

export interface RuleMatcher {
  /** Parses `text` once and returns, per rule, the nodes it matches (rules with none omitted). */
  matchFile(text: string, lang: string, rules: readonly ScanRule[]): { root: SgRoot; matches: RuleMatches[] };
}

/** One parse per file, one napi `findAll` per rule on that parse. */
export function findAllMatcher(napi: Napi): RuleMatcher {
  const configs = new WeakMap<ScanRule, Record<string, unknown>>();
  return {
    matchFile(text, lang, rules) {
      const root = napi.parse(lang as never, text);
      const top = root.root();
      const matches: RuleMatches[] = [];
      for (const rule of rules) {
        let config = configs.get(rule);
        if (!config) configs.set(rule, (config = napiConfigOf(rule)));
        const nodes = top.findAll(config as never);
        if (nodes.length > 0) matches.push({ rule, nodes });
      }
      return { root, matches };
    },
  };
}

/**
 * The fidelity engine's single traversal (ast/traverse.ts): one parse and one walk per file for
 * all rules, whatever their number.
 */
export function traversalMatcher(napi: Napi): RuleMatcher {
  const ops = new WeakMap<ScanRule, EngineOp>();
  return {
    matchFile(text, lang, rules) {
      const root = napi.parse(lang as never, text);
      const list = rules.map((r) => {
        let op = ops.get(r);
        if (!op) ops.set(r, (op = { pat: "", config: napiConfigOf(r) as RuleConfig, captures: {} }));
        return op;
      });
      const { found } = traverse(root.root(), list, list.map((_, i) => i), undefined, 0);
      const byRule = new Map<number, SgNode[]>();
      for (const f of found) {
        const nodes = byRule.get(f.match.op) ?? [];
        // The combined walk's env holds the captures but not the rule's transforms (nor, for
        // rules with constraints, necessarily its own env): read the node's match of the rule
        // itself (`find` on a node that matches returns the node first).
        const config = list[f.match.op]!.config!;
        const own = Object.keys(config).some((k) => k !== "rule") ? (f.node.find(config as never) ?? f.node) : f.node;
        nodes.push(own);
        byRule.set(f.match.op, nodes);
      }
      const matches: RuleMatches[] = [];
      rules.forEach((rule, i) => {
        const nodes = byRule.get(i);
        if (nodes) matches.push({ rule, nodes });
      });
      return { root, matches };
    },
  };
}
