import { InputError, type Issue } from "../errors.js";
import type { Recipe } from "../recipe/load.js";
import { formatPath, locate } from "../config/yaml.js";
import { PATTERN_CHECKS } from "../tools/preflight.js";

/**
 * A pattern the ast-grep CLI rejects (or an unsupported `lang`) in a step of `run`, `plan` or
 * `apply` is invalid input: exit 2 before anything runs, with the CLI's reason at the
 * pattern's place in the recipe, as `validate` reports it. Steps without `lang`
 * learn their language from the files, so their patterns are checked when the step runs.
 */
export async function checkRecipePatterns(recipe: Pick<Recipe, "steps" | "located">, recipeDisplay: string): Promise<void> {
  const issues: Issue[] = [];
  for (const step of recipe.steps) {
    const check = PATTERN_CHECKS[step.tool];
    if (!check) continue;
    for (const issue of await check(step.with)) {
      if (issue.warning) continue;
      const at = ["steps", step.index, "with", ...issue.at];
      issues.push({ file: recipeDisplay, ...locate(recipe.located, at), path: formatPath(at), message: issue.message });
    }
  }
  if (issues.length > 0) throw new InputError(issues);
}
