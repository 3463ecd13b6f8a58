import path from "node:path";
import type { Argv, CommandModule } from "yargs";
import { InputError, TollgateError } from "../../errors.js";
import { DECISIONS, type PolicyDecision } from "../../policy/schema.js";
import type { Report } from "../../report/types.js";
import type { RecipeSource } from "../../changed/inputs.js";
import type { ChangedScope } from "../../scope.js";
import type { PlanGate, RunEvent, RunInput, RunWorld } from "../../runner/types.js";
import { colorEnabled, colors } from "../../term.js";
import { createReporter } from "../reporter.js";
import { writeOutputs } from "../outputs.js";
import { divertStdout } from "../stdout.js";
import { relativeInside } from "../../util/inside.js";

export interface RunArgs {
  recipe?: string;
  files?: string[];
  policy?: string;
  "dry-run"?: boolean;
  check?: boolean;
  report?: string;
  patch?: string;
  summary?: string;
  sarif?: string;
  format?: "text" | "json" | "github";
  var?: string[];
  approve?: string[];
  "approve-all"?: boolean;
  approvals?: string;
  cwd?: string;
  shard?: string;
  "changed-since"?: string;
  cache?: boolean;
  "cache-location"?: string;
  mode?: PolicyDecision;
  color?: boolean;
  atomic?: boolean;
  repository?: string;
}

/** Flags shared by run, plan and apply. */
export function runFlags<T>(y: Argv<T>) {
  return y
    .option("recipe", { type: "string", describe: "Recipe file (then every positional is a file)" })
    .option("policy", { type: "string", describe: "Policy file (default: everything dry-run)" })
    .option("dry-run", { type: "boolean", describe: "Apply nothing: every action is previewed only" })
    .option("check", { type: "boolean", describe: "Dry-run; exit 1 when any action was staged" })
    .option("mode", { choices: DECISIONS, describe: "Override the policy's default decision" })
    .option("report", { type: "string", describe: "Write the JSON report to FILE" })
    .option("patch", { type: "string", describe: "Write unapplied previews as one git patch to FILE" })
    .option("summary", { type: "string", describe: "Write a markdown summary to FILE" })
    .option("sarif", { type: "string", describe: "Write SARIF 2.1.0 (findings, unapplied changes) for GitHub code scanning to FILE" })
    .option("format", { choices: ["text", "json", "github"] as const, describe: "stdout format (json prints the report)" })
    .option("var", { type: "string", array: true, describe: "Set a recipe variable: name=value (repeatable)" })
    .option("approve", { type: "string", array: true, describe: "Approve an action by id or fingerprint (repeatable)" })
    .option("approve-all", { type: "boolean", describe: "Approve every action that requires approval" })
    .option("approvals", { type: "string", describe: "YAML list of approved fingerprints" })
    .option("cwd", { type: "string", describe: "Workspace root (default: the current directory)" })
    .option("shard", { type: "string", describe: "Run shard i of n: i/n" })
    .option("changed-since", { type: "string", describe: "Only files changed since git merge-base REF HEAD (every file when the recipe's inputs changed)" })
    .option("cache", { type: "boolean", describe: "Reuse what ast_grep, ast_edit and ast_scan found in unchanged files (result cache)" })
    .option("cache-location", { type: "string", describe: "Result cache directory (default node_modules/.cache/tollgate/, else $XDG_CACHE_HOME/tollgate/)" })
    .option("color", { type: "boolean", describe: "Force colour on or off (--no-color)" })
    .option("atomic", { type: "boolean", describe: "All or nothing: if the run fails (an action or a step), roll back every applied action" })
    .option("repository", { type: "string", describe: "The repository the report names (default: GITHUB_REPOSITORY, else the origin remote)" });
  // No conflicts between --dry-run/--check and --mode/--approve*: `--dry-run` forces every
  // decision to dry-run whatever else is given, as `apply` does, so CI wrappers (the
  // action's `check` command with a `mode` input) can add it to any command line.
}

