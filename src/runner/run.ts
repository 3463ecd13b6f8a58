import { messageOf } from "../util/thrown.js";
import { originRepository } from "../util/remote.js";
import { gitState } from "../git.js";
import { buildReport } from "../report/build.js";
import { STRING_PIECES } from "../report/json.js";
import type { OutcomeRecord, Report, StepRecord } from "../report/types.js";
import type { ResolveParams } from "../session/resolve.js";
import { joinText } from "../domain/types.js";
import { startRun } from "../workspace/recover.js";
import type { Workspace } from "../workspace/workspace.js";
import { prepareRun } from "./prepare.js";
import { stepRecord } from "./records.js";
import { resolvePending, type PromptState, type Resolved, type ResolutionContext } from "./resolution.js";
import type { PreparedRun, RunControls, RunEvent, RunInput, RunResult, RunWorld } from "./types.js";

export { prepareRun, validateRun, type Validation } from "./prepare.js";
export { jsonSafe } from "./records.js";
export type * from "./types.js";

/**
 * The runner's core: runs a prepared recipe — steps in order, resolution points, one report —
 * and returns the result, telling `controls.onEvent` what happens as it happens. Holds the
 * workspace lock (not for a dry-run, which writes nothing) and refuses to start while an
 * unrecovered journal is there (RunError, exit 3).
 */
export async function executeRun(prepared: PreparedRun, controls: RunControls = {}): Promise<RunResult> {
  const { input } = prepared;
  const mayWrite = !(input.dryRun || input.check);
  const guard = startRun(prepared.workspace.root, {
    lock: mayWrite,
    command: `tollgate ${input.command ?? "run"}`,
    ...(prepared.world.process ? { process: prepared.world.process } : {}),
  });
  // The journal's record is written while the steps run, not in front of the first apply.
  if (mayWrite) prepared.workspace.transaction.prepare();
  try {
    return await executeLocked(prepared, controls);
  } finally {
    await prepared.workspace.transaction.close();
    guard.release();
  }
}

/** Where a run's records go as they happen: kept for the report, and told to the consumer. */
interface RunLog {
  steps: StepRecord[];
  outcomes: OutcomeRecord[];
  resolved: Resolved[];
  emit: (event: RunEvent) => void;
}

async function executeLocked(prepared: PreparedRun, controls: RunControls): Promise<RunResult> {
  const { input, world, recipe, policy, session, workspace } = prepared;
  const log: RunLog = { steps: [], outcomes: [], resolved: [], emit: controls.onEvent ?? (() => {}) };
  const { signal } = controls;
  const now = world.now ?? Date.now;
  const startedAt = now();
  // The tree the run started from (the run's own writes would make it dirty at the end).
  const env = world.process?.env ?? {};
  const [git, repository] =
    input.provenance === false
      ? [{ head: null, dirty: null }, input.repository ?? null]
      : await Promise.all([gitState(workspace.root, env), input.repository !== undefined ? input.repository : originRepository(workspace.root, env)]);
  // A step that is running when SIGINT/SIGTERM arrives (an exec command, a long scan) sees it.
  session.start(signal ? { signal } : {});
  const ctx = resolutionContext(prepared, controls, log, now);
  const state: PromptState = { applyAll: false, stopAsking: false };
  const resolve: Resolve = (stepId, requested) => resolvePending(ctx, state, stepId, requested);
  const unsubscribe = forwardCallEvents(prepared, log.emit);
  let interrupted = await runSteps(prepared, resolve, log, signal);
  // Every pending action is finalized through resolve, so the stack is empty when a run ends
  // (after an interrupt too: the rest are discarded with reason "interrupted").
  await resolve("end/resolve");
  if (signal?.aborted) interrupted = true;
  const atomic = workspace.transaction.atomic ? await finishAtomic(workspace, log.outcomes, log.steps, interrupted) : null;
  unsubscribe();
  session.end();
  const report = buildReport({
    recipe,
    policy,
    options: { ...input, cwd: workspace.root, repository },
    steps: log.steps,
    outcomes: log.outcomes,
    startedAt,
    durationMs: now() - startedAt,
    interrupted,
    git,
  });
  if (atomic) report.run.atomic = atomic;
  workspace.spill.seal();
  log.emit({ type: "finished", report });
  return { report, exitCode: report.exitCode, previews: previewsOf(log.resolved), dispose: () => workspace.spill.dispose() };
}

type Resolve = (stepId: string, requested?: ResolveParams) => Promise<Resolved[]>;

function resolutionContext(prepared: PreparedRun, controls: RunControls, log: RunLog, now: () => number): ResolutionContext {
  const { input, recipe, policy, session, workspace } = prepared;
  return {
    session,
    workspace,
    policy,
    forceDryRun: Boolean(input.dryRun || input.check),
    applyTimeoutMs: recipe.applyTimeout,
    // The reason says what the user asked for: `--check`, `plan`, or `--dry-run`.
    forcedBy: input.command === "plan" ? "plan" : input.check ? "--check" : "--dry-run",
    approvals: {
      ids: input.approvals?.ids ?? new Set(),
      approveAll: input.approvals?.approveAll ?? false,
      file: input.approvals?.file ?? new Map(),
    },
    ...(controls.approver ? { approver: controls.approver } : {}),
    now,
    ...(controls.gate ? { gate: controls.gate } : {}),
    onOutcome: (record, r) => {
      log.outcomes.push(record);
      log.resolved.push(r);
      log.emit({ type: "outcome", record });
    },
    ...(controls.signal ? { signal: controls.signal } : {}),
  };
}

