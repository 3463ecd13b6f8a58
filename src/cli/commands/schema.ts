import { EXIT } from "../../exit-codes.js";
import type { CommandSpec } from "../command.js";

interface SchemaArgs {
  which: "recipe" | "policy" | "report";
}

/** Prints the JSON Schema of the installed version (JSON whatever the format: it is a schema). */
export const schemaCommand: CommandSpec<SchemaArgs> = {
  command: "schema <which>",
  usage: "schema recipe|policy|report",
  describe: "Print the JSON Schema for recipe, policy or report",
  positionals: { which: { choices: ["recipe", "policy", "report"] as const, demandOption: true, describe: "Which schema" } },
  run: async (args) => {
    const { schemaText } = await import("../../schema/emit.js");
    process.stdout.write(schemaText(args.which));
    return EXIT.ok;
  },
};
