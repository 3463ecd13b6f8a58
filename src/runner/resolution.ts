import { BlockedError, StaleError } from "../errors.js";
import { messageOf } from "../util/thrown.js";
import { decide, factsOf, type Policy } from "../policy/policy.js";
import type { Session } from "../session/session.js";
import type { ResolveParams } from "../session/resolve.js";
import { joinText, type FileChange, type PendingAction, type StagedAction } from "../domain/types.js";
import type { Decision, Outcome, OutcomeRecord, ReportFile } from "../report/types.js";
import { gitDiff } from "../workspace/diff.js";
import { STRING_PIECES } from "../report/json.js";
import { RolledBackError, type Workspace } from "../workspace/workspace.js";
import type { Approval, Approvals, Approver, PlanGate } from "./types.js";

/** What a resolution point needs: the run's parts, its decisions' inputs, and where outcomes go. */
export interface ResolutionContext {
  session: Session;
  workspace: Workspace;
  policy: Policy;
  forceDryRun: boolean;
  /** The recipe's `applyTimeout`: an action's apply that takes longer fails (and is rolled back). */
  applyTimeoutMs?: number;
  /** What forced dry-run, recorded as the deciding rule: "--dry-run", "--check" or "plan". */
  forcedBy?: string;
  approvals: Approvals;
  approver?: Approver;
  now: () => number;
  gate?: PlanGate;
  /** Receives every outcome as it is recorded. */
  onOutcome: (record: OutcomeRecord, resolved: Resolved) => void;
  /** Aborted on SIGINT/SIGTERM: nothing more is applied; the rest is discarded as interrupted. */
  signal?: AbortSignal;
}

/** State that lives across resolution points within one run (the prompt's `a` and `q`). */
export interface PromptState {
  applyAll: boolean;
  stopAsking: boolean;
}

interface Verdict {
  decision: Decision;
  rule: { name: string; index: number | null };
  approval: Approval | null;
  params: ResolveParams;
  /** Outcome when the resolve call succeeds. */
  outcome: Outcome;
}

function reportFiles(changes: readonly FileChange[]): ReportFile[] {
  return changes.map((c) => ({
    path: c.path,
    change: c.kind,
    additions: c.additions,
    deletions: c.deletions,
    beforeSha256: c.beforeSha256,
    afterSha256: c.afterSha256,
  }));
}

function blockedBy(action: PendingAction, workspace: Workspace): string | undefined {
  if (!action.changes) return undefined;
  try {
    workspace.assertStagedWritable(action.changes);
    return undefined;
  } catch (err) {
    return messageOf(err);
  }
}

async function verdictFor(
  staged: StagedAction,
  ctx: ResolutionContext,
  state: PromptState,
  requested: ResolveParams | undefined,
  remaining: number,
): Promise<Verdict> {
  const early = verdictBeforePolicy(staged, ctx, requested);
  if (early) return early;
  const gate = ctx.gate?.(staged);
  if (gate && "outcome" in gate) {
    const params = { action: "discard" as const, reason: gate.reason };
    return { decision: "discard", rule: { name: "plan", index: null }, approval: null, params, outcome: gate.outcome === "stale" ? "stale" : "discarded" };
  }
  const decided = ctx.forceDryRun
    ? { decision: "dry-run" as const, rule: { name: ctx.forcedBy ?? "--dry-run", index: null } }
    : decide(ctx.policy, factsOf(staged));
  const ruleText = decided.rule.index !== null ? `rule "${decided.rule.name}"` : decided.rule.name === "default" ? "policy default" : decided.rule.name;
  const base = { decision: decided.decision, rule: decided.rule };
  if (requested?.action === "discard") return { ...base, approval: null, params: requested, outcome: "discarded" };
  // An explicit resolve step that is allowed to apply calls resolve exactly as the step asked:
  // its reason reaches apply(reason) and the details verbatim, as the agent's resolve call would.
  // Why it was allowed is recorded in decision, rule and approval.
  const to: VerdictOf = {
    applied: (approval, reason) => ({ ...base, approval, params: { action: "apply", reason: requested ? requested.reason : reason }, outcome: "applied" }),
    leave: (outcome, reason) => ({ ...base, approval: null, params: { action: "discard", reason }, outcome }),
  };
  switch (decided.decision) {
    case "auto-apply":
      return to.applied(null, `auto-apply by ${ruleText}`);
    case "dry-run": {
      // `tollgate apply` exists to apply what a person approved: there, an explicit approval
      // of a planned action outweighs a dry-run default (no policy file means dry-run).
      const approval = ctx.gate && !ctx.forceDryRun ? explicitApproval(staged, ctx) : undefined;
      if (approval) return to.applied(approval.approval, `${approval.why} (${ruleText})`);
      return to.leave("dry-run", `dry-run (${ruleText})`);
    }
    case "discard":
      return to.leave("discarded", `discard by ${ruleText}`);
    case "require-approval":
      return approvalVerdict(staged, ctx, state, { ruleText, remaining, to, gate });
  }
}

