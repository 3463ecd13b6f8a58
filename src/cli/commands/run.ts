import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { InputError } from "../../errors.js";
import type { PolicyDecision } from "../../policy/schema.js";
import type { RecipeSource } from "../../changed/inputs.js";
import type { ChangedScope } from "../../scope.js";
import type { RunInput, RunWorld } from "../../runner/types.js";
import type { CommandSpec, Invocation } from "../command.js";
import { executeWithOutputs, type CliRun } from "../execute.js";
import { RUN_OPTIONS, formatOf, type Format } from "../options.js";
import { relativeInside } from "../../util/inside.js";
import { toPosix } from "../../util/inside.js";
import type { Env } from "../../process-host.js";

export interface RunArgs {
  recipe?: string;
  policy?: string;
  "dry-run"?: boolean;
  check?: boolean;
  report?: string;
  patch?: string;
  summary?: string;
  sarif?: string;
  format?: Format;
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

export async function buildRun(args: RunArgs & { positionals: string[]; out?: string }, command: string, invocation: Invocation): Promise<CliRun> {
  const { recipe, files } = recipeAndFiles(args);
  const cwd = path.resolve(args.cwd ?? ".");
  const { checkWorkspaceDir } = await import("../../workspace/root.js");
  checkWorkspaceDir(cwd, args.cwd);
  await checkFilesExist(files, cwd);
  const scopeFiles = files.map((f) => toPosix(path.relative(cwd, path.resolve(cwd, f))));
  const shard = parseShard(args.shard);
  const changed =
    args["changed-since"] !== undefined
      ? await changedScope(args["changed-since"], {
          cwd,
          recipePath: path.resolve(recipe),
          policyPath: args.policy,
          vars: args.var ?? [],
          env: invocation.process.env,
        })
      : undefined;
  const input: RunInput = {
    recipePath: path.resolve(recipe),
    command,
    ...(args.policy ? { policyPath: path.resolve(args.policy) } : {}),
    ...(await decisionsOf(args, invocation.env)),
    vars: args.var ?? [],
    scope: {
      ...(scopeFiles.length > 0 ? { files: scopeFiles } : {}),
      ...(shard ? { shard } : {}),
      ...(changed ? { changed } : {}),
      exclude: outputExcludes(cwd, [args.report, args.patch, args.summary, args.sarif, args.out]),
    },
    // The report's git fields are read only from its JSON: a plan file, --report, --format json.
    provenance: command !== "run" || args.report !== undefined || formatOf(args.format, invocation.env) === "json",
  };
  return {
    input,
    world: {
      cwd,
      displayBase: process.cwd(),
      process: invocation.process,
      ...(await cacheWorld(args, cwd, invocation.env)),
      ...(await machineWorld(invocation.env)),
    },
  };
}

/**
 * How the structural engine may use this machine: TOLLGATE_AST_THREADS caps the parses under
 * way (0: all on the main thread; not a number: automatic), and the full collections that free
 * dead syntax trees (V8's `gc`, exposed on first use).
 */
function astTuning(env: NodeJS.ProcessEnv): NonNullable<RunWorld["ast"]> {
  const raw = env.TOLLGATE_AST_THREADS;
  const n = raw !== undefined && raw.trim() !== "" ? Number(raw) : Number.NaN;
  let collect: (() => void) | null | undefined;
  const gc = () => {
    collect ??= exposedGc();
    collect?.();
  };
  return { ...(Number.isFinite(n) ? { threads: Math.max(0, Math.floor(n)) } : {}), gc };
}

function exposedGc(): (() => void) | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc") as () => void;
  } catch {
    return null;
  }
}

/** A file named on the command line that does not exist is a typo, not "nothing to change". */
async function checkFilesExist(files: readonly string[], cwd: string): Promise<void> {
  const { existsSync } = await import("node:fs");
  const missing = files.filter((f) => !existsSync(path.resolve(cwd, f)));
  if (missing.length === 0) return;
  throw new InputError(
    missing.map((f) => ({
      message: `${f}: no such file (files named on the command line are relative to the workspace root ${cwd}: --cwd, default the working directory)`,
    })),
  );
}

