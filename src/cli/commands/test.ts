import type { CommandModule } from "yargs";
import { colorEnabled, colors } from "../../term.js";

interface TestArgs {
  targets?: string[];
  update?: boolean;
  filter?: string[];
  reporter?: "text" | "json";
  keep?: boolean;
  color?: boolean;
}

/** `tollgate test`: fixture tests for recipes. Exit 0 all passed, 1 a case failed, 2 invalid fixtures. */
export function testCommand(setExit: (code: number) => void): CommandModule<object, TestArgs> {
  return {
    command: "test [targets..]",
    describe: "Run a recipe's fixture tests (__tests__/<case>/input → expected)",
    builder: (y) =>
      y
        .positional("targets", { type: "string", array: true, describe: "Recipe files or folders to search for __tests__ (default: .)" })
        .option("update", { alias: "u", type: "boolean", describe: "Write expected/ and expected-report.json from the actual run" })
        .option("filter", { type: "string", array: true, describe: "Only cases whose <recipe>/<case> contains TEXT or matches a glob (repeatable)" })
        .option("reporter", { choices: ["text", "json"] as const, describe: "json prints the results on stdout" })
        .option("keep", { type: "boolean", describe: "Keep each case's temp workspace and print its path" })
        .option("color", { type: "boolean", describe: "Force colour on or off (--no-color)" }) as never,
    handler: async (args) => {
      const [{ runTests }, format, { createExec }] = await Promise.all([
        import("../../testing/suite.js"),
        import("../../testing/format.js"),
        import("../../exec.js"),
      ]);
      const c = colors(colorEnabled(process.stderr, args.color, process.env));
      const targets = (args.targets ?? []).map(String);
      const run = await runTests({
        targets: targets.length > 0 ? targets : ["."],
        ...(args.filter ? { filter: args.filter.map(String) } : {}),
        update: Boolean(args.update),
        keep: Boolean(args.keep),
        exec: createExec(process.cwd()),
        now: Date.now,
        displayBase: process.cwd(),
        onCase: (r) => process.stderr.write(format.caseText(r, c)),
      });
      process.stderr.write(format.issuesText(run.issues, c));
      process.stderr.write(format.summaryText(run, c));
      if (args.reporter === "json") process.stdout.write(format.jsonReport(run));
      setExit(run.exitCode);
    },
  };
}