export function parseShard(value: string | undefined): { index: number; count: number } | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new InputError(`--shard expects i/n with 1 <= i <= n, got "${value}"`);
  }
  return { index, count };
}

/** Recipe and files from positionals: `--recipe FILE` makes every positional a file (pre-commit). */
export function recipeAndFiles(args: { recipe?: string; positionals: string[] }): { recipe: string; files: string[] } {
  if (args.recipe !== undefined) return { recipe: args.recipe, files: args.positionals };
  const [recipe, ...files] = args.positionals;
  if (!recipe) throw new InputError("Name a recipe: tollgate run <recipe> [files..] (or --recipe FILE)");
  return { recipe, files };
}

/**
 * The run's own output files, relative to the workspace when inside it: tools must not read
 * them as sources (a report.json written by the last run is not part of the code base).
 */
export function outputExcludes(cwd: string, files: ReadonlyArray<string | undefined>): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (!f) continue;
    const rel = relativeInside(cwd, f);
    if (rel !== undefined) out.push(rel);
  }
  return out;
}

/** A run as the CLI starts it: what to run, in which world, and apply's plan gate. */
export interface CliRun {
  input: RunInput;
  world: RunWorld;
  gate?: PlanGate;
}

export async function buildRun(args: RunArgs & { positionals: string[]; out?: string }, command: string): Promise<CliRun> {
  const { recipe, files } = recipeAndFiles(args);
  const cwd = path.resolve(args.cwd ?? ".");
  const { checkWorkspaceDir } = await import("../../workspace/root.js");
  checkWorkspaceDir(cwd, args.cwd);
  const scopeFiles = files.map((f) => path.relative(cwd, path.resolve(cwd, f)).split(path.sep).join("/"));
  // A file named on the command line that does not exist is a typo, not "nothing to change".
  const { existsSync } = await import("node:fs");
  const missing = files.filter((f) => !existsSync(path.resolve(cwd, f)));
  if (missing.length > 0) {
    throw new InputError(
      missing.map((f) => ({
        message: `${f}: no such file (files named on the command line are relative to the workspace root ${cwd}: --cwd, default the working directory)`,
      })),
    );
  }
  const shard = parseShard(args.shard);
  const changed =
    args["changed-since"] !== undefined
      ? await changedScope(args["changed-since"], { cwd, recipePath: path.resolve(recipe), policyPath: args.policy, vars: args.var ?? [] })
      : undefined;
  const { loadApprovalsFile } = await import("../approvals.js");
  const approvalsFile = args.approvals ? await loadApprovalsFile(args.approvals) : new Map<string, string>();
  const input: RunInput = {
    recipePath: path.resolve(recipe),
    command,
    ...repositoryOf(args.repository, process.env),
    ...(args.policy ? { policyPath: path.resolve(args.policy) } : {}),
    dryRun: Boolean(args["dry-run"]),
    atomic: Boolean(args.atomic),
    check: Boolean(args.check),
    ...(args.mode ? { mode: args.mode } : {}),
    vars: args.var ?? [],
    scope: {
      ...(scopeFiles.length > 0 ? { files: scopeFiles } : {}),
      ...(shard ? { shard } : {}),
      ...(changed ? { changed } : {}),
      exclude: outputExcludes(cwd, [args.report, args.patch, args.summary, args.sarif, args.out]),
    },
    approvals: { ids: approveIds(args.approve), approveAll: Boolean(args["approve-all"]), file: approvalsFile },
  };
  return { input, world: { cwd, displayBase: process.cwd(), ...(await cacheWorld(args, cwd)) } };
}

/** `--changed-since`: the changed scope, said on stderr when an input of the recipe widened it to every file. */
export async function changedScope(ref: string, source: RecipeSource & { exact?: boolean }): Promise<ChangedScope> {
  const { resolveChangedScope } = await import("../../changed/index.js");
  const changed = await resolveChangedScope({ ...source, ref });
  const inputs = changed.inputs ?? [];
  if (changed.files === null)
    process.stderr.write(
      `tollgate: --changed-since ${ref}: the recipe's inputs changed (${inputs.slice(0, 5).join(", ")}${inputs.length > 5 ? ", …" : ""}): every file is in scope\n`,
    );
  return changed;
}

