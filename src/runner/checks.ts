// What is checked of a recipe's steps before any runs, one path for `run`, `plan`, `apply` and
// `validate`: what the policy allows the steps' tools to run, then each tool's own `check`.
import type { Issue } from "../errors.js";
import type { CheckIssue, CheckOptions, Tool } from "../domain/types.js";
import { formatPath, locate, type LocatedDocument } from "../config/yaml.js";
import type { Policy } from "../policy/policy.js";
import type { RecipeStep } from "../recipe/load.js";

/** The recipe a step's issues are placed in: its file as messages show it, and its positions. */
export interface RecipePlace {
  file: string;
  located: LocatedDocument;
}

/** Problems a recipe's checks found: errors stop the run (exit 2), warnings are said and accepted. */
export interface CheckedSteps {
  errors: Issue[];
  warnings: Issue[];
}

/** Why the policy refuses steps of `tool`, or undefined when it allows them. */
export function refusal(tool: Pick<Tool, "name" | "runs">, allow: Policy["allow"]): string | undefined {
  if (tool.runs?.kind === "commands" && !allow.exec) return `${tool.name} steps are not allowed by the policy (allow.exec: false)`;
  if (tool.runs?.kind === "modules" && !allow.customTools) {
    return `${tool.name} steps run ${tool.runs.noun}, which the policy does not allow (allow.customTools: false)`;
  }
  return undefined;
}

/** Steps (as written, before their `with` is checked) whose tool runs what the policy does not allow. */
export function policyIssues(steps: ReadonlyArray<{ tool?: unknown }>, tools: ReadonlyMap<string, Tool>, allow: Policy["allow"], at: RecipePlace): Issue[] {
  return steps.flatMap((step, i) => {
    const tool = typeof step.tool === "string" ? tools.get(step.tool) : undefined;
    const message = tool && refusal(tool, allow);
    return message ? [{ file: at.file, ...locate(at.located, ["steps", i, "tool"]), path: `steps[${i}].tool`, message }] : [];
  });
}

/**
 * An issue of a step's `with` placed in the recipe: at its `at` inside `with`, else at `with`
 * itself, unless it names its own file (a rule file's issue keeps its file:line:col).
 */
export function placeIssue(issue: CheckIssue, stepIndex: number, at: RecipePlace): Issue {
  const { at: inside, warning: _warning, ...rest } = issue;
  if (inside) {
    const where = ["steps", stepIndex, "with", ...inside];
    return { file: at.file, ...locate(at.located, where), path: formatPath(where), message: issue.message };
  }
  return rest.file ? rest : { file: at.file, ...locate(at.located, ["steps", stepIndex, "with"]), ...rest };
}

/** Every step's own check, in step order: the issues each found, placed in the recipe. */
export async function checkSteps(
  steps: readonly RecipeStep[],
  tools: ReadonlyMap<string, Tool>,
  options: CheckOptions,
  at: RecipePlace,
): Promise<CheckedSteps> {
  const out: CheckedSteps = { errors: [], warnings: [] };
  for (const step of steps) {
    const tool = tools.get(step.tool);
    if (!tool?.check) continue;
    for (const issue of await tool.check(step.with, options)) (issue.warning ? out.warnings : out.errors).push(placeIssue(issue, step.index, at));
  }
  return out;
}
