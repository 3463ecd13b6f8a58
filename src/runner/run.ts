import path from "node:path";
import { createCustomToolAPI } from "../custom/api.js";
import { loadCustomToolModule, ToolLoadError } from "../custom/loader.js";
import { InputError, messageOf, type Issue } from "../errors.js";
import { createExec, type ExecFn } from "../exec.js";
import { gitState } from "../git.js";
import { silentLogger, type Logger } from "../logger.js";
import { DEFAULT_POLICY, loadPolicy, type Policy } from "../policy/policy.js";
import type { PolicyDecision } from "../policy/schema.js";
import { applyVarOverrides, checkSteps, readRecipe, type Recipe } from "../recipe/load.js";
import { locate } from "../recipe/yaml.js";
import type { OutcomeRecord, Report, StepRecord } from "../report/types.js";
import { buildReport } from "../report/build.js";
import type { Preview } from "../report/patch.js";
import { fileSpill } from "../spill/store.js";
import { ensureStateDirSync } from "../workspace/journal.js";
import { Session, type ToolCallRecord } from "../session/session.js";
import type { PendingAction, Tool } from "../session/types.js";
import { joinText } from "../session/types.js";
import type { FileScope } from "../scope.js";
import type { ToolHost } from "../tools/host.js";
import { builtinTools } from "../tools/index.js";
import { Workspace, type WorkspaceFs } from "../workspace/workspace.js";
import { startRun } from "../workspace/recover.js";
import { checkRecipePatterns } from "./patterns.js";
import { resolvePending, type ApprovalSources, type PromptState, type Resolved, type ResolutionContext } from "./resolution.js";
import type { ResolveParams } from "../session/resolve.js";
import { relativeInside } from "../util/inside.js";

export interface RunOptions {
  recipePath: string;
  /** Workspace root: tools read and write only inside it. */
  cwd: string;
  policyPath?: string;
  /** The policy already loaded from `policyPath` (apply reads it once, to check its hash). */
  policy?: Policy;
  dryRun?: boolean;
  /** `--check`: implies dry-run; exit 1 when anything was staged. */
  check?: boolean;
  /** `--mode`: overrides the policy's default decision. */
  mode?: PolicyDecision;
  vars?: string[];
  scope?: FileScope;
  approvals?: Partial<ApprovalSources>;
  command?: string;
  logger?: Logger;
  exec?: ExecFn;
  fs?: WorkspaceFs;
  now?: () => number;
  signal?: AbortSignal;
  /** `--atomic`: when any action fails (or the run is interrupted), roll back every applied one. */
  atomic?: boolean;
  /** For display in messages: paths relative to this directory (the user's shell cwd). */
  displayBase?: string;
  planGate?: ResolutionContext["planGate"];
  /** Progress hooks for the CLI. */
  onStepStart?: (step: { id: string; tool: string; index: number; total: number }) => void;
  onStepEnd?: (step: StepRecord, index: number, total: number) => void;
  onOutcome?: (record: OutcomeRecord) => void;
  /** A running tool's progress text (from its onUpdate calls), for a live display. */
  onProgress?: (info: { stepId: string; tool: string; text: string }) => void;
}

export interface RunResult {
  report: Report;
  exitCode: number;
  /** Unapplied previews (dry-run, pending-approval) with file changes, in push order: `--patch`. */
  previews: Preview[];
  /**
   * Removes the run's spill file. The report's diffs are read from it: serialize (or copy)
   * what is needed first. `runRecipe` does this for library callers.
   */
  dispose(): void;
}

export interface PreparedRun {
  recipe: Recipe;
  policy: Policy;
  tools: Map<string, Tool>;
  session: Session;
  workspace: Workspace;
}

export { VERSION } from "../version.js";

function display(file: string, base: string): string {
  return relativeInside(base, file) !== undefined ? path.relative(base, file) : file;
}

/**
 * Loads and checks everything a run needs — recipe, policy, custom tools, every step's
 * parameters — without running a step. Throws InputError (exit 2) with every problem found.
 */
