import type { Argv, Options, PositionalOptions } from "yargs";
import { OPTIONS, type OptionName } from "./options.js";
import type { ProcessHost } from "../process-host.js";

/** One invocation of the CLI: what it was given. Created by `main`, handed to the command it runs. */
export interface Invocation {
  /** The command line after `tollgate` (the next-step hint echoes it back). */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The process the command runs in, made once by `main` and passed to what it runs. */
  readonly process: ProcessHost;
}

/**
 * A command: its usage, its options (shared ones by name, see options.ts; its own declared here)
 * and `run`, which returns the exit code. Errors it throws are caught once, by `main`.
 */
export interface CommandSpec<A = object> {
  /** yargs' parse string: the name and the positionals as parsed. */
  command: string;
  /** The usage line `--help` shows, after `tollgate` (`run <recipe> [files..] [options]`). */
  usage: string;
  describe: string;
  positionals?: Record<string, PositionalOptions>;
  /** Shared options, by name (options.ts). */
  shared?: readonly OptionName[];
  /** Options only this command has. */
  own?: Record<string, Options & { describe: string }>;
  examples?: ReadonlyArray<readonly [string, string]>;
  /** Subcommands (`campaign pr`): the one named second on the command line runs. */
  subcommands?: Record<string, CommandSpec>;
  /** Method syntax on purpose: a command's own argument type stands in for the parsed arguments. */
  run?(args: A, invocation: Invocation): Promise<number>;
}

/** The names of every option a command takes (an unknown one is matched against them). */
export function optionNames(spec: CommandSpec): string[] {
  return [...(spec.shared ?? []), ...Object.keys(spec.own ?? {}), ...Object.values(spec.subcommands ?? {}).flatMap(optionNames), "help", "version"];
}

/** Registers the command's usage, positionals and options with yargs (no handler: `main` runs it). */
export function register(cli: Argv, name: string, spec: CommandSpec, parent = ""): Argv {
  return cli.command(spec.command, false, (y) => {
    let out = y.usage(`$0 ${parent}${spec.usage} [options]\n\n${spec.describe}`);
    for (const [key, positional] of Object.entries(spec.positionals ?? {})) out = out.positional(key, positional);
    for (const key of spec.shared ?? []) out = out.option(key, OPTIONS[key] as Options);
    for (const [key, option] of Object.entries(spec.own ?? {})) out = out.option(key, option);
    for (const [command, description] of spec.examples ?? []) out = out.example(command, description);
    for (const [sub, subspec] of Object.entries(spec.subcommands ?? {})) out = register(out, sub, subspec, `${parent}${name} `);
    if (spec.subcommands) out = out.demandCommand(1, `Name a ${name} subcommand: ${Object.keys(spec.subcommands).join(", ")}`);
    return out;
  });
}
