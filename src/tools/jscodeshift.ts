import path from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { StaleError, ToolError } from "../errors.js";
import { discoverFiles, type Discovery } from "../discovery/index.js";
import type { AgentToolResult, CheckIssue, EditRequest, FileChange, Tool, ToolUpdateCallback } from "../domain/types.js";
import { textResult } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import { editBetween } from "../workspace/change.js";
import type { Workspace } from "../workspace/workspace.js";
import type { ToolHost } from "./host.js";
import { resolveTransform, type ResolvedTransform } from "./jscodeshift/resolve.js";
import { failureText, resultLines, stepLabel, tallyOutcomes, type FileOutcome, type StepSummary } from "./jscodeshift/outcomes.js";
import type { LoadReply } from "./jscodeshift/protocol.js";
import type { TransformPool } from "./jscodeshift/pool.js";
import { ONE_WORKER, workersFor, type WorkerSettings } from "./jscodeshift/workers.js";
import { displayPath } from "../util/inside.js";
import { plural } from "../util/plural.js";
import { messageOf } from "../util/thrown.js";
import { nodeProcess } from "../process-host.js";

const JSCODESHIFT_PARSERS = ["babel", "babylon", "flow", "ts", "tsx"] as const;

const jscodeshiftParameters = Type.Object(
  {
    transform: Type.String({
      description:
        "Transform module: a path relative to the recipe, or a package specifier resolved from the workspace (react-codemod/transforms/rename-unsafe-lifecycles.js)",
    }),
    parser: Type.Optional(
      Type.Union(
        JSCODESHIFT_PARSERS.map((p) => Type.Literal(p)),
        { description: "Parser (default babel); a parser the transform exports wins" },
      ),
    ),
    options: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "Options handed to the transform (as jscodeshift's --flags), over the CLI's defaults" }),
    ),
    path: Type.Optional(Type.String({ description: "File, directory, or glob pattern to transform (default: cwd)" })),
    glob: Type.Optional(Type.String({ description: "Optional glob filter relative to path" })),
    extensions: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String())], {
        description: "File extensions to transform (comma-separated or a list); default as the jscodeshift CLI's",
      }),
    ),
    allowErrors: Type.Optional(Type.Boolean({ description: "true: files whose transform threw (or timed out) are listed, but the step is not an error" })),
    fileTimeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Milliseconds the transform may take over one file (default 120000); a file that takes longer fails with that reason and its worker is replaced",
      }),
    ),
  },
  { additionalProperties: false },
);

type JscodeshiftParams = Static<typeof jscodeshiftParameters>;

interface JscodeshiftDetails {
  jscodeshift: { version: string };
  transform: string;
  /** The module file, relative to the workspace root when inside it. */
  transformFile: string;
  parser: string;
  /** The transform's own exported parser, which wins over `parser`. */
  transformParser?: string;
  extensions: string[];
  workers: number;
  filesSearched: number;
  filesChanged: number;
  filesUnchanged: number;
  filesSkipped: number;
  changed: string[];
  /** Files whose transform returned nothing (the first 1000). */
  skipped: string[];
  errors: Array<{ path: string; error: string }>;
  reports: Array<{ path: string; message: string }>;
  stats: Record<string, number>;
  /** Files that could not be read as text (binary, non-UTF-8, too large). */
  unreadable?: Array<{ path: string; reason: string }>;
}

/** Babel's DEFAULT_EXTENSIONS as 7.x has them, with ts and tsx: the CLI's default before a worker says. */
const CLI_EXTENSIONS = ["cjs", "es", "es6", "js", "jsx", "mjs", "ts", "tsx"];

function extensionList(value: JscodeshiftParams["extensions"], fallback: () => string[]): string[] {
  if (value === undefined) return fallback();
  const raw = Array.isArray(value) ? value : value.split(",");
  const list = raw.map((e) => e.trim().replace(/^\./, "")).filter((e) => e !== "");
  if (list.length === 0) throw new ToolError("`extensions` must name at least one extension");
  return list;
}

