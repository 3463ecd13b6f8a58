import path from "node:path";
import type { CommandModule } from "yargs";

interface ValidateArgs {
  recipe: string;
  policy?: string;
  cwd?: string;
}

/** Checks recipe, policy, custom tools and every step's parameters; runs nothing. */
export function validateCommand(setExit: (code: number) => void): CommandModule<object, ValidateArgs> {
  return {
    command: "validate <recipe>",
    describe: "Check a recipe (and policy) without running anything",
    builder: (y) =>
      y
        .positional("recipe", { type: "string", demandOption: true, describe: "Recipe file" })
        .option("policy", { type: "string", describe: "Policy file" })
        .option("cwd", { type: "string", describe: "Workspace root" }) as never,
    handler: async (args) => {
      const { prepareRun } = await import("../../runner/run.js");
      (await import("../../workspace/root.js")).checkWorkspaceDir(path.resolve(args.cwd ?? "."), args.cwd);
      const prepared = await prepareRun({
        recipePath: path.resolve(args.recipe),
        cwd: path.resolve(args.cwd ?? "."),
        ...(args.policy ? { policyPath: path.resolve(args.policy) } : {}),
        displayBase: process.cwd(),
      });
      prepared.session.end();
      const n = prepared.recipe.steps.length;
      process.stderr.write(`${args.recipe}: valid (${n} step${n === 1 ? "" : "s"})${args.policy ? `; ${args.policy}: valid` : ""}\n`);
      setExit(0);
    },
  };
}
