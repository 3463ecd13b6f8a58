import type { Argv } from "yargs";
import { InputError, TollgateError } from "../errors.js";
import { asError, messageOf } from "../errors.js";

/** Thrown by yargs' fail handler: usage errors exit 2. */
class UsageError extends TollgateError {
  constructor(message: string) {
    super(message, 2);
  }
}

type SetExit = (code: number) => void;
/** Loads a command's module; the function it returns registers the command with yargs. */
type CommandOf = (setExit: SetExit) => Promise<(cli: Argv) => Argv>;

/**
 * Every command's module, by the name it is invoked with, in the order `--help` lists them. A
 * run names its command first (`tollgate run …`): then only that module loads; anything else
 * (`tollgate --help`, an unknown or misspelt command) registers them all.
 */
const COMMANDS: Record<string, CommandOf> = {
  run: async (set) => {
    const { runCommand } = await import("./commands/run.js");
    return (cli) => cli.command(runCommand(set));
  },
  validate: async (set) => {
    const { validateCommand } = await import("./commands/validate.js");
    return (cli) => cli.command(validateCommand(set));
  },
  tools: async (set) => {
    const { toolsCommand } = await import("./commands/tools.js");
    return (cli) => cli.command(toolsCommand(set));
  },
  schema: async (set) => {
    const { schemaCommand } = await import("./commands/schema.js");
    return (cli) => cli.command(schemaCommand(set));
  },
  recover: async (set) => {
    const { recoverCommand } = await import("./commands/recover.js");
    return (cli) => cli.command(recoverCommand(set));
  },
  test: async (set) => {
    const { testCommand } = await import("./commands/test.js");
    return (cli) => cli.command(testCommand(set));
  },
  plan: async (set) => {
    const { planCommand } = await import("./commands/plan.js");
    return (cli) => cli.command(planCommand(set));
  },
  apply: async (set) => {
    const { applyCommand } = await import("./commands/apply.js");
    return (cli) => cli.command(applyCommand(set));
  },
  "merge-reports": async (set) => {
    const { mergeReportsCommand } = await import("./commands/merge-reports.js");
    return (cli) => cli.command(mergeReportsCommand(set));
  },
  campaign: async (set) => {
    const { campaignCommand } = await import("./commands/campaign.js");
    return (cli) => cli.command(campaignCommand(set));
  },
};

/** Parses argv, runs one command, returns the exit code. Errors are caught here, once. */
export async function main(argv: string[]): Promise<number> {
  (await import("./argv.js")).setArgv(argv);
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const first = argv[0];
  const names = first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : Object.keys(COMMANDS);
  const [{ default: yargs }, ...commands] = await Promise.all([import("yargs"), ...names.map((name) => COMMANDS[name]!(setExit))]);
  try {
    const cli = yargs(argv);
    skipHelpCache(cli);
    for (const register of commands) register(cli);
    await cli
      .scriptName("tollgate")
      .usage("$0 <command> [options]\n\nRun codemod recipes: preview every change, gate it by policy, apply, report.")
      .demandCommand(1, "Name a command: run, plan, apply, validate, tools, schema, test, recover, merge-reports, campaign")
      .strict()
      .recommendCommands()
      .version(false)
      .option("version", { alias: "v", type: "boolean", describe: "Show the version" })
      .help()
      .alias("help", "h")
      .wrap(Math.min(100, process.stderr.columns ?? 100))
      .exitProcess(false)
      .fail((msg, err, y) => {
        if (err) throw err;
        const unknown = /^Unknown arguments?: (.+)$/.exec(msg ?? "");
        if (unknown) {
          // The third argument is yargs' usage object: its descriptions are the options of the command that failed.
          const known = Object.keys((y as unknown as { getDescriptions(): Record<string, unknown> }).getDescriptions());
          throw new UsageError(unknownArguments(unknown[1]!.split(", "), known));
        }
        // recommendCommands fails with only "Did you mean X?", before strict mode names the
        // unknown command: name it, so `tollgate tool` does not read as a bare question.
        if (msg?.startsWith("Did you mean")) {
          const given = argv.find((a) => !a.startsWith("-"));
          throw new UsageError(`Unknown command: ${given ?? ""}. ${msg}`);
        }
        throw new UsageError(msg ?? "Invalid usage");
      })
      .parseAsync();
  } catch (err) {
    if (err instanceof InputError && githubFormat(argv, process.env)) {
      const { inputErrorAnnotations } = await import("../github/annotations.js");
      process.stdout.write(
        inputErrorAnnotations(err.issues, process.env)
          .map((l) => `${l}\n`)
          .join(""),
      );
    }
    return reportError(err);
  }
  return exitCode;
}

/**
 * yargs renders a command's whole help text as its handler starts, in case a failure later wants
 * to show it (~20-80 ms of text layout on every run); tollgate's fail handler never shows help, and
 * `--help` renders it afresh. Guarded: an internal of yargs 18.
 */
function skipHelpCache(cli: unknown): void {
  const usage = (cli as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } })
    .getInternalMethods?.()
    .getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

/** `--format github`, or GitHub Actions without another `--format` (as the run decides). */
function githubFormat(argv: string[], env: NodeJS.ProcessEnv): boolean {
  const i = argv.findIndex((a) => a === "--format" || a.startsWith("--format="));
  const format = i === -1 ? undefined : argv[i]!.includes("=") ? argv[i]!.slice("--format=".length) : argv[i + 1];
  return format === "github" || (format === undefined && env.GITHUB_ACTIONS === "true");
}

export function reportError(thrown: unknown): number {
  const err = asError(thrown);
  if (err instanceof TollgateError) {
    process.stderr.write(`${err instanceof UsageError ? "tollgate: " : ""}${err.message}\n`);
    if (err instanceof UsageError) process.stderr.write("Run tollgate --help for usage.\n");
    return err.exitCode;
  }
  process.stderr.write(`tollgate: internal error: ${messageOf(err)}\n`);
  if (process.env.TOLLGATE_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return 3;
}

/** `Unknown argument: polcy. Did you mean --policy?`: the nearest option of the command, if close. */
export function unknownArguments(given: readonly string[], known: readonly string[]): string {
  const options = known.filter((k) => k.length > 1 && k !== "$0" && !/[A-Z]/.test(k));
  return given
    .map((arg) => {
      const bare = arg.replace(/^-+/, "");
      let best: { name: string; d: number } | undefined;
      for (const name of options) {
        const d = distance(bare, name);
        if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best.d)) best = { name, d };
      }
      return `Unknown argument: ${arg}${best ? `. Did you mean --${best.name}?` : ""}`;
    })
    .join("\ntollgate: ");
}

/** Levenshtein distance (short option names: the quadratic table is tiny). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