/** What a step of the tool works with: the host, the workers' settings, and the tool's one pool. */
interface StepWorld {
  host: ToolHost;
  workers: WorkerSettings;
  pool(): Promise<TransformPool>;
}

/** The files a step transforms: `path`/`glob` in the scope, with one of `extensions`. */
async function targetFiles(host: ToolHost, params: JscodeshiftParams, extensions: readonly string[]): Promise<Discovery["files"]> {
  const exts = new Set(extensions.map((e) => `.${e}`));
  const found = await discoverFiles({
    root: host.workspace.root,
    path: params.path,
    glob: params.glob,
    scope: host.scope,
    gitTimeoutMs: host.gitTimeoutMs,
    env: host.process?.env,
    accept: (rel) => exts.has(path.posix.extname(rel)),
  });
  return found.files;
}

/** Where the step's transform is (relative to the recipe, or a package of the workspace). */
function transformOf(host: ToolHost, spec: string): ResolvedTransform {
  return resolveTransform(spec, host.recipeDir ?? host.workspace.root, host.workspace.root);
}

/**
 * Runs a jscodeshift transform over the files: every changed file goes into one
 * pending action; files whose transform threw are listed and make the step an error unless
 * `allowErrors`. The transform runs in worker processes (./jscodeshift/pool.ts) whose working
 * directory is the workspace root; they are the only place jscodeshift and Babel are loaded.
 * The tool's workers are shared by its steps, and by the check that loads the transform first.
 */
export function createJscodeshiftTool(host: ToolHost): Tool<typeof jscodeshiftParameters, JscodeshiftDetails> {
  const workers = host.jscodeshift ?? ONE_WORKER;
  let pool: TransformPool | undefined;
  const world: StepWorld = {
    host,
    workers,
    pool: async () => (pool ??= new (await import("./jscodeshift/pool.js")).TransformPool(workers.execArgv, host.process ?? nodeProcess())),
  };
  return {
    name: "jscodeshift",
    label: "Jscodeshift",
    description:
      "Run a jscodeshift transform module (react-codemod, your own) over files, exactly as jscodeshift's worker calls it. Preview only: stages one pending action with every changed file.",
    parameters: jscodeshiftParameters,
    deferrable: true,
    runs: { kind: "modules", noun: "transform modules" },
    check: (params) => checkStep(world, params),
    execute: (_id, params, onUpdate, _ctx, signal) => executeStep(world, params, onUpdate, signal),
  };
}

/**
 * The transform resolves, loads in a worker and exports a function (it is not called). While it
 * loads, the step's files are counted: a step over enough files for more workers gets them
 * started now, ready when it runs.
 */
async function checkStep(world: StepWorld, params: JscodeshiftParams): Promise<CheckIssue[]> {
  const { checkTransform } = await import("./jscodeshift/check.js");
  let mod: ResolvedTransform;
  try {
    mod = transformOf(world.host, params.transform);
  } catch (err) {
    return [{ message: messageOf(err) }];
  }
  const countFiles = async () =>
    (
      await targetFiles(
        world.host,
        params,
        extensionList(params.extensions, () => CLI_EXTENSIONS),
      )
    ).length;
  const prewarm = { workers: (files: number) => workersFor(files, world.workers), countFiles };
  return checkTransform(await world.pool(), params.transform, mod, world.host.workspace.root, params.fileTimeout, prewarm);
}

async function executeStep(
  world: StepWorld,
  params: JscodeshiftParams,
  onUpdate: ToolUpdateCallback | undefined,
  signal: AbortSignal | undefined,
): Promise<AgentToolResult<JscodeshiftDetails>> {
  if (typeof params.transform !== "string" || params.transform.trim() === "") throw new ToolError("`transform` must be a non-empty string");
  if (params.fileTimeout !== undefined && (!Number.isInteger(params.fileTimeout) || params.fileTimeout < 1))
    throw new ToolError("`fileTimeout` must be a positive whole number of milliseconds");
  let mod: ResolvedTransform;
  try {
    mod = transformOf(world.host, params.transform);
  } catch (err) {
    throw new ToolError(messageOf(err));
  }
  const pool = await world.pool();
  try {
    return await runStep(world, pool, mod, params, { onUpdate, signal });
  } finally {
    // Workers end with their step (a failed load included): see ./jscodeshift/pool.ts.
    await pool.close();
  }
}

