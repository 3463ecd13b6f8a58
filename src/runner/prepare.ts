import path from "node:path";
import { createCustomToolAPI } from "../custom/api.js";
import { customToolLoader, ToolLoadError } from "../custom/loader.js";
import { InputError, type Issue } from "../errors.js";
import { createExec } from "../subprocess.js";
import { silentLogger } from "../logger.js";
import { DEFAULT_POLICY, loadPolicy, type Policy } from "../policy/policy.js";
import { applyVarOverrides, checkSteps as checkStepShapes, readRecipe, type Recipe } from "../recipe/load.js";
import type { RecipeFile } from "../recipe/schema.js";
import { locate } from "../config/yaml.js";
import { Session } from "../session/session.js";
import { fileSpill } from "../spill/store.js";
import type { ToolHost } from "../tools/host.js";
import { builtinTools } from "../tools/index.js";
import type { CheckOptions } from "../domain/types.js";
import { displayPath } from "../util/inside.js";
import { ensureStateDirSync } from "../workspace/journal.js";
import { Workspace } from "../workspace/workspace.js";
import { nodeProcess, type ProcessHost } from "../process-host.js";
import { checkSteps, policyIssues, type CheckedSteps, type RecipePlace } from "./checks.js";
import type { PreparedRun, RunInput, RunWorld } from "./types.js";

/** `file` as messages show it: relative to `base` when inside it; as given without a base. */
const display = (file: string, base: string | undefined): string => (base === undefined ? file : displayPath(file, base));

/** What `validate` found: the recipe's steps, and the problems of their parameters. */
export interface Validation extends CheckedSteps {
  steps: number;
}

/**
 * Loads and checks everything a run needs — recipe, policy, what the policy allows the steps to
 * run, custom tools, every step's parameters against its schema and its tool's own check —
 * without running a step. Throws InputError (exit 2) with every problem found.
 */
export async function prepareRun(input: RunInput, world: RunWorld): Promise<PreparedRun> {
  const { prepared, checked } = await prepareChecked(input, world, { paths: false });
  if (checked.errors.length > 0) throw new InputError(checked.errors);
  return prepared;
}

/**
 * `validate`: what prepareRun checks, and also that the steps' paths exist now. The steps'
 * problems are returned (errors and warnings); those of the recipe, the policy or a custom tool
 * module, which stop the checks before the steps', throw InputError. Runs nothing.
 */
export async function validateRun(input: RunInput, world: RunWorld): Promise<Validation> {
  const { prepared, checked } = await prepareChecked(input, world, { paths: true });
  prepared.session.end();
  return { steps: prepared.recipe.steps.length, ...checked };
}

async function prepareChecked(input: RunInput, given: RunWorld, options: CheckOptions): Promise<{ prepared: PreparedRun; checked: CheckedSteps }> {
  // The one default of the process for a library caller that passes none: the run's parts all get this one.
  const world = { ...given, cwd: path.resolve(given.cwd), process: given.process ?? nodeProcess() };
  const recipeDisplay = display(path.resolve(input.recipePath), world.displayBase);
  const policy = await policyOf(input, world.displayBase);
  const { recipe: partial, raw } = await readRecipe(input.recipePath, recipeDisplay);
  partial.vars = applyVarOverrides(partial.vars, input.vars ?? []);
  const place: RecipePlace = { file: recipeDisplay, located: partial.located };
  const { session, workspace, pi } = createRuntime(input, world, policy);
  const issues = [...customToolIssues(partial.tools, policy, place), ...policyIssues(raw.steps, session.tools, policy.allow, place)];
  if (issues.length > 0) throw new InputError(issues);
  await loadCustomTools(partial, session, pi, world);
  const steps = stepsOf(partial, raw, session, policy, place);
  const checked = await checkSteps(steps, session.tools, options, place);
  const recipe: Recipe = { ...partial, steps };
  return { prepared: { input, world, recipe, policy, tools: session.tools, session, workspace }, checked };
}

/** The policy in force: the one given, read or the default, with `--mode` over its default. */
async function policyOf(input: RunInput, base: string | undefined): Promise<Policy> {
  const policy = input.policy ?? (input.policyPath ? await loadPolicy(input.policyPath, display(path.resolve(input.policyPath), base)) : DEFAULT_POLICY);
  return input.mode ? { ...policy, default: input.mode } : policy;
}