/** The verdicts of a decision: apply (with the approval and reason) or leave it (as `outcome`). */
interface VerdictOf {
  applied(approval: Approval | null, reason: string): Verdict;
  leave(outcome: Outcome, reason: string): Verdict;
}

/** What comes before the plan gate and the policy: an interrupt, a protected path. */
function verdictBeforePolicy(staged: StagedAction, ctx: ResolutionContext, requested: ResolveParams | undefined): Verdict | undefined {
  if (ctx.signal?.aborted) {
    const params = { action: "discard" as const, reason: "interrupted" };
    return { decision: "discard", rule: { name: "interrupted", index: null }, approval: null, params, outcome: "discarded" };
  }
  const blocked = blockedBy(staged.action, ctx.workspace);
  const protect = { decision: "blocked" as const, rule: { name: "protect", index: null }, approval: null };
  // An explicit discard is always honoured: nothing is written, so nothing is refused.
  if (blocked && requested?.action === "discard") return { ...protect, params: requested, outcome: "discarded" };
  if (blocked) return { ...protect, params: { action: "discard", reason: `blocked: ${blocked}` }, outcome: "blocked" };
  return undefined;
}

/** `require-approval`: the plan's approval, one given up front, the prompt's, or pending. */
async function approvalVerdict(
  staged: StagedAction,
  ctx: ResolutionContext,
  state: PromptState,
  { ruleText, remaining, to, gate }: { ruleText: string; remaining: number; to: VerdictOf; gate: ReturnType<PlanGate> },
): Promise<Verdict> {
  if (gate && "approved" in gate) return to.applied(gate.approved, `approved in plan (${gate.approved.by})`);
  const approval = explicitApproval(staged, ctx);
  if (approval) return to.applied(approval.approval, `${approval.why} (${ruleText})`);
  if (state.applyAll) return to.applied({ by: "prompt", via: "prompt" }, `approved at the prompt (${ruleText})`);
  if (ctx.approver && !state.stopAsking) {
    const answer = await ctx.approver(staged, { diff: gitDiff(staged.action.changes ?? []), remaining });
    if (ctx.signal?.aborted) return to.leave("discarded", "interrupted");
    if (answer === "a") state.applyAll = true;
    if (answer === "q") state.stopAsking = true;
    if (answer === "y" || answer === "a") return to.applied({ by: "prompt", via: "prompt" }, `approved at the prompt (${ruleText})`);
    if (answer === "d") return to.leave("discarded", `discarded at the prompt (${ruleText})`);
  }
  return to.leave("pending-approval", `awaiting approval (${ruleText})`);
}

/** An approval given on the command line or in an approvals file (not the prompt). */
function explicitApproval({ id, fingerprint: fp }: StagedAction, ctx: ResolutionContext): { approval: Approval; why: string } | undefined {
  if (ctx.approvals.ids.has(id) || ctx.approvals.ids.has(fp)) {
    return { approval: { by: ctx.approvals.ids.has(id) ? id : fp, via: "flag" }, why: "approved by --approve" };
  }
  if (ctx.approvals.approveAll) return { approval: { by: "--approve-all", via: "approve-all" }, why: "approved by --approve-all" };
  const who = ctx.approvals.file.get(fp);
  // A bare fingerprint in the file has no approver: its `by` is "approvals file" (see cli/approvals.ts),
  // which must not read "approved by approvals file in approvals file".
  if (who === "approvals file") return { approval: { by: who, via: "file" }, why: "approved in approvals file" };
  if (who !== undefined) return { approval: { by: who, via: "file" }, why: `approved by ${who} in approvals file` };
  return undefined;
}

function failureOutcome(error: unknown): Outcome {
  if (error instanceof StaleError) return "stale";
  if (error instanceof BlockedError) return "blocked";
  return "failed";
}