/** The step's transform, loaded in a worker; a ToolError unless it loads and exports a function. */
async function loadTransform(pool: TransformPool, mod: ResolvedTransform, root: string, params: JscodeshiftParams, fileTimeoutMs: number): Promise<LoadReply> {
  const loaded = await pool.load(mod, root, fileTimeoutMs);
  if (!loaded.ok) throw new ToolError(`Failed to load jscodeshift transform ${params.transform}: ${loaded.error}`);
  if (!loaded.isFunction)
    throw new ToolError(`jscodeshift transform ${params.transform} does not export a function (module.exports = fn or export default fn)`);
  return loaded;
}

interface Progress {
  onUpdate: ToolUpdateCallback | undefined;
  signal: AbortSignal | undefined;
}

async function runStep(
  world: StepWorld,
  pool: TransformPool,
  mod: ResolvedTransform,
  params: JscodeshiftParams,
  progress: Progress,
): Promise<AgentToolResult<JscodeshiftDetails>> {
  const { host } = world;
  const root = host.workspace.root;
  const lib = await import("./jscodeshift/pool.js");
  const fileTimeoutMs = params.fileTimeout ?? lib.DEFAULT_FILE_TIMEOUT_MS;
  const loaded = await loadTransform(pool, mod, root, params, fileTimeoutMs);
  const extensions = extensionList(params.extensions, () => lib.defaultExtensions(loaded.babelExtensions));
  const parser = params.parser ?? "babel";
  const options: Record<string, unknown> = {
    ...lib.cliDefaults(loaded.babelExtensions),
    transform: params.transform,
    ...(params.extensions !== undefined ? { extensions: extensions.join(",") } : {}),
    parser,
    ...(params.options ?? {}),
  };
  const files = await targetFiles(host, params, extensions);
  const workers = workersFor(files.length, world.workers);
  const collector = new StepCollector(host.workspace, files, progressUpdate(params.transform, files.length, progress.onUpdate));
  try {
    const settings = { cwd: root, workers, fileTimeoutMs, ...(progress.signal ? { signal: progress.signal } : {}) };
    await pool.run(mod, collector.poolFiles(), options, settings, (index, outcome) => collector.settle(index, outcome));
  } catch (err) {
    throw new ToolError(messageOf(err) === "Aborted" ? "Aborted" : `jscodeshift failed: ${messageOf(err)}`);
  }
  const tally = tallyOutcomes(files, collector.outcomes);
  const changes = await collector.changes(tally);
  const details: JscodeshiftDetails = {
    jscodeshift: { version: lib.jscodeshiftVersion() },
    transform: params.transform,
    transformFile: displayPath(mod.file, root),
    parser,
    ...(loaded.parser !== undefined ? { transformParser: loaded.parser } : {}),
    extensions,
    workers,
    filesSearched: files.length,
    filesChanged: changes.length,
    filesUnchanged: tally.unchanged,
    filesSkipped: tally.skipped,
    changed: changes.map((c) => c.path),
    skipped: tally.skippedFiles,
    errors: tally.errors,
    reports: tally.reports,
    stats: tally.stats,
    ...(tally.unreadable.length > 0 ? { unreadable: tally.unreadable } : {}),
  };
  return stepResult(host, params, details, changes);
}

/** Tells `onUpdate` how far the step is, at most every 100 ms and when the last file is done. */
function progressUpdate(transform: string, total: number, onUpdate: ToolUpdateCallback | undefined): (done: number) => void {
  let last = 0;
  return (done) => {
    const now = Date.now();
    if (!onUpdate || (now - last <= 100 && done !== total)) return;
    last = now;
    onUpdate(textResult(`jscodeshift ${transform}: ${done}/${total} files`));
  };
}

type Staging = { changes: FileChange[] } | { stale: true } | { error: unknown };

