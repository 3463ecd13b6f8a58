import path from "node:path";
import type { CommandModule } from "yargs";

interface ValidateArgs {
  recipe: string;
  policy?: string;
  cwd?: string;
  var?: string[];
}

/**
 * Checks everything that can be known before a run, running no step: recipe, policy,
 * custom tool modules, every step's parameters against its schema, and for the built-in tools
 * the language, the patterns and the paths (after `--var`). Problems are exit 2, all at once.
 */
export function validateCommand(setExit: (code: number) => void): CommandModule<object, ValidateArgs> {
  return {
    command: "validate <recipe>",
    describe: "Check a recipe (and policy) without running anything",
    builder: (y) =>
      y
        .positional("recipe", { type: "string", demandOption: true, describe: "Recipe file" })
        .option("policy", { type: "string", describe: "Policy file" })
        .option("var", { type: "string", array: true, describe: "Set a recipe variable: name=value (repeatable), as for run" })
        .option("cwd", { type: "string", describe: "Workspace root: where the steps' paths are looked up (default: the current directory)" }) as never,
    handler: async (args) => {
      const { prepareRun } = await import("../../runner/run.js");
      const cwd = path.resolve(args.cwd ?? ".");
      (await import("../../workspace/root.js")).checkWorkspaceDir(cwd, args.cwd);
      const prepared = await prepareRun(
        {
          recipePath: path.resolve(args.recipe),
          ...(args.policy ? { policyPath: path.resolve(args.policy) } : {}),
          vars: (args.var ?? []).map(String),
        },
        { cwd, displayBase: process.cwd() },
      );
      prepared.session.end();
      const [{ PREFLIGHTS }, { formatPath, locate }, { InputError }] = await Promise.all([
        import("../../tools/preflight.js"),
        import("../../config/yaml.js"),
        import("../../errors.js"),
      ]);
      const errors = [];
      const warnings: string[] = [];
      for (const step of prepared.recipe.steps) {
        const check = PREFLIGHTS[step.tool];
        if (!check || prepared.tools.get(step.tool) === undefined) continue;
        for (const issue of await check(step.with, { cwd, recipeDir: path.dirname(path.resolve(args.recipe)) })) {
          const at = ["steps", step.index, "with", ...issue.at];
          const where = formatPath(at);
          const pos = locate(prepared.recipe.located, at);
          if (issue.warning) warnings.push(`${args.recipe}:${pos.line}:${pos.col} ${where}: warning: ${issue.message}`);
          else errors.push({ file: args.recipe, ...pos, path: where, message: issue.message });
        }
      }
      for (const w of warnings) process.stderr.write(`${w}\n`);
      if (errors.length > 0) throw new InputError(errors);
      const n = prepared.recipe.steps.length;
      const warned = warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? "" : "s"}` : "";
      process.stderr.write(`${args.recipe}: valid (${n} step${n === 1 ? "" : "s"}${warned})${args.policy ? `; ${args.policy}: valid` : ""}\n`);
      setExit(0);
    },
  };
}