/** One resolve call's result as the runner keeps it: the action it consumed and its record. */
export interface Resolved {
  staged: StagedAction;
  record: OutcomeRecord;
  /** The action's file changes as written (applied) or as staged. */
  changes: readonly FileChange[];
}

/**
 * The resolution point: while the stack is non-empty, decide for the top action and
 * call `resolve` with that decision, recording one outcome per call. `requested` is an explicit
 * recipe resolve step, which resolves only the top action.
 */
export async function resolvePending(ctx: ResolutionContext, state: PromptState, stepId: string, requested?: ResolveParams): Promise<Resolved[]> {
  const out: Resolved[] = [];
  while (ctx.session.store.hasPending) {
    const top = ctx.session.store.peek()!;
    const staged = ctx.session.stagedOf(top) ?? unrecorded(top, stepId);
    const verdict = await verdictFor(staged, ctx, state, requested, ctx.session.store.count);
    // resolve pops synchronously when called, so the action it consumes is the top seen here;
    // one pushed while the verdict was awaited (a prompt) is decided for first.
    if (ctx.session.store.peek() !== top) continue;
    const action = top;
    const started = ctx.now();
    // Everything an apply writes through the workspace is one unit, owned by this action (named
    // when a later change overlaps its writes): rolled back if it fails.
    const tx = verdict.params.action === "apply" ? ctx.workspace.transaction.beginAction({ owner: staged.id }) : undefined;
    const call = await ctx.session.call("resolve", verdict.params, stepId, {
      ...(verdict.params.action === "apply" ? { timeoutMs: ctx.applyTimeoutMs } : {}),
      what: `The ${verdict.params.action} of ${staged.id}`,
      timeoutMessage: `The apply of ${staged.id} timed out after ${ctx.applyTimeoutMs} ms (recipe applyTimeout)`,
    });
    const ended = await tx?.end(call.result.isError ? (call.error ?? new Error(joinText(call.result))) : undefined);
    if (ended?.error && ended.error !== call.error) {
      // The failure changed on the way out (stale after partial writes, a failed rollback/commit).
      call.error = ended.error;
      call.result = { ...call.result, isError: true, content: [{ type: "text", text: messageOf(ended.error) }] };
    }
    const failed = call.result.isError === true;
    const outcome = failed ? failureOutcome(call.error) : verdict.outcome;
    const changes = ended && ended.written.length > 0 ? ended.written : (action.changes ?? []);
    const record: OutcomeRecord = {
      id: staged.id,
      fingerprint: staged.fingerprint,
      label: action.label,
      sourceToolName: action.sourceToolName,
      step: staged.stepId,
      toolCallId: staged.toolCallId,
      resolveToolCallId: call.toolCallId,
      requested: requested ?? null,
      decision: outcome === "blocked" ? "blocked" : verdict.decision,
      rule: verdict.rule,
      approval: verdict.approval,
      action: verdict.params.action,
      reason: verdict.params.reason,
      outcome,
      resultText: joinText(call.result),
      details: call.result.details ?? null,
      files: reportFiles(changes),
      // Read from the spill each time it is asked for (and when the report is serialized), so
      // the run never holds every action's diff at once.
      get diff() {
        return gitDiff(changes);
      },
      // Stale and blocked are failures (exit 3) also when decided before apply was called (a
      // protected path, a fingerprint that changed since the plan): error says why in both cases.
      error: failed ? joinText(call.result) : outcome === "stale" || outcome === "blocked" ? verdict.params.reason : null,
      ...(failed && call.error instanceof RolledBackError ? { rolledBack: true } : {}),
      durationMs: ctx.now() - started,
    };
    // The report writer takes the diff file by file (report/json.ts), never joined.
    Object.defineProperty(record, STRING_PIECES, {
      value: {
        *diff() {
          for (const c of changes) yield c.diff.text();
        },
      },
      configurable: true,
    });
    const resolved: Resolved = { staged, record, changes };
    out.push(resolved);
    ctx.onOutcome(record, resolved);
    if (requested) break;
  }
  return out;
}

/** An action pushed onto the store directly, not through the session: it has no record. */
function unrecorded(action: PendingAction, stepId: string): StagedAction {
  return { action, id: `${stepId}#?`, stepId, toolCallId: "", order: Number.MAX_SAFE_INTEGER, preview: undefined, fingerprint: "" };
}