/**
 * A step's files while the workers run them. A changed file is staged as soon as its result
 * arrives: its edit against the text the transform saw and that text's sha256 (staging checks
 * it: a file changed meanwhile is an error, not a change staged against the wrong text). Texts
 * are held only while their file is in flight; the changes are assembled in file order
 * afterwards, so the order results arrive in changes nothing.
 */
export class StepCollector {
  readonly outcomes: Array<FileOutcome | undefined>;
  readonly #inFlight = new Map<string, { text: string; sha256: string }>();
  readonly #staging = new Map<number, Promise<Staging>>();
  #done = 0;

  constructor(
    readonly workspace: Workspace,
    readonly files: ReadonlyArray<{ rel: string }>,
    readonly onProgress: (done: number) => void = () => {},
  ) {
    this.outcomes = new Array<FileOutcome | undefined>(files.length);
  }

  /** The files as the pool takes them: each read just before it is sent. */
  poolFiles(): Array<{ rel: string; read(): Promise<string> }> {
    return this.files.map((f) => ({
      rel: f.rel,
      read: async () => {
        const r = await this.workspace.read(f.rel);
        this.#inFlight.set(f.rel, { text: r.text, sha256: r.sha256 });
        return r.text;
      },
    }));
  }

  /** A file's outcome: kept (without the output), and a changed file staged. */
  settle(index: number, outcome: FileOutcome): void {
    const rel = this.files[index]!.rel;
    const seen = this.#inFlight.get(rel);
    this.#inFlight.delete(rel);
    if (outcome.type === "done" && outcome.status === "changed" && seen) {
      this.#staging.set(index, this.#stage({ path: rel, beforeSha256: seen.sha256, edits: editBetween(seen.text, outcome.output!) }));
      delete outcome.output;
    }
    this.outcomes[index] = outcome;
    this.onProgress(++this.#done);
  }

  #stage(request: EditRequest): Promise<Staging> {
    return this.workspace.stageEdits([request]).then(
      (changes) => ({ changes }),
      (error: unknown) => (error instanceof StaleError ? { stale: true as const } : { error }),
    );
  }

  /** The staged changes of the tally's changed files, in file order; a file changed meanwhile is added to its errors. */
  async changes(tally: { changed: readonly number[]; errors: Array<{ path: string; error: string }> }): Promise<FileChange[]> {
    const out: FileChange[] = [];
    for (const i of tally.changed) {
      const staged = await this.#staging.get(i);
      if (!staged) continue;
      if ("error" in staged) throw staged.error;
      if ("stale" in staged) tally.errors.push({ path: this.files[i]!.rel, error: "The file changed while the transform ran; run the step again" });
      else out.push(...staged.changes);
    }
    this.#staging.clear();
    return out;
  }
}

/** The step's result: one pending action with every changed file, and an error result when files failed (unless allowErrors). */
function stepResult(host: ToolHost, params: JscodeshiftParams, details: JscodeshiftDetails, changes: FileChange[]): AgentToolResult<JscodeshiftDetails> {
  const summary: StepSummary = {
    transform: params.transform,
    transformParser: details.transformParser,
    files: details.filesSearched,
    changed: details.changed,
    unchanged: details.filesUnchanged,
    skipped: details.filesSkipped,
    errors: details.errors,
    unreadable: details.unreadable ?? [],
    reports: details.reports,
    stats: details.stats,
  };
  const lines = resultLines(summary);
  if (changes.length > 0) {
    host.push(
      createFileAction(host.workspace, {
        label: stepLabel(params.transform, changes.length),
        sourceToolName: "jscodeshift",
        changes,
        details: { ...details },
        appliedText: (written) => `Applied jscodeshift ${params.transform} to ${plural(written.length, "file")}.`,
      }),
    );
  }
  const result = textResult(lines.join("\n"), details);
  if (details.errors.length === 0 || params.allowErrors) return result;
  return { ...result, content: [{ type: "text", text: failureText(summary, lines) }], isError: true } as AgentToolResult<JscodeshiftDetails>;
}
