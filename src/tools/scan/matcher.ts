/**
 * How ast_scan finds the nodes its rules match in one file. Kept behind this one interface so
 * the matching strategy can change (the fidelity issue's single-traversal engine) without
 * touching fixes, findings or staging: whatever finds the nodes, they are napi nodes of one
 * parse of the file, in document order per rule.
 */
import type { Napi } from "../ast/langs.js";
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