/** Tells the consumer what the session's calls staged and their progress; returns the unsubscribe. */
function forwardCallEvents(prepared: PreparedRun, emit: (event: RunEvent) => void): () => void {
  const toolOf = new Map(prepared.recipe.steps.map((s) => [s.id, s.tool]));
  return prepared.session.on((e) => {
    if (e.type === "call_end") for (const staged of e.record.pushed) emit({ type: "action_staged", staged });
    if (e.type === "update") {
      const text = joinText(e.partial);
      if (text) emit({ type: "progress", stepId: e.stepId, tool: toolOf.get(e.stepId) ?? "", text });
    }
  });
}

/** Runs the steps in order with their resolution points; true when interrupted before the last. */
async function runSteps(prepared: PreparedRun, resolve: Resolve, log: RunLog, signal: AbortSignal | undefined): Promise<boolean> {
  const { recipe, session } = prepared;
  const total = recipe.steps.length;
  for (const [index, step] of recipe.steps.entries()) {
    if (signal?.aborted) return true;
    log.emit({ type: "step_started", id: step.id, tool: step.tool, index: step.index, total });
    let record: StepRecord;
    if (step.tool === "resolve" && session.store.hasPending) record = await resolveStep(step.id, step.with as ResolveParams, resolve);
    else {
      // A timeout, or a call that can never settle, is an error result of the call itself.
      // A resolve step on an empty stack is the call's own error.
      const options = step.tool === "resolve" ? {} : { timeoutMs: step.timeout };
      record = stepRecord(await session.call(step.tool, step.with, step.id, options));
    }
    log.steps.push(record);
    log.emit({ type: "step_ended", step: record, index: step.index, total });
    // `resolve: step` resolves after every step, before the next tool runs. An explicit resolve
    // step that comes next is that resolution (the agent's forced `resolve` call): the point
    // waits for it, and resolves what is still pending before the next tool (or at the end).
    if (recipe.resolve === "step" && recipe.steps[index + 1]?.tool !== "resolve") await resolve(`${step.id}/resolve`);
  }
  return false;
}

/** An explicit resolve step over a non-empty stack: its record is the last outcome it led to. */
async function resolveStep(id: string, requested: ResolveParams, resolve: Resolve): Promise<StepRecord> {
  const last = (await resolve(id, requested)).at(-1)!.record;
  const failed = ["failed", "stale", "blocked"].includes(last.outcome);
  return {
    id,
    tool: "resolve",
    toolCallId: last.resolveToolCallId,
    params: requested,
    status: failed ? "error" : "ok",
    resultText: last.resultText,
    details: last.details,
    actions: [],
    durationMs: last.durationMs,
  };
}

/** Unapplied previews (dry-run, pending-approval) with file changes, in push order. */
function previewsOf(resolved: readonly Resolved[]): RunResult["previews"] {
  return resolved
    .filter(({ staged, record }) => staged.action.changes && (record.outcome === "dry-run" || record.outcome === "pending-approval"))
    .sort((a, b) => a.staged.order - b.staged.order)
    .map(({ record, changes }) => ({ id: record.id, files: changes }));
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
  let why = failed ? `${failed.id} ${failed.outcome}` : failedStep ? `step ${failedStep.id} failed` : interrupted ? "the run was interrupted" : undefined;
  if (!why) {
    try {
      await workspace.transaction.commit();
      return { rolledBack: false, files: [], error: null };
    } catch (err) {
      why = `the run journal could not be removed: ${messageOf(err)}`;
    }
  }
  try {
    const files = await workspace.transaction.rollback();
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
export async function runRecipe(input: RunInput, world: RunWorld & RunControls): Promise<RunResult> {
  const { signal, approver, gate, onEvent, ...rest } = world;
  const controls: RunControls = {
    ...(signal ? { signal } : {}),
    ...(approver ? { approver } : {}),
    ...(gate ? { gate } : {}),
    ...(onEvent ? { onEvent } : {}),
  };
  const result = await executeRun(await prepareRun(input, rest), controls);
  for (const o of result.report.outcomes) {
    Object.defineProperty(o, "diff", { value: o.diff, enumerable: true, writable: true, configurable: true });
    Reflect.deleteProperty(o, STRING_PIECES); // they read the spill, removed below
  }
  const previews = result.previews.map((p) => ({ ...p, files: p.files.map((f) => ({ ...f, diff: memoryText(f.diff.text()) })) }));
  result.dispose();
  return { ...result, previews, dispose: () => {} };
}

function memoryText(text: string): { bytes: number; text(): string } {
  return { bytes: Buffer.byteLength(text), text: () => text };
}
