import { OPTIONS, RUN_OPTIONS, type OptionName } from "./options.js";

/** The arguments of a command as the command's `run` receives them (what yargs' parse gives). */
export type ParsedArgs = Record<string, unknown> & { _: (string | number)[] };

/**
 * What yargs would make of the plainest `run` command lines — the ones a pre-commit hook passes:
 * positionals, and run's options spelled `--name` (a boolean) or `--name VALUE` (one value, not
 * starting with `-`). Anything else (`--name=value`, `--no-name`, short, repeated or array
 * options, a boolean followed by `true`/`false`, `--help`, `--`) is undefined and yargs parses it;
 * so does a line without positionals (yargs' error for it). Loading and running yargs is a good
 * part of a hook's start-up.
 */
export function quickParse(argv: readonly string[]): ParsedArgs | undefined {
  if (argv[0] !== "run") return undefined;
  const parsed: ParsedArgs = { _: ["run"] };
  const positionals: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    const name = arg.slice(2);
    if (!arg.startsWith("--") || !(RUN_OPTIONS as readonly string[]).includes(name) || Object.hasOwn(parsed, name)) return undefined;
    const option: { type?: string; array?: boolean; choices?: readonly string[] } = OPTIONS[name as OptionName];
    const next = argv[i + 1];
    if (option.type === "boolean") {
      if (next === "true" || next === "false") return undefined;
      setOption(parsed, name, true);
      continue;
    }
    if (option.array || next === undefined || next === "" || next.startsWith("-")) return undefined;
    if (option.choices && !option.choices.includes(next)) return undefined;
    setOption(parsed, name, next);
    i++;
  }
  if (positionals.length === 0) return undefined;
  return Object.assign(parsed, { positionals, $0: "tollgate" });
}

/** yargs sets a hyphenated option under its camel-case name too (`dry-run`, `dryRun`). */
function setOption(parsed: ParsedArgs, name: string, value: unknown): void {
  parsed[name] = value;
  if (name.includes("-")) parsed[name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
}
