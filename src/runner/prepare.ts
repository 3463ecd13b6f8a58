import path from "node:path";
import { createCustomToolAPI } from "../custom/api.js";
import { loadCustomToolModule, ToolLoadError } from "../custom/loader.js";
import { InputError, type Issue } from "../errors.js";
import { createExec } from "../subprocess.js";
import { silentLogger } from "../logger.js";
import { DEFAULT_POLICY, loadPolicy, type Policy } from "../policy/policy.js";
import { applyVarOverrides, checkSteps, readRecipe, type Recipe } from "../recipe/load.js";
import { locate } from "../config/yaml.js";
import { Session } from "../session/session.js";
import { fileSpill } from "../spill/store.js";
import type { ToolHost } from "../tools/host.js";
import { builtinTools } from "../tools/index.js";
import { displayPath } from "../util/inside.js";
import { ensureStateDirSync } from "../workspace/journal.js";
import { Workspace } from "../workspace/workspace.js";
import type { PreparedRun, RunInput, RunWorld } from "./types.js";

/**
 * Loads and checks everything a run needs — recipe, policy, custom tools, every step's
 * parameters — without running a step. Throws InputError (exit 2) with every problem found.
 */
export async function prepareRun(input: RunInput, world: RunWorld): Promise<PreparedRun> {
  const base = world.displayBase ?? process.cwd();
  const cwd = path.resolve(world.cwd);
  const recipeDisplay = displayPath(path.resolve(input.recipePath), base);
  const policy = input.policy ?? (input.policyPath ? await loadPolicy(input.policyPath, displayPath(path.resolve(input.policyPath), base)) : DEFAULT_POLICY);
  const effectivePolicy: Policy = input.mode ? { ...policy, default: input.mode } : policy;
  const { recipe: partial, raw } = await readRecipe(input.recipePath, recipeDisplay);
  partial.vars = applyVarOverrides(partial.vars, input.vars ?? []);

  const issues: Issue[] = [];
  const located = partial.located;
  if (!effectivePolicy.allow.customTools && partial.tools.length > 0) {
    issues.push({
      file: recipeDisplay,
      ...locate(located, ["tools"]),
      path: "tools",
      message: "Custom tool modules are not allowed by the policy (allow.customTools: false)",
    });
  }
  raw.steps.forEach((step, i) => {
    if (step.tool === "exec" && !effectivePolicy.allow.exec) {
      issues.push({
        file: recipeDisplay,
        ...locate(located, ["steps", i, "tool"]),
        path: `steps[${i}].tool`,
        message: "exec steps are not allowed by the policy (allow.exec: false)",
      });
    }
    if (step.tool === "jscodeshift" && !effectivePolicy.allow.customTools) {
      // A transform is code like a custom tool module.
      issues.push({
        file: recipeDisplay,
        ...locate(located, ["steps", i, "tool"]),
        path: `steps[${i}].tool`,
        message: "jscodeshift steps run transform modules, which the policy does not allow (allow.customTools: false)",
      });
    }
  });
  if (issues.length > 0) throw new InputError(issues);

  const workspace = new Workspace({
    root: cwd,
    // Diffs of staged changes wait on disk, in the workspace's state directory, until the
    // outputs are assembled.
    spill: fileSpill(() => [path.join(ensureStateDirSync(cwd), "tmp")]),
    protect: effectivePolicy.protect,
    atomic: Boolean(input.atomic && !input.dryRun && !input.check),
    ...(world.fs ? { fs: world.fs } : {}),
  });
  // Inactive until the run starts: a factory that pushes while it is loaded gets the
  // "store unavailable" error, in run, validate and tools alike.
  const session = new Session({ cwd, active: false, ...(world.now ? { now: world.now } : {}) });
  const logger = world.logger ?? silentLogger;
  const exec = world.exec ?? createExec(cwd);
  const host: ToolHost = {
    cwd,
    workspace,
    push: (a) => session.pushPendingAction(a),
    exec,
    scope: input.scope ?? {},
    logger,
    recipeDir: path.dirname(path.resolve(input.recipePath)),
    displayBase: base,
    ...(world.cache ? { cache: world.cache } : {}),
  };
  for (const tool of builtinTools(host)) session.register(tool);
  let currentTool: string | undefined;
  session.on((e) => {
    if (e.type === "call_start") currentTool = e.tool;
    if (e.type === "call_end") currentTool = undefined;
  });
  const pi = createCustomToolAPI({
    cwd,
    workspace,
    exec,
    allowExec: effectivePolicy.allow.exec,
    logger,
    push: (a) => session.pushPendingAction(a),
    late: () => session.lateReason(),
    scope: host.scope,
    currentTool: () => currentTool,
  });
  for (const modulePath of partial.tools) {
    try {
      const tools = await loadCustomToolModule(modulePath, pi, new Set(session.tools.keys()), displayPath(modulePath, base), partial.toolLoadTimeout);
      for (const tool of tools) session.register(tool);
    } catch (err) {
      if (err instanceof ToolLoadError) throw new InputError(err.message);
      throw err;
    }
  }
  const checked = checkSteps(partial, raw, session.tools);
  if (checked.issues.length > 0) throw new InputError(checked.issues);
  for (const step of checked.steps) {
    const tool = session.tools.get(step.tool);
    if (!tool?.check) continue;
    const found = await tool.check(step.with);
    for (const issue of found) checked.issues.push(issue.file ? issue : { file: recipeDisplay, ...locate(located, ["steps", step.index, "with"]), ...issue });
  }
  if (checked.issues.length > 0) throw new InputError(checked.issues);
  const recipe: Recipe = { ...partial, steps: checked.steps };
  return { input, world: { ...world, cwd }, recipe, policy: effectivePolicy, tools: session.tools, session, workspace };
}