export async function prepareRun(options: RunOptions): Promise<PreparedRun> {
  const base = options.displayBase ?? process.cwd();
  const cwd = path.resolve(options.cwd);
  const recipeDisplay = display(path.resolve(options.recipePath), base);
  const policy =
    options.policy ??
    (options.policyPath ? await loadPolicy(options.policyPath, display(path.resolve(options.policyPath), base)) : DEFAULT_POLICY);
  const effectivePolicy: Policy = options.mode ? { ...policy, default: options.mode } : policy;
  const { recipe: partial, raw } = await readRecipe(options.recipePath, recipeDisplay);
  partial.vars = applyVarOverrides(partial.vars, options.vars ?? []);

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
      // A transform is code like a custom tool module (SPEC 3.3).
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
    atomic: Boolean(options.atomic && !options.dryRun && !options.check),
    ...(options.fs ? { fs: options.fs } : {}),
  });
  // Inactive until the run starts: a factory that pushes while it is loaded gets the seed's
  // "store unavailable" error (SPEC 1.3), in run, validate and tools alike.
  const session = new Session({ cwd, active: false, ...(options.now ? { now: options.now } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  const logger = options.logger ?? silentLogger;
  const exec = options.exec ?? createExec(cwd);
  const host: ToolHost = {
    cwd,
    workspace,
    push: (a) => session.pushPendingAction(a),
    exec,
    scope: options.scope ?? {},
    logger,
    recipeDir: path.dirname(path.resolve(options.recipePath)),
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
      const tools = await loadCustomToolModule(modulePath, pi, new Set(session.tools.keys()), display(modulePath, base));
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
    const found = await tool.check(step.with as never);
    for (const issue of found) checked.issues.push(issue.file ? issue : { file: recipeDisplay, ...locate(located, ["steps", step.index, "with"]), ...issue });
  }
  if (checked.issues.length > 0) throw new InputError(checked.issues);
  const recipe: Recipe = { ...partial, steps: checked.steps };
  return { recipe, policy: effectivePolicy, tools: session.tools, session, workspace };
}

/**
 * A tool's `details` as the JSON report can hold them: a custom tool may return a BigInt, a
 * cycle or a getter that throws, which must not cost the run its report. BigInts become
 * strings, a repeated ancestor "[Circular]"; anything else unserializable, its message.
 */
export function jsonSafe(value: unknown): unknown {
  const ancestors: object[] = [];
  try {
    return JSON.parse(
      JSON.stringify(value, function (this: unknown, _key, v: unknown) {
        if (typeof v === "bigint") return v.toString();
        if (v === null || typeof v !== "object") return v;
        // `this` is the object holding v: drop ancestors that are not on v's path
        while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        if (ancestors.includes(v)) return "[Circular]";
        ancestors.push(v);
        return v;
      }) ?? "null",
    );
  } catch (err) {
    return { unserializable: messageOf(err) };
  }
}

function stepRecord(record: ToolCallRecord): StepRecord {
  return {
    id: record.stepId,
    tool: record.tool,
    toolCallId: record.toolCallId,
    params: record.params,
    status: record.result.isError ? "error" : "ok",
    resultText: joinText(record.result),
    details: jsonSafe(record.result.details ?? null),
    actions: record.pushed.map((a) => a.meta?.id ?? ""),
    durationMs: record.durationMs,
  };
}

/**
 * Runs a prepared recipe: steps in order, resolution points, one report. Holds the workspace lock
 * (not for a dry-run, which writes nothing) and refuses to start while an unrecovered journal is
 * there (RunError, exit 3).
 */
export async function executeRun(prepared: PreparedRun, options: RunOptions): Promise<RunResult> {
  await checkRecipePatterns(prepared.recipe, display(prepared.recipe.file, options.displayBase ?? process.cwd()));
  const guard = startRun(prepared.workspace.root, {
    lock: !(options.dryRun || options.check),
    command: `tollgate ${options.command ?? "run"}`,
  });
  try {
    return await executeLocked(prepared, options);
  } finally {
    guard.release();
  }
}

async function executeLocked(prepared: PreparedRun, options: RunOptions): Promise<RunResult> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  // The tree the run started from (the run's own writes would make it dirty at the end).
  const git = await gitState(prepared.workspace.root);
  const { recipe, policy, session, workspace } = prepared;
  // The session was built before the run's interrupt signal existed (prepareRun): a step that
  // is running when SIGINT/SIGTERM arrives (an exec command, a long scan) must see it too.
  if (options.signal && options.signal !== session.signal) {
    session.signal = session.signal ? AbortSignal.any([session.signal, options.signal]) : options.signal;
  }
  session.start();
  const forceDryRun = Boolean(options.dryRun || options.check);
  const ctx: ResolutionContext = {
    session,
    workspace,
    policy,
    forceDryRun,
    applyTimeoutMs: recipe.applyTimeout,
    // The reason says what the user asked for: `--check`, `plan`, or `--dry-run`.
    forcedBy: options.command === "plan" ? "plan" : options.check ? "--check" : "--dry-run",
    approvals: {
      ids: options.approvals?.ids ?? new Set(),
      approveAll: options.approvals?.approveAll ?? false,
      file: options.approvals?.file ?? new Map(),
      ...(options.approvals?.prompt ? { prompt: options.approvals.prompt } : {}),
    },
    now,
    ...(options.planGate ? { planGate: options.planGate } : {}),
    ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const resolved: Resolved[] = [];
  const resolve = async (stepId: string, requested?: ResolveParams): Promise<Resolved[]> => {
    const out = await resolvePending(ctx, state, stepId, requested);
    resolved.push(...out);
    outcomes.push(...out.map((r) => r.record));
    return out;
  };
  const pushOrder = new Map<PendingAction, number>();
  const unsubscribe = session.on((e) => {
    if (e.type === "action_pushed") pushOrder.set(e.action, pushOrder.size);
    if (e.type === "update" && options.onProgress) {
      const text = joinText(e.partial);
      const tool = recipe.steps.find((s) => s.id === e.stepId)?.tool ?? "";
      if (text) options.onProgress({ stepId: e.stepId, tool, text });
    }
  });
  const state: PromptState = { applyAll: false, stopAsking: false };
  const steps: StepRecord[] = [];
  const outcomes: OutcomeRecord[] = [];
  let interrupted = false;
  const total = recipe.steps.length;
  // `resolve: step` resolves after every step, before the next tool runs. An explicit resolve
  // step that comes next is that resolution (the agent's forced `resolve` call): the point waits
  // for it, and resolves what is still pending before the next tool (or at the end).
  const stepPoint = async (index: number, id: string) => {
    if (recipe.resolve !== "step" || recipe.steps[index + 1]?.tool === "resolve") return;
    await resolve(`${id}/resolve`);
  };
  for (const [index, step] of recipe.steps.entries()) {
    if (options.signal?.aborted) {
      interrupted = true;
      break;
    }
    options.onStepStart?.({ id: step.id, tool: step.tool, index: step.index, total });
    if (step.tool === "resolve") {
      const requested = step.with as { action: "apply" | "discard"; reason: string };
      if (!session.store.hasPending) {
        const record = await session.call("resolve", requested, step.id);
        const rec = stepRecord(record);
        steps.push(rec);
        options.onStepEnd?.(rec, step.index, total);
        await stepPoint(index, step.id);
        continue;
      }
      const last = (await resolve(step.id, requested)).at(-1)!.record;
      const failed = ["failed", "stale", "blocked"].includes(last.outcome);
      const rec: StepRecord = {
        id: step.id,
        tool: "resolve",
        toolCallId: last.resolveToolCallId,
        params: requested,
        status: failed ? "error" : "ok",
        resultText: last.resultText,
        details: last.details,
        actions: [],
        durationMs: last.durationMs,
      };
      steps.push(rec);
      options.onStepEnd?.(rec, step.index, total);
      await stepPoint(index, step.id);
      continue;
    }
    // A timeout, or a call that can never settle, is an error result of the call itself (SPEC 8).
    const record = await session.call(step.tool, step.with, step.id, { timeoutMs: step.timeout });
    const rec = stepRecord(record);
    steps.push(rec);
    options.onStepEnd?.(rec, step.index, total);
    await stepPoint(index, step.id);
  }
  // Every pending action is finalized through resolve, so the stack is empty when a run ends
  // (after an interrupt too: the rest are discarded with reason "interrupted").
  await resolve("end/resolve");
  if (options.signal?.aborted) interrupted = true;
  const atomic = workspace.atomic ? await finishAtomic(workspace, outcomes, steps, interrupted) : null;
  unsubscribe();
  session.end();
  const report = buildReport({
    recipe,
    policy,
    options,
    steps,
    outcomes,
    startedAt,
    durationMs: now() - startedAt,
    interrupted,
    git,
  });
  if (atomic) report.run.atomic = atomic;
  workspace.spill.seal();
  const previews = resolved
    .filter(({ action, record }) => action.changes && (record.outcome === "dry-run" || record.outcome === "pending-approval"))
    .sort((a, b) => (pushOrder.get(a.action) ?? 0) - (pushOrder.get(b.action) ?? 0))
    .map(({ record, changes }) => ({ id: record.id, files: changes }));
  return { report, exitCode: report.exitCode, previews, dispose: () => workspace.spill.dispose() };
}

/**
 * `--atomic` at the end of a run: on any failure — an action failed, stale or blocked, a step
 * error (a tool that threw, a timeout, a resolve on an empty stack: the run exits 3 either way),
 * or an interrupt — every applied action is rolled back and marked so; otherwise the run journal
 * is committed. All or nothing: a run that fails half-way must not leave half its changes.
 */
async function finishAtomic(
  workspace: Workspace,
  outcomes: OutcomeRecord[],
  steps: readonly StepRecord[],
  interrupted: boolean,
): Promise<NonNullable<Report["run"]["atomic"]>> {
  const failed = outcomes.find((o) => o.outcome === "failed" || o.outcome === "stale" || o.outcome === "blocked");
  const failedStep = steps.find((s) => s.status === "error");
  let why = failed
    ? `${failed.id} ${failed.outcome}`
    : failedStep
      ? `step ${failedStep.id} failed`
      : interrupted
        ? "the run was interrupted"
        : undefined;
  if (!why) {
    try {
      await workspace.commitRun();
      return { rolledBack: false, files: [], error: null };
    } catch (err) {
      why = `the run journal could not be removed: ${messageOf(err)}`;
    }
  }
  try {
    const files = await workspace.rollbackRun();
    for (const o of outcomes) {
      if (o.outcome !== "applied") continue;
      o.rolledBack = true;
      o.error = `Rolled back (--atomic): ${why}`;
    }
    return { rolledBack: true, files, error: null };
  } catch (err) {
    return { rolledBack: false, files: [], error: messageOf(err) };
  }
}

/**
 * The library's one call: prepare, run, and hand back a report that owns its diffs (they are
 * read out of the spill before it is removed).
 */
export async function runRecipe(options: RunOptions): Promise<RunResult> {
  const result = await executeRun(await prepareRun(options), options);
  for (const o of result.report.outcomes) Object.defineProperty(o, "diff", { value: o.diff, enumerable: true, writable: true, configurable: true });
  const previews = result.previews.map((p) => ({ ...p, files: p.files.map((f) => ({ ...f, diff: memoryText(f.diff.text()) })) }));
  result.dispose();
  return { ...result, previews, dispose: () => {} };
}

function memoryText(text: string): { bytes: number; text(): string } {
  return { bytes: Buffer.byteLength(text), text: () => text };
}
