import path from "node:path";
import { InputError, type Issue } from "../errors.js";
import { readConfigFile } from "../config/read.js";
import { formatPath, parseYaml, locate, schemaIssues } from "../config/yaml.js";
import type { StagedAction } from "../domain/types.js";
import { checkGlob, globMatcher, textGlobMatcher } from "./glob.js";
import { PolicySchema, type PolicyDecision, type PolicyFile } from "./schema.js";

export interface Policy {
  file?: string; // absolute, when loaded from a file
  text?: string;
  default: PolicyDecision;
  rules: Array<{ name: string; index: number; decision: PolicyDecision; matches: (a: ActionFacts) => boolean }>;
  protect: string[];
  allow: { exec: boolean; customTools: boolean };
}

/** What a rule can see of an action. */
export interface ActionFacts {
  sourceToolName: string;
  stepId: string;
  label: string;
  /** undefined for opaque actions (no known paths): `paths` never matches them. */
  paths: string[] | undefined;
  replacements: number | undefined;
}

export function factsOf({ action, stepId }: Pick<StagedAction, "action" | "stepId">): ActionFacts {
  return {
    sourceToolName: action.sourceToolName,
    stepId,
    label: action.label,
    paths: action.changes?.map((c) => c.path),
    replacements: action.replacements,
  };
}

/** With no policy file the default is dry-run (safe). */
export const DEFAULT_POLICY: Policy = {
  default: "dry-run",
  rules: [],
  protect: [],
  allow: { exec: true, customTools: true },
};

export async function loadPolicy(file: string, displayName = file): Promise<Policy> {
  return parsePolicy(await readConfigFile(file, displayName, "policy"), displayName, path.resolve(file));
}

function parsePolicy(text: string, displayName: string, abs?: string): Policy {
  const { located, issues } = parseYaml(displayName, text);
  if (!located) throw new InputError(issues);
  if (located.value === null || typeof located.value !== "object" || Array.isArray(located.value)) {
    throw new InputError([{ file: displayName, line: 1, col: 1, message: "A policy must be a YAML mapping with version: 1" }]);
  }
  const shape = schemaIssues(located, PolicySchema, located.value);
  if (shape.length > 0) throw new InputError(shape);
  const raw = located.value as PolicyFile;
  const globIssues: Issue[] = [];
  const checked = (glob: string, at: (string | number)[]): string => {
    const problem = checkGlob(glob);
    if (problem) globIssues.push({ file: displayName, ...locate(located, at), path: formatPath(at), message: `Invalid glob "${glob}": ${problem}` });
    return glob;
  };
  const rules = (raw.rules ?? []).map((rule, index) => {
    const m = rule.match ?? {};
    const base: (string | number)[] = ["rules", index, "match"];
    // A glob refused by checked() is reported below with its position; its matcher is never built.
    const ok = (glob: string, at: (string | number)[]) => checked(glob, at) !== undefined && checkGlob(glob) === undefined;
    const tool = m.tool !== undefined && ok(m.tool, [...base, "tool"]) ? textGlobMatcher(m.tool) : undefined;
    const step = m.step !== undefined && ok(m.step, [...base, "step"]) ? textGlobMatcher(m.step) : undefined;
    const label = m.label !== undefined && ok(m.label, [...base, "label"]) ? textGlobMatcher(m.label) : undefined;
    const pathsOk = m.paths?.map((g, i) => ok(g, [...base, "paths", i])).every(Boolean);
    const paths = m.paths !== undefined && pathsOk ? globMatcher(m.paths) : undefined;
    const matches = (a: ActionFacts): boolean => {
      if (tool && !tool(a.sourceToolName)) return false;
      if (step && !step(a.stepId)) return false;
      if (label && !label(a.label)) return false;
      if (paths && (!a.paths || a.paths.length === 0 || !a.paths.every((p) => paths(p)))) return false;
      if (m.maxFiles !== undefined && (a.paths === undefined || a.paths.length > m.maxFiles)) return false;
      if (m.maxReplacements !== undefined && (a.replacements === undefined || a.replacements > m.maxReplacements)) return false;
      return true;
    };
    return { name: rule.name ?? `rules[${index}]`, index, decision: rule.decision, matches };
  });
  (raw.protect ?? []).forEach((g, i) => checked(g, ["protect", i]));
  if (globIssues.length > 0) throw new InputError(globIssues);
  return {
    ...(abs !== undefined ? { file: abs } : {}),
    text,
    default: raw.default ?? "dry-run",
    rules,
    protect: raw.protect ?? [],
    allow: { exec: raw.allow?.exec ?? true, customTools: raw.allow?.customTools ?? true },
  };
}

interface RuleRef {
  name: string;
  index: number | null; // null = the policy default
}

/** First matching rule wins; otherwise the default (`rule: { name: "default", index: null }`). */
export function decide(policy: Policy, facts: ActionFacts): { decision: PolicyDecision; rule: RuleRef } {
  for (const rule of policy.rules) {
    if (rule.matches(facts)) return { decision: rule.decision, rule: { name: rule.name, index: rule.index } };
  }
  return { decision: policy.default, rule: { name: "default", index: null } };
}
