import type { CommandModule } from "yargs";

interface SchemaArgs {
  which: "recipe" | "policy" | "report";
}

/** Prints the JSON Schema of the installed version. */
export function schemaCommand(setExit: (code: number) => void): CommandModule<object, SchemaArgs> {
  return {
    command: "schema <which>",
    describe: "Print the JSON Schema for recipe, policy or report",
    builder: (y) => y.positional("which", { choices: ["recipe", "policy", "report"] as const, demandOption: true }),
    handler: async (args) => {
      const { schemaText } = await import("../../schema/emit.js");
      process.stdout.write(schemaText(args.which));
      setExit(0);
    },
  };
}
