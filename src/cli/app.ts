import type { Argv } from "yargs";
import { InputError, TollgateError } from "../errors.js";
import { asError, messageOf } from "../util/thrown.js";
import { EXIT } from "../exit-codes.js";
import { optionNames, register, type CommandSpec, type Invocation } from "./command.js";
import { formatOf, type Format } from "./options.js";
import { nodeProcess } from "../process-host.js";
import { quickParse, type ParsedArgs } from "./quick-parse.js";

/** Thrown by yargs' fail handler: usage errors exit 2. */
class UsageError extends TollgateError {
  constructor(message: string) {
    super(message, EXIT.input);
  }
}

/**
 * Every command's module, by the name it is invoked with, in the order `--help` lists them. A
 * run names its command first (`tollgate run …`): then only that module loads; anything else
 * (`tollgate --help`, options first) loads them all.
 */
const COMMANDS: Record<string, () => Promise<CommandSpec>> = {
  run: async () => (await import("./commands/run.js")).runCommand,
  plan: async () => (await import("./commands/plan.js")).planCommand,
  apply: async () => (await import("./commands/apply.js")).applyCommand,
  validate: async () => (await import("./commands/validate.js")).validateCommand,
  tools: async () => (await import("./commands/tools.js")).toolsCommand,
  schema: async () => (await import("./commands/schema.js")).schemaCommand,
  test: async () => (await import("./commands/test.js")).testCommand,
  recover: async () => (await import("./commands/recover.js")).recoverCommand,
  "merge-reports": async () => (await import("./commands/merge-reports.js")).mergeReportsCommand,
  campaign: async () => (await import("./commands/campaign.js")).campaignCommand,
};

const ABOUT = "Run codemod recipes: preview every change, gate it by policy, apply, report.";

/** Parses argv, runs one command, returns its exit code. Errors are caught here, once. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const invocation: Invocation = { argv: [...argv], env, process: nodeProcess() };
  let format: Format | undefined;
  try {
    const name = commandName(argv);
    // A hook's plain `run` line needs neither yargs nor any other command's module.
    const quick = name === "run" ? quickParse(argv) : undefined;
    const { parsed, specs } = quick ? { parsed: quick, specs: new Map([["run", await COMMANDS.run!()]]) } : await parseCommandLine(argv, name);
    if (parsed.help === true) return EXIT.ok;
    format = formatOf(parsed.format as Format | undefined, env);
    const spec = commandOf(specs, parsed._.map(String));
    return await spec.run!(parsed, invocation);
  } catch (err) {
    if (err instanceof InputError && format === "github") {
      const { inputErrorAnnotations } = await import("../github/annotations.js");
      process.stdout.write(
        inputErrorAnnotations(err.issues, env)
          .map((l) => `${l}\n`)
          .join(""),
      );
    }
    return reportError(err, env);
  }
}

/** The command line as yargs parses it, with the modules of the commands it may run. */
export async function parseCommandLine(argv: string[], name = commandName(argv)): Promise<{ parsed: ParsedArgs; specs: Map<string, CommandSpec> }> {
  const names = name !== undefined ? [name] : Object.keys(COMMANDS);
  const [{ default: yargs }, ...loaded] = await Promise.all([import("yargs"), ...names.map((n) => COMMANDS[n]!())]);
  const specs = new Map(names.map((n, i) => [n, loaded[i]!]));
  return { parsed: await parse(yargs(argv), specs), specs };
}

/**
 * The command named first, if any; a first word that names none is a usage error that suggests
 * the nearest command (`tollgate tool`: `Did you mean tools?`).
 */
function commandName(argv: readonly string[]): string | undefined {
  const first = argv[0];
  if (first === undefined || first.startsWith("-")) return undefined;
  if (Object.hasOwn(COMMANDS, first)) return first;
  const near = nearest(first, Object.keys(COMMANDS));
  throw new UsageError(`Unknown command: ${first}${near ? `. Did you mean ${near}?` : ""}`);
}

/** The spec that runs: the command named, or its subcommand named second (`campaign pr`). */
function commandOf(specs: ReadonlyMap<string, CommandSpec>, words: readonly string[]): CommandSpec {
  let spec = specs.get(words[0] ?? "");
  for (const word of words.slice(1)) spec = spec?.subcommands?.[word] ?? spec;
  if (!spec?.run) throw new UsageError(`Name a command: ${Object.keys(COMMANDS).join(", ")}`);
  return spec;
}

/** Registers the commands (their usage lines listed in the top-level help) and parses. */
async function parse(cli: Argv, specs: ReadonlyMap<string, CommandSpec>): Promise<Awaited<ReturnType<Argv["parseAsync"]>>> {
  for (const [name, spec] of specs) register(cli, name, spec);
  const width = Math.min(100, process.stderr.columns ?? 100);
  const known = [...specs.values()].flatMap(optionNames);
  return cli
    .scriptName("tollgate")
    .usage(`$0 <command> [options]\n\n${ABOUT}`)
    .epilogue(specs.size > 1 ? `Commands:\n${commandList(specs)}` : "")
    .demandCommand(1, `Name a command: ${Object.keys(COMMANDS).join(", ")}`)
    .strict()
    .version(false)
    .option("version", { alias: "v", type: "boolean", describe: "Show the version" })
    .help()
    .alias("help", "h")
    .wrap(width)
    .exitProcess(false)
    .fail((msg, err) => {
      if (err) throw err;
      const unknown = /^Unknown arguments?: (.+)$/.exec(msg ?? "");
      if (unknown) throw new UsageError(unknownArguments(unknown[1]!.split(", "), known));
      throw new UsageError(msg ?? "Invalid usage");
    })
    .parseAsync();
}

/**
 * One line per command, its usage and what it does: a tab separates the two columns, which the
 * help layout aligns and wraps.
 */
function commandList(specs: ReadonlyMap<string, CommandSpec>): string {
  return [...specs.values()].map((s) => `  tollgate ${s.usage}\t${s.describe}`).join("\n");
}

function reportError(thrown: unknown, env: NodeJS.ProcessEnv = process.env): number {
  const err = asError(thrown);
  if (err instanceof TollgateError) {
    process.stderr.write(`${err instanceof UsageError ? "tollgate: " : ""}${err.message}\n`);
    if (err instanceof UsageError) process.stderr.write("Run tollgate --help for usage.\n");
    return err.exitCode;
  }
  process.stderr.write(`tollgate: internal error: ${messageOf(err)}\n`);
  if (env.TOLLGATE_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  return EXIT.failure;
}

/** `Unknown argument: polcy. Did you mean --policy?`: the nearest option of the command, if close. */
function unknownArguments(given: readonly string[], known: readonly string[]): string {
  const options = known.filter((k) => k.length > 1 && k !== "$0" && !/[A-Z]/.test(k));
  return given
    .map((arg) => {
      const near = nearest(arg.replace(/^-+/, ""), options);
      return `Unknown argument: ${arg}${near ? `. Did you mean --${near}?` : ""}`;
    })
    .join("\ntollgate: ");
}

/** The name closest to `given`, if it is close (a third of its letters at most differ). */
function nearest(given: string, names: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(given, name);
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
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