/** `--cache`: the result cache the structural tools consult; its MAC key from TOLLGATE_CACHE_KEY when set. */
export async function cacheWorld(args: Pick<RunArgs, "cache" | "cache-location">, cwd: string): Promise<Pick<RunWorld, "cache">> {
  if (!args.cache) return {};
  const { openResultCache } = await import("../../cache/open.js");
  const cache = openResultCache({
    root: cwd,
    env: process.env,
    ...(args["cache-location"] !== undefined ? { location: path.resolve(args["cache-location"]) } : {}),
    warn: (line) => process.stderr.write(`tollgate: ${line}\n`),
  });
  return { cache };
}

/**
 * The repository the report names: `--repository`, else `GITHUB_REPOSITORY`; neither leaves it
 * to the runner, which reads the workspace's origin remote.
 */
export function repositoryOf(flag: string | undefined, env: NodeJS.ProcessEnv): { repository?: string } {
  const name = (flag ?? env.GITHUB_REPOSITORY ?? "").trim();
  return name === "" ? {} : { repository: name };
}

export function runCommand(setExit: (code: number) => void): CommandModule<object, RunArgs & { positionals: string[] }> {
  return {
    command: "run [positionals..]",
    describe: "Run a recipe: stage, decide by policy, apply, report",
    builder: (y) =>
      runFlags(y)
        .usage("$0 run <recipe> [files..] [options]\n\nRun a recipe: stage, decide by policy, apply, report")
        .positional("positionals", {
          type: "string",
          array: true,
          describe: "<recipe> [files..]: the recipe, then files that restrict every tool",
        })
        .example("$0 run codemod.yaml --policy policy.yaml --report report.json", "apply as the policy decides")
        .example("$0 run codemod.yaml --check --patch changes.patch", "CI gate: exit 1 if anything would change") as never,
    handler: async (args) => {
      setExit(await executeWithOutputs(await buildRun({ ...args, positionals: (args.positionals ?? []).map(String) }, "run"), args));
    },
  };
}

/**
 * Runs with the CLI's progress, prompt, report/patch/summary files and stdout format.
 * SIGINT/SIGTERM (or Ctrl-C at the prompt, which raw mode turns into a key): finish (or roll
 * back) the action being applied, apply nothing more, write the report, exit 130. A second
 * signal exits at once (the journal then lets `recover` clean up).
 */
