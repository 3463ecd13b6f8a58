/**
 * How ast_scan finds the nodes of the rules that need napi nodes (transforms, rewriters,
 * expansions, constraints, relational rules; scan.ts runs plain patterns through the ast
 * engine instead). Kept behind this one interface so the matching strategy can change without
 * touching fixes, findings or staging: the nodes are of one parse of the file, in document
 * order per rule, each with its own env (its rule's captures and transforms).
 */
import type { Napi } from "../ast/langs.js";
import { traverse, type EngineOp, type RuleConfig } from "../ast/traverse.js";
import { napiConfigOf } from "./rules.js";
import type { ScanRule } from "./types.js";
import { ruleVars } from "./vars.js";

function capturedVars(r: ScanRule): Set<string> {
  const vars = ruleVars(r.rule);
  for (const u of Object.values(r.utils ?? {})) ruleVars(u, vars);
  for (const c of Object.values(r.constraints ?? {})) ruleVars(c, vars);
  return vars;
}

type SgRoot = ReturnType<Napi["parse"]>;
export type SgNode = ReturnType<SgRoot["root"]>;

interface RuleMatches {
  rule: ScanRule;
  /** `bad`: the match rests on a syntax error (traverse.ts flagErrors). */
  nodes: Array<{ node: SgNode; bad: boolean }>;
}

export interface RuleMatcher {
  /** Parses `text` once and returns, per rule, the nodes it matches (rules with none omitted). */
  matchFile(text: string, lang: string, rules: readonly ScanRule[]): { root: SgRoot; matches: RuleMatches[] };
}

/**
 * The fidelity engine's single traversal (ast/traverse.ts): one parse and one walk per file for
 * all rules, whatever their number. traverse hands back, for a rule with constraints or
 * transforms, the node of the rule's own match (`find` on the node), whose env has them.
 */
export function traversalMatcher(napi: Napi): RuleMatcher {
  const ops = new WeakMap<ScanRule, EngineOp>();
  return {
    matchFile(text, lang, rules) {
      const root = napi.parse(lang, text);
      const list = rules.map((r) => {
        let op = ops.get(r);
        // Every metavariable the rule can capture: an error node inside one is copied verbatim,
        // so it does not make the match rest on the error (flagErrors).
        if (!op)
          ops.set(
            r,
            (op = { pat: "", config: napiConfigOf(r) as RuleConfig, captures: {}, all: Object.fromEntries([...capturedVars(r)].map((v) => [v, false])) }),
          );
        return op;
      });
      const { found } = traverse(
        root.root(),
        list,
        list.map((_, i) => i),
        undefined,
        0,
      );
      const byRule = new Map<number, RuleMatches["nodes"]>();
      for (const f of found) {
        const nodes = byRule.get(f.match.op) ?? [];
        nodes.push({ node: f.node, bad: f.match.bad === true });
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
