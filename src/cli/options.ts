// Every option of the CLI, declared once: a command composes the groups it takes, so an option
// means the same and is described the same wherever it appears.
import type { Options } from "yargs";
import { DECISIONS } from "../policy/schema.js";

/** An option as yargs takes it, with the heading it is listed under in `--help`. */
type Option = Options & { describe: string; group: string };

const DECISION = "Decisions:";
const OUTPUT = "Output:";
const SCOPE = "Recipe and files:";
const WORKSPACE = "Workspace:";

/** Where a command prints what it produces: one option, the same three values everywhere. */
const FORMATS = ["text", "json", "github"] as const;
export type Format = (typeof FORMATS)[number];

export const OPTIONS = {
  // What is decided, and who approved it.
  policy: { type: "string", group: DECISION, describe: "Policy file (without one every action is a dry run; apply: the plan's policy)" },
  "dry-run": { type: "boolean", group: DECISION, describe: "Apply nothing: every action is previewed only" },
  check: { type: "boolean", group: DECISION, describe: "Dry-run, and exit 1 when any action was staged" },
  mode: { choices: DECISIONS, group: DECISION, describe: "Override the policy's default decision" },
  approve: { type: "string", array: true, group: DECISION, describe: "Approve an action by id or fingerprint (repeatable, or comma-separated)" },
  "approve-all": { type: "boolean", group: DECISION, describe: "Approve every action that requires approval" },
  approvals: { type: "string", group: DECISION, describe: "YAML list of approved fingerprints (or of { fingerprint, by })" },
  atomic: { type: "boolean", group: DECISION, describe: "All or nothing: if the run fails (an action or a step), roll back every applied action" },
  // Files the command writes, and stdout.
  report: { type: "string", group: OUTPUT, describe: "Write the JSON report to FILE" },
  patch: { type: "string", group: OUTPUT, describe: "Write unapplied previews as one git patch to FILE" },
  summary: { type: "string", group: OUTPUT, describe: "Write a markdown summary to FILE" },
  sarif: { type: "string", group: OUTPUT, describe: "Write SARIF 2.1.0 (findings, unapplied changes) for GitHub code scanning to FILE" },
  format: {
    choices: FORMATS,
    group: OUTPUT,
    describe:
      "What stdout gets: text (nothing, or a listing such as tools'; messages go to stderr), json (the result as one JSON document), github (workflow commands; the default in GitHub Actions)",
  },
  color: { type: "boolean", group: OUTPUT, describe: "Colour on stderr on or off (--no-color); default: FORCE_COLOR, NO_COLOR, CI, TTY" },
  // What the recipe runs on.
  recipe: { type: "string", group: SCOPE, describe: "Recipe file (then every positional is a file)" },
  var: { type: "string", array: true, group: SCOPE, describe: "Set a recipe variable: name=value (repeatable)" },
  shard: { type: "string", group: SCOPE, describe: "Run shard i of n of the file set: i/n" },
  "changed-since": {
    type: "string",
    group: SCOPE,
    describe: "Only files changed since git merge-base REF HEAD (every file when the recipe's inputs changed; apply: the plan's merge-base)",
  },
  // Where it runs.
  cwd: {
    type: "string",
    group: WORKSPACE,
    describe: "Workspace root: tools read and write only inside it (default: the current directory; apply: the plan's)",
  },
  repository: { type: "string", group: WORKSPACE, describe: "The repository the report names (default: GITHUB_REPOSITORY, else the origin remote)" },
  cache: { type: "boolean", group: WORKSPACE, describe: "Reuse what ast_grep, ast_edit and ast_scan found in unchanged files (result cache)" },
  "cache-location": {
    type: "string",
    group: WORKSPACE,
    describe: "Result cache directory (default: node_modules/.cache/tollgate/, else $XDG_CACHE_HOME/tollgate/)",
  },
} as const satisfies Record<string, Option>;

export type OptionName = keyof typeof OPTIONS;

/** What the policy decides and who approved (run, plan, apply). */
const DECISION_OPTIONS = ["policy", "dry-run", "check", "mode", "approve", "approve-all", "approvals", "atomic"] as const;
/** The files a run writes (run, plan, apply, merge-reports). */
export const OUTPUT_FILE_OPTIONS = ["report", "patch", "summary", "sarif"] as const;
/** The human and machine output of a command that prints colour and data. */
const DISPLAY_OPTIONS = ["format", "color"] as const;
/** The workspace a run works in (run, plan, apply). */
const WORKSPACE_OPTIONS = ["cwd", "repository", "cache", "cache-location"] as const;
/** run and plan: the recipe, its variables and the file set; apply takes them from the plan. */
const RECIPE_OPTIONS = ["recipe", "var", "shard", "changed-since"] as const;
/** Everything run takes. */
export const RUN_OPTIONS = [...RECIPE_OPTIONS, ...DECISION_OPTIONS, ...OUTPUT_FILE_OPTIONS, ...DISPLAY_OPTIONS, ...WORKSPACE_OPTIONS] as const;
/** Everything apply takes: run's, less what the plan fixes (recipe, vars, shard). */
export const APPLY_OPTIONS = ["changed-since", ...DECISION_OPTIONS, ...OUTPUT_FILE_OPTIONS, ...DISPLAY_OPTIONS, ...WORKSPACE_OPTIONS] as const;

/**
 * The one default of `--format`: GitHub Actions gets workflow commands on stdout, anywhere else
 * text. A command whose output has no GitHub form (tools, test) prints text then.
 */
export function formatOf(given: Format | undefined, env: NodeJS.ProcessEnv): Format {
  return given ?? (env.GITHUB_ACTIONS === "true" ? "github" : "text");
}