export async function executeWithOutputs(
  run: CliRun,
  args: RunArgs,
  extra: {
    /** plan/apply: adds their blocks to the report before it is written. */
    finish?: (report: Report) => Promise<Report>;
    /** plan: what the policy would decide for an action, shown on its line. */
    wouldDecide?: (id: string) => string | undefined;
    /** plan: sees every event before the reporter does. */
    onEvent?: (event: RunEvent) => void;
  } = {},
): Promise<number> {
  const { input, world } = run;
  const { finish, wouldDecide } = extra;
  const env = process.env;
  const format = args.format ?? (env.GITHUB_ACTIONS === "true" ? "github" : "text");
  const c = colors(colorEnabled(process.stderr, args.color, env));
  const live = Boolean(process.stderr.isTTY) && !env.CI && env.TERM !== "dumb";
  const shownAtPrompt = new Set<string>();
  const reporter = createReporter({
    colors: c,
    stream: process.stderr,
    live,
    showDiffs: format === "text",
    shown: shownAtPrompt,
    cwd: world.cwd,
    ...(wouldDecide ? { wouldDecide } : {}),
  });
  const { prepareRun, executeRun } = await import("../../runner/run.js");
  // The run log (custom tools' pi.logger) goes to stderr with the progress, never to stdout.
  const { createLogger } = await import("../../logger.js");
  const restoreStdout = divertStdout();
  const prepared = await prepareRun(input, { ...world, logger: world.logger ?? createLogger(reporter.log) }).catch((err: unknown) => {
    restoreStdout();
    throw err;
  });
  const { handleInterrupts } = await import("../interrupt.js");
  const interrupts = handleInterrupts({
    onInterrupt: (sig) => {
      // The terminal is gone: what is still written to it must not fail the run's ending.
      if (sig === "SIGHUP") for (const stream of [process.stderr, process.stdout]) stream.on("error", () => {});
      reporter.pause();
      process.stderr.write(`\ntollgate: ${sig}: stopping after the current action (again to force)\n`);
    },
    // Said with the first signal: the second ends the process before anything could be written.
    onForce: () => process.stderr.write("tollgate: a second signal ends the process at once; if files were being written then, run `tollgate recover`\n"),
  });
  const atPrompt = new AbortController();
  const signals = [interrupts.signal, atPrompt.signal];
  try {
    const { interactiveApprover } = await import("../prompt.js");
    const prompt = interactiveApprover(env, c, {
      onInterrupt: () => {
        process.stderr.write("\ntollgate: interrupted at the prompt; applying nothing more\n");
        atPrompt.abort();
      },
      signal: interrupts.signal,
      root: world.cwd,
      onHangup: () => {
        for (const stream of [process.stderr, process.stdout]) stream.on("error", () => {});
        atPrompt.abort();
      },
      beforePrompt: (staged) => {
        reporter.pause();
        shownAtPrompt.add(staged.id);
      },
    });
    const started = Date.now();
    const result = await executeRun(prepared, {
      signal: AbortSignal.any(signals),
      ...(prompt ? { approver: prompt } : {}),
      ...(run.gate ? { gate: run.gate } : {}),
      onEvent: (event) => {
        extra.onEvent?.(event);
        reporter.event(event);
      },
    }).catch(async (err: unknown) => {
      // A run that cannot start (lock held, unrecovered journal) still leaves a report (exit 3).
      if (!(err instanceof TollgateError) || err.exitCode !== 3 || !args.report) throw err;
      const { failedStartReport } = await import("../../report/build.js");
      const report = failedStartReport(
        { recipe: prepared.recipe, policy: prepared.policy, options: { ...input, cwd: world.cwd }, startedAt: started, durationMs: Date.now() - started },
        err.message,
      );
      await writeOutputs(report, { report: args.report });
      throw err;
    });
    restoreStdout(); // the run's user code is done: stdout is the machine output's again
    await world.cache?.close();
    try {
      const report = finish ? await finish(result.report) : result.report;
      reporter.done(report);
      const [{ nextSteps }, { getArgv }] = await Promise.all([import("../hints.js"), import("../argv.js")]);
      for (const line of nextSteps(report, getArgv())) process.stderr.write(`${c.yellow(line)}\n`);
      warnUnmatchedApprovals(input.approvals?.ids, report, (line) => process.stderr.write(`${line}\n`));
      await writeOutputs(report, { ...args, format }, (line) => process.stderr.write(`${line}\n`), result.previews);
      return report.exitCode;
    } finally {
      result.dispose();
    }
  } finally {
    restoreStdout();
    reporter.pause();
    interrupts.dispose();
  }
}

/**
 * `--approve` values: repeatable, and each may be a comma-separated list (`--approve a#1,b#1`,
 * what a CI input usually holds). Ids and fingerprints never contain commas or spaces.
 */
export function approveIds(values: ReadonlyArray<string | number> | undefined): Set<string> {
  return new Set(
    (values ?? [])
      .flatMap((v) => String(v).split(","))
      .map((v) => v.trim())
      .filter((v) => v !== ""),
  );
}

/**
 * An `--approve` value that names no action of the run (a typo, an id from another plan) would
 * otherwise go unnoticed while the action it meant stays pending: say so on stderr.
 */
export function warnUnmatchedApprovals(ids: ReadonlySet<string> | undefined, report: Report, log: (line: string) => void): void {
  if (!ids || ids.size === 0) return;
  const known = new Set(report.outcomes.flatMap((o) => [o.id, o.fingerprint]));
  for (const id of ids) if (!known.has(id)) log(`tollgate: --approve ${id} matched no action of this run`);
}