function customToolIssues(tools: readonly string[], policy: Policy, at: RecipePlace): Issue[] {
  if (policy.allow.customTools || tools.length === 0) return [];
  return [
    { file: at.file, ...locate(at.located, ["tools"]), path: "tools", message: "Custom tool modules are not allowed by the policy (allow.customTools: false)" },
  ];
}

/** The steps with their `with` checked against their tools' schemas, and what the policy allows custom tools to run. */
function stepsOf(partial: Omit<Recipe, "steps">, raw: RecipeFile, session: Session, policy: Policy, at: RecipePlace): Recipe["steps"] {
  const shapes = checkStepShapes(partial, raw, session.tools);
  if (shapes.issues.length > 0) throw new InputError(shapes.issues);
  // Built-in tools were refused before the custom modules loaded; a custom tool may declare `runs` too.
  const refused = policyIssues(raw.steps, session.tools, policy.allow, at);
  if (refused.length > 0) throw new InputError(refused);
  return shapes.steps;
}

interface Runtime {
  session: Session;
  workspace: Workspace;
  pi: ReturnType<typeof createCustomToolAPI>;
}

/** The workspace, the session with the built-in tools registered, and custom tools' API. */
function createRuntime(input: RunInput, world: RunWorld & { process: ProcessHost }, policy: Policy): Runtime {
  const cwd = world.cwd;
  const workspace = new Workspace({
    root: cwd,
    // Diffs of staged changes wait on disk, in the workspace's state directory, until the
    // outputs are assembled.
    spill: fileSpill(() => [path.join(ensureStateDirSync(cwd), "tmp")]),
    protect: policy.protect,
    atomic: Boolean(input.atomic && !input.dryRun && !input.check),
    process: world.process,
    ...(world.fs ? { fs: world.fs } : {}),
  });
  // Inactive until the run starts: a factory that pushes while it is loaded gets the
  // "store unavailable" error, in run, validate and tools alike.
  const session = new Session({ cwd, active: false, process: world.process, ...(world.now ? { now: world.now } : {}) });
  const logger = world.logger ?? silentLogger;
  const exec = world.exec ?? createExec(cwd, world.process);
  const host: ToolHost = {
    cwd,
    workspace,
    push: (a) => session.pushPendingAction(a),
    exec,
    scope: input.scope ?? {},
    logger,
    recipeDir: path.dirname(path.resolve(input.recipePath)),
    ...(world.displayBase !== undefined ? { displayBase: world.displayBase } : {}),
    ...(world.cache ? { cache: world.cache } : {}),
    ...(world.jscodeshift ? { jscodeshift: world.jscodeshift } : {}),
    ...(world.gitTimeoutMs !== undefined ? { gitTimeoutMs: world.gitTimeoutMs } : {}),
    ...(world.ast ? { ast: world.ast } : {}),
    process: world.process,
  };
  for (const tool of builtinTools(host)) session.register(tool);
  const pi = createCustomToolAPI({
    cwd,
    workspace,
    exec,
    allowExec: policy.allow.exec,
    logger,
    push: (a) => session.pushPendingAction(a),
    late: () => session.lateReason(),
    scope: host.scope,
    currentTool: currentToolOf(session),
  });
  return { session, workspace, pi };
}

/** The name of the tool whose call is running in `session`, as its events say. */
function currentToolOf(session: Session): () => string | undefined {
  let current: string | undefined;
  session.on((e) => {
    if (e.type === "call_start") current = e.tool;
    if (e.type === "call_end") current = undefined;
  });
  return () => current;
}

async function loadCustomTools(partial: Omit<Recipe, "steps">, session: Session, pi: Runtime["pi"], world: RunWorld & { process: ProcessHost }): Promise<void> {
  const loader = customToolLoader(world.process);
  for (const modulePath of partial.tools) {
    try {
      const tools = await loader.load(modulePath, pi, new Set(session.tools.keys()), display(modulePath, world.displayBase), partial.toolLoadTimeout);
      for (const tool of tools) session.register(tool);
    } catch (err) {
      if (err instanceof ToolLoadError) throw new InputError(err.message);
      throw err;
    }
  }
}