/** What run, plan and apply take alike from the decision options (and `--repository`). */
export async function decisionsOf(
  args: RunArgs,
  env: NodeJS.ProcessEnv,
): Promise<Pick<RunInput, "dryRun" | "atomic" | "check" | "mode" | "approvals" | "repository">> {
  const { loadApprovalsFile } = await import("../approvals.js");
  const approvalsFile = args.approvals ? await loadApprovalsFile(args.approvals) : new Map<string, string>();
  return {
    ...repositoryOf(args.repository, env),
    dryRun: Boolean(args["dry-run"]),
    atomic: Boolean(args.atomic),
    check: Boolean(args.check),
    ...(args.mode ? { mode: args.mode } : {}),
    approvals: { ids: approveIds(args.approve), approveAll: Boolean(args["approve-all"]), file: approvalsFile },
  };
}

/** `--changed-since`: the changed scope, said on stderr when an input of the recipe widened it to every file. */
export async function changedScope(ref: string, source: RecipeSource & { exact?: boolean; env: Env }): Promise<ChangedScope> {
  const { resolveChangedScope } = await import("../../changed/index.js");
  const changed = await resolveChangedScope({ ...source, ref });
  const inputs = changed.inputs ?? [];
  if (changed.files === null)
    process.stderr.write(
      `tollgate: --changed-since ${ref}: the recipe's inputs changed (${inputs.slice(0, 5).join(", ")}${inputs.length > 5 ? ", …" : ""}): every file is in scope\n`,
    );
  return changed;
}

/** What the machine holds for the jscodeshift workers (CPUs, memory), the user's choices of them, and TOLLGATE_GIT_TIMEOUT_MS. */
export async function machineWorld(env: NodeJS.ProcessEnv): Promise<Pick<RunWorld, "jscodeshift" | "ast" | "gitTimeoutMs">> {
  const [os, { workerSettings }] = await Promise.all([import("node:os"), import("../../tools/jscodeshift/workers.js")]);
  const machine = { cpus: os.availableParallelism(), totalMemory: os.totalmem(), freeMemory: os.freemem() };
  return {
    jscodeshift: workerSettings(machine, { workers: env.TOLLGATE_JSCODESHIFT_WORKERS, execArgv: process.execArgv, nodeOptions: env.NODE_OPTIONS }),
    ast: astTuning(env),
    ...gitTimeout(env),
  };
}

function gitTimeout(env: NodeJS.ProcessEnv): Pick<RunWorld, "gitTimeoutMs"> {
  const ms = Number(env.TOLLGATE_GIT_TIMEOUT_MS);
  return Number.isFinite(ms) && ms > 0 ? { gitTimeoutMs: ms } : {};
}

/** `--cache`: the result cache the structural tools consult; its MAC key from TOLLGATE_CACHE_KEY when set. */
export async function cacheWorld(args: Pick<RunArgs, "cache" | "cache-location">, cwd: string, env: NodeJS.ProcessEnv): Promise<Pick<RunWorld, "cache">> {
  if (!args.cache) return {};
  const { openResultCache } = await import("../../cache/open.js");
  const cache = openResultCache({
    root: cwd,
    env,
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

/** `<recipe> [files..]`, or with `--recipe FILE` only files (run and plan). */
export const RECIPE_POSITIONALS = {
  positionals: { type: "string", array: true, describe: "<recipe> [files..]: the recipe, then files that restrict every tool" },
} as const;

/** The positionals as strings (yargs gives numbers for numeric words). */
export function withPositionals<A extends { positionals?: unknown[] }>(args: A): A & { positionals: string[] } {
  return { ...args, positionals: (args.positionals ?? []).map(String) };
}

export const runCommand: CommandSpec<RunArgs & { positionals?: unknown[] }> = {
  command: "run [positionals..]",
  usage: "run <recipe> [files..]",
  describe: "Run a recipe: stage, decide by policy, apply, report",
  positionals: RECIPE_POSITIONALS,
  shared: RUN_OPTIONS,
  examples: [
    ["$0 run codemod.yaml --policy policy.yaml --report report.json", "apply as the policy decides"],
    ["$0 run codemod.yaml --check --patch changes.patch", "CI gate: exit 1 if anything would change"],
  ],
  run: async (args, invocation) => executeWithOutputs(await buildRun(withPositionals(args), "run", invocation), args, invocation),
};

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
