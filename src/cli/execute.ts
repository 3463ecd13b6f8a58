// A run as the CLI drives it (run, plan, apply): progress and prompt on stderr, signals, then the
// report, patch, summary, SARIF files and stdout.
import { TollgateError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import type { Report } from "../report/types.js";
import type { PlanGate, PreparedRun, RunEvent, RunInput, RunResult, RunWorld } from "../runner/types.js";

import { colorEnabled, colors, type Colors } from "../term.js";
import type { Invocation } from "./command.js";
import { formatOf, type Format } from "./options.js";
import { writeOutputs, type OutputArgs } from "./outputs.js";
import { createReporter } from "./reporter.js";
import { divertStdout } from "./stdout.js";

/** A run as the CLI starts it: what to run, in which world, and apply's plan gate. */
export interface CliRun {
  input: RunInput;
  world: RunWorld;
  gate?: PlanGate;
}

interface RunExtras {
  /** plan/apply: adds their blocks to the report before it is written. */
  finish?: (report: Report) => Promise<Report>;
  /** plan: what the policy would decide for an action, shown on its line. */
  wouldDecide?: (id: string) => string | undefined;
  /** plan: sees every event before the reporter does. */
  onEvent?: (event: RunEvent) => void;
}

type Reporter = ReturnType<typeof createReporter>;

/** What the run's stderr shows: colours, and the reporter that owns the progress lines. */
interface Screen {
  c: Colors;
  format: Format;
  reporter: Reporter;
}

/**
 * Runs with the CLI's progress, prompt, report/patch/summary files and stdout format; returns
 * the exit code. SIGINT/SIGTERM (or Ctrl-C at the prompt, which raw mode turns into a key):
 * finish (or roll back) the action being applied, apply nothing more, write the report, exit
 * 130. A second signal exits at once (the journal then lets `recover` clean up).
 */
export async function executeWithOutputs(run: CliRun, args: OutputArgs & { color?: boolean }, invocation: Invocation, extra: RunExtras = {}): Promise<number> {
  const screen = screenFor(args, invocation.env, run.world.cwd, extra.wouldDecide);
  const { prepareRun } = await import("../runner/run.js");
  // The run log (custom tools' pi.logger) goes to stderr with the progress, never to stdout.
  const { createLogger } = await import("../logger.js");
  const restoreStdout = divertStdout();
  const prepared = await prepareRun(run.input, { ...run.world, logger: run.world.logger ?? createLogger(screen.reporter.log) }).catch((err: unknown) => {
    restoreStdout();
    throw err;
  });
  const stops = await stopControls(screen.reporter);
  try {
    const result = await execute(prepared, run, { screen, stops, env: invocation.env, reportFile: args.report, onEvent: extra.onEvent });
    restoreStdout(); // the run's user code is done: stdout is the machine output's again
    await run.world.cache?.close();
    try {
      const report = extra.finish ? await extra.finish(result.report) : result.report;
      await finishRun(report, result, { screen, args, invocation, approved: run.input.approvals?.ids });
      return report.exitCode;
    } finally {
      result.dispose();
    }
  } finally {
    restoreStdout();
    screen.reporter.pause();
    stops.dispose();
  }
}

function screenFor(args: { format?: Format; color?: boolean }, env: NodeJS.ProcessEnv, cwd: string, wouldDecide: RunExtras["wouldDecide"]): Screen {
  const format = formatOf(args.format, env);
  const c = colors(colorEnabled(process.stderr, args.color, env));
  const reporter = createReporter({
    colors: c,
    stream: process.stderr,
    live: Boolean(process.stderr.isTTY) && !env.CI && env.TERM !== "dumb",
    showDiffs: format === "text",
    cwd,
    ...(wouldDecide ? { wouldDecide } : {}),
  });
  return { c, format, reporter };
}

/** The run's two ways to stop: a signal (SIGINT, SIGTERM, SIGHUP), and Ctrl-C or a hang-up at the prompt. */
interface Stops {
  interrupts: AbortSignal;
  atPrompt: AbortController;
  signal: AbortSignal;
  dispose(): void;
}

/** The terminal is gone: what is still written to it must not fail the run's ending. */
function ignoreClosedTerminal(): void {
  for (const stream of [process.stderr, process.stdout]) stream.on("error", () => {});
}

async function stopControls(reporter: Reporter): Promise<Stops> {
  const { handleInterrupts } = await import("./interrupt.js");
  const interrupts = handleInterrupts({
    onInterrupt: (sig) => {
      if (sig === "SIGHUP") ignoreClosedTerminal();
      reporter.pause();
      process.stderr.write(`\ntollgate: ${sig}: stopping after the current action (again to force)\n`);
    },
    // Said with the first signal: the second ends the process before anything could be written.
    onForce: () => process.stderr.write("tollgate: a second signal ends the process at once; if files were being written then, run `tollgate recover`\n"),
  });
  const atPrompt = new AbortController();
  return { interrupts: interrupts.signal, atPrompt, signal: AbortSignal.any([interrupts.signal, atPrompt.signal]), dispose: () => interrupts.dispose() };
}

interface ExecuteContext {
  screen: Screen;
  stops: Stops;
  env: NodeJS.ProcessEnv;
  reportFile: string | undefined;
  onEvent: RunExtras["onEvent"];
}

/** Executes the prepared run with the prompt (when a person can answer) and the plan gate. */
async function execute(prepared: PreparedRun, run: CliRun, ctx: ExecuteContext): Promise<RunResult> {
  const { screen, stops } = ctx;
  const { executeRun } = await import("../runner/run.js");
  const { interactiveApprover } = await import("./prompt.js");
  const prompt = interactiveApprover(ctx.env, screen.c, {
    onInterrupt: () => {
      process.stderr.write("\ntollgate: interrupted at the prompt; applying nothing more\n");
      stops.atPrompt.abort();
    },
    signal: stops.interrupts,
    root: run.world.cwd,
    onHangup: () => {
      ignoreClosedTerminal();
      stops.atPrompt.abort();
    },
    beforePrompt: (staged) => screen.reporter.beforePrompt(staged.id),
  });
  const started = Date.now();
  return executeRun(prepared, {
    signal: stops.signal,
    ...(prompt ? { approver: prompt } : {}),
    ...(run.gate ? { gate: run.gate } : {}),
    onEvent: (event) => {
      ctx.onEvent?.(event);
      screen.reporter.event(event);
    },
  }).catch(async (err: unknown) => {
    // A run that cannot start (lock held, unrecovered journal) still leaves a report (exit 3).
    if (!(err instanceof TollgateError) || err.exitCode !== EXIT.failure || !ctx.reportFile) throw err;
    const { failedStartReport } = await import("../report/build.js");
    const report = failedStartReport(
      { recipe: prepared.recipe, policy: prepared.policy, options: { ...run.input, cwd: run.world.cwd }, startedAt: started, durationMs: Date.now() - started },
      err.message,
    );
    await writeOutputs(report, { report: ctx.reportFile }, { env: ctx.env });
    throw err;
  });
}

/** The summary line, how to move on, the output files and stdout. */
async function finishRun(
  report: Report,
  result: RunResult,
  ctx: { screen: Screen; args: OutputArgs; invocation: Invocation; approved: ReadonlySet<string> | undefined },
): Promise<void> {
  const { screen, invocation } = ctx;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  screen.reporter.done(report);
  const { nextSteps } = await import("./hints.js");
  for (const line of nextSteps(report, invocation.argv)) log(screen.c.yellow(line));
  warnUnmatchedApprovals(ctx.approved, report, log);
  await writeOutputs(report, { ...ctx.args, format: screen.format }, { env: invocation.env, log, previews: result.previews });
}

/**
 * An `--approve` value that names no action of the run (a typo, an id from another plan) would
 * otherwise go unnoticed while the action it meant stays pending: say so on stderr.
 */
function warnUnmatchedApprovals(ids: ReadonlySet<string> | undefined, report: Report, log: (line: string) => void): void {
  if (!ids || ids.size === 0) return;
  const known = new Set(report.outcomes.flatMap((o) => [o.id, o.fingerprint]));
  for (const id of ids) if (!known.has(id)) log(`tollgate: --approve ${id} matched no action of this run`);
}
