import { EXIT } from "../../exit-codes.js";
import { colorEnabled, colors } from "../../term.js";
import type { CommandSpec } from "../command.js";
import { formatOf, type Format } from "../options.js";

interface TestArgs {
  targets?: string[];
  update?: boolean;
  filter?: string[];
  reporter?: "text" | "json";
  format?: Format;
  keep?: boolean;
  color?: boolean;
}

/**
 * `tollgate test sgconfig.yml`: the ast-grep rule tests of its testConfigs, with ast-grep test's
 * per-rule lines (`PASS id  ..W`) and verdict names, then the same closing line, `--reporter
 * json` and exit codes as the recipe tests.
 */
async function ruleTests(configs: string[], args: TestArgs, out: { json: boolean; env: NodeJS.ProcessEnv }): Promise<number> {
  const { runRuleTests, ruleLine, ruleDetails } = await import("../../fixture-tests/rules.js");
  const { formatIssue } = await import("../../errors.js");
  const c = colors(colorEnabled(process.stderr, args.color, out.env));
  let exit: number = EXIT.ok;
  const runs: unknown[] = [];
  for (const config of configs) {
    const run = await runRuleTests({
      config,
      update: Boolean(args.update),
      ...(args.filter && args.filter.length > 0 ? { filter: args.filter.map(String).join("|") } : {}),
      displayBase: process.cwd(),
      onResult: (r) => {
        const line = ruleLine(r);
        const painted = line.startsWith("PASS") ? c.green(line) : line.startsWith("FAIL") ? c.red(line) : c.dim(line);
        process.stderr.write(`${painted}\n`);
        for (const d of ruleDetails(r)) process.stderr.write(`  ${d}\n`);
      },
    });
    for (const w of run.warnings) process.stderr.write(`${c.yellow("warning:")} ${formatIssue(w)}\n`);
    for (const issue of run.issues) process.stderr.write(`${c.red("✗")} ${formatIssue(issue)}\n`);
    const s = run.summary;
    const parts = [c.green(`${s.passed} passed`), s.failed > 0 ? c.red(`${s.failed} failed`) : `${s.failed} failed`];
    if (run.issues.length > 0) parts.push(c.red(`${run.issues.length} invalid`));
    if (s.updated > 0) parts.push(c.yellow(`${s.updated} updated`));
    if (s.skipped > 0) parts.push(`${s.skipped} skipped`);
    process.stderr.write(`${parts.join(", ")}\n`);
    runs.push({ config, summary: s, exitCode: run.exitCode, issues: run.issues.map((i) => ({ ...i, text: formatIssue(i) })), rules: run.results });
    exit = Math.max(exit, run.exitCode);
  }
  if (out.json) process.stdout.write(`${JSON.stringify({ schemaVersion: 1, kind: "ast-grep-rule-tests", runs, exitCode: exit }, null, 2)}\n`);
  return exit;
}

/** `tollgate test`: fixture tests for recipes. Exit 0 all passed, 1 a case failed, 2 invalid fixtures. */
export const testCommand: CommandSpec<TestArgs> = {
  command: "test [targets..]",
  usage: "test [recipes..|sgconfig.yml]",
  describe: "Run a recipe's fixture tests (__tests__/<case>/input → expected), or an sgconfig.yml's ast-grep rule tests",
  positionals: { targets: { type: "string", array: true, describe: "Recipe files or folders to search for __tests__ (default: .)" } },
  shared: ["format", "color"],
  own: {
    update: { alias: "u", type: "boolean", describe: "Write expected/ and expected-report.json from the actual run" },
    filter: { type: "string", array: true, describe: "Only cases whose <recipe>/<case> contains TEXT or matches a glob (repeatable)" },
    keep: { type: "boolean", describe: "Keep each case's temp workspace and print its path" },
    reporter: { choices: ["text", "json"] as const, group: "Output:", describe: "The same as --format" },
  },
  run: async (args, invocation) => {
    const targets = (args.targets ?? []).map(String);
    const json = (args.reporter ?? formatOf(args.format, invocation.env)) === "json";
    const { isSgConfig } = await import("../../fixture-tests/rules.js");
    if (targets.length > 0 && targets.every(isSgConfig)) return ruleTests(targets, args, { json, env: invocation.env });
    const [{ runTests }, format, { createExec }] = await Promise.all([
      import("../../fixture-tests/suite.js"),
      import("../../fixture-tests/format.js"),
      import("../../subprocess.js"),
    ]);
    const c = colors(colorEnabled(process.stderr, args.color, invocation.env));
    const run = await runTests({
      targets: targets.length > 0 ? targets : ["."],
      ...(args.filter ? { filter: args.filter.map(String) } : {}),
      update: Boolean(args.update),
      keep: Boolean(args.keep),
      exec: createExec(process.cwd(), invocation.process),
      now: Date.now,
      displayBase: process.cwd(),
      onCase: (r) => process.stderr.write(format.caseText(r, c)),
    });
    process.stderr.write(format.issuesText(run.issues, c));
    process.stderr.write(format.summaryText(run, c));
    if (json) process.stdout.write(format.jsonReport(run));
    return run.exitCode;
  },
};
