import type { CommandModule } from "yargs";

interface SchemaArgs {
  which: "recipe" | "policy" | "report";
}

/** Prints the JSON Schema of the installed version. */
export function schemaCommand(setExit: (code: number) => void): CommandModule<object, SchemaArgs> {
  return {
    command: "schema <which>",
    describe: "Print the JSON Schema for recipe, policy or report",
    builder: (y) => y.positional("which", { choices: ["recipe", "policy", "report"] as const, demandOption: true }) as never,
    handler: async (args) => {
      const { jsonSchema } = await import("../../schema/emit.js");
      process.stdout.write(`${JSON.stringify(jsonSchema(args.which), null, 2)}\n`);
      setExit(0);
    },
  };
}
