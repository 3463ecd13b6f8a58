import path from "node:path";
import { InputError, type Issue } from "../../errors.js";
import { EXIT } from "../../exit-codes.js";
import type { CommandSpec } from "../command.js";
import { formatOf, type Format } from "../options.js";
import { plural } from "../../util/plural.js";

interface ValidateArgs {
  recipe: string;
  policy?: string;
  cwd?: string;
  var?: string[];
  format?: Format;
}

/** What validate found: the recipe's step count (when it parsed), errors and warnings. */
interface Findings {
  steps: number | undefined;
  errors: Issue[];
  warnings: Issue[];
}

/**
 * Checks everything that can be known before a run, running no step: recipe, policy,
 * custom tool modules, every step's parameters against its schema, and for the built-in tools
 * the language, the patterns and the paths (after `--var`). Problems are exit 2, all at once;
 * `--format json` prints them as one document on stdout as well.
 */
export const validateCommand: CommandSpec<ValidateArgs> = {
  command: "validate <recipe>",
  usage: "validate <recipe>",
  describe: "Check a recipe (and policy) without running anything",
  positionals: { recipe: { type: "string", demandOption: true, describe: "Recipe file" } },
  shared: ["policy", "var", "cwd", "format"],
  run: async (args, invocation) => {
    const findings = await validate(args).catch((err: unknown) => {
      if (!(err instanceof InputError)) throw err;
      return { steps: undefined, errors: err.issues, warnings: [] } satisfies Findings;
    });
    const { formatIssue } = await import("../../errors.js");
    for (const w of findings.warnings) process.stderr.write(`${formatIssue({ ...w, message: `warning: ${w.message}` })}\n`);
    const exitCode = findings.errors.length > 0 ? EXIT.input : EXIT.ok;
    if (formatOf(args.format, invocation.env) === "json") process.stdout.write(`${JSON.stringify(validateJson(args, findings, exitCode), null, 2)}\n`);
    if (findings.errors.length > 0) throw new InputError(findings.errors);
    const n = findings.steps ?? 0;
    const warned = findings.warnings.length > 0 ? `, ${plural(findings.warnings.length, "warning")}` : "";
    process.stderr.write(`${args.recipe}: valid (${plural(n, "step")}${warned})${args.policy ? `; ${args.policy}: valid` : ""}\n`);
    return exitCode;
  },
};

/** `validate --format json`: every issue with its place, and the exit code. */
function validateJson(args: ValidateArgs, findings: Findings, exitCode: number) {
  const issue = (severity: "error" | "warning") => (i: Issue) => ({
    severity,
    file: i.file ?? null,
    line: i.line ?? null,
    col: i.col ?? null,
    path: i.path ?? null,
    message: i.message,
  });
  return {
    schemaVersion: 1,
    kind: "validate",
    recipe: args.recipe,
    policy: args.policy ?? null,
    valid: findings.errors.length === 0,
    steps: findings.steps ?? null,
    issues: [...findings.errors.map(issue("error")), ...findings.warnings.map(issue("warning"))],
    exitCode,
  };
}

/** The recipe and policy as a run would load them, then every step's own check, paths included. */
async function validate(args: ValidateArgs): Promise<Findings> {
  const { validateRun } = await import("../../runner/run.js");
  const cwd = path.resolve(args.cwd ?? ".");
  (await import("../../workspace/root.js")).checkWorkspaceDir(cwd, args.cwd);
  return validateRun(
    {
      recipePath: path.resolve(args.recipe),
      ...(args.policy ? { policyPath: path.resolve(args.policy) } : {}),
      vars: (args.var ?? []).map(String),
    },
    { cwd, displayBase: process.cwd() },
  );
}
