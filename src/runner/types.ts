import type { ResultCache } from "../cache/index.js";
import type { ExecFn } from "../subprocess.js";
import type { Logger } from "../logger.js";
import type { Policy } from "../policy/policy.js";
import type { PolicyDecision } from "../policy/schema.js";
import type { Recipe } from "../recipe/load.js";
import type { Preview } from "../report/patch.js";
import type { OutcomeRecord, Report, StepRecord } from "../report/types.js";
import type { FileScope } from "../scope.js";
import type { Session } from "../session/session.js";
import type { StagedAction, Tool } from "../domain/types.js";
import type { Workspace, WorkspaceFs } from "../workspace/workspace.js";
import type { WorkerSettings } from "../tools/jscodeshift/workers.js";
import type { AstTuning } from "../tools/ast/pool.js";
import type { ProcessHost } from "../process-host.js";

/** What to run: the recipe, the policy and what the user asked for. Plain data. */
export interface RunInput {
  recipePath: string;
  policyPath?: string;
  /** The policy already loaded from `policyPath` (apply reads it once, to check its hash). */
  policy?: Policy;
  /** `--var name=value` overrides, as given. */
  vars?: string[];
  /** `--mode`: overrides the policy's default decision. */
  mode?: PolicyDecision;
  dryRun?: boolean;
  /** `--check`: implies dry-run; exit 1 when anything was staged. */
  check?: boolean;
  /** `--atomic`: when any action fails (or the run is interrupted), roll back every applied one. */
  atomic?: boolean;
  /** Restricts every tool: named files, a shard, excluded paths (the run's own output files). */
  scope?: FileScope;
  /** Approvals given up front (`--approve`, `--approve-all`, `--approvals FILE`). */
  approvals?: Partial<Approvals>;
  /** The command the report names (`run`, `plan`, `apply`, `test`); default `run`. */
  command?: string;
  /** The repository the report names (owner/name); absent: the workspace's `origin` remote. */
  repository?: string;
  /**
   * Whether the report records where the run happened: git's HEAD and dirty flag, and the origin
   * remote when `repository` is absent. Each is a git process; default true. False leaves them
   * null, for a run whose report nobody reads (a pre-commit check pays for every process).
   */
  provenance?: boolean;
}

export interface Approvals {
  /** `--approve <id|fingerprint>` */
  ids: ReadonlySet<string>;
  approveAll: boolean;
  /** From `--approvals FILE`: fingerprint → who. */
  file: ReadonlyMap<string, string>;
}

/** The world a run is prepared in: passed in, so tests and library callers replace any part. */
export interface RunWorld {
  /** Workspace root: tools read and write only inside it. */
  cwd: string;
  fs?: WorkspaceFs;
  exec?: ExecFn;
  /** Milliseconds clock. */
  now?: () => number;
  /** The run log (custom tools' `pi.logger`); never stdout. */
  logger?: Logger;
  /** Paths in messages are shown relative to this directory (the user's shell cwd); absent: as given. */
  displayBase?: string;
  /** `--cache`: what ast_grep, ast_edit and ast_scan found in files, kept across runs. */
  cache?: ResultCache | undefined;
  /**
   * jscodeshift's workers: how many a step may start and their Node flags, from the machine
   * (workerSettings in tools/jscodeshift/workers.ts). Absent: one worker.
   */
  jscodeshift?: WorkerSettings | undefined;
  /** How long file discovery's `git ls-files` may take before the tree is walked (absent: 15 s). */
  gitTimeoutMs?: number | undefined;
  /** How ast_grep, ast_edit and ast_scan may use the machine (threads, forced collections); absent: automatic. */
  ast?: AstTuning | undefined;
  /**
   * The process the run is in: its pid (the workspace lock, the journal), its environment, signals
   * to commands' process groups, and hooks for its end (locks released, workers killed). Absent:
   * this Node process (process-host.ts nodeProcess).
   */
  process?: ProcessHost | undefined;
}

/** Who approved an action, and how (the report's `approval`). */
export type Approval = NonNullable<OutcomeRecord["approval"]>;

export type ApprovalAnswer = "y" | "n" | "a" | "d" | "q";

/** Asks a person about one action (the interactive prompt); absent when nobody can answer. */
export type Approver = (staged: StagedAction, info: { diff: string; remaining: number }) => Promise<ApprovalAnswer>;

/**
 * The plan gate (`tollgate apply`): a verdict for an action, or undefined to decide by the
 * policy and approvals as usual.
 */
export type PlanGate = (staged: StagedAction) => { outcome: "stale" | "discard"; reason: string } | { approved: Approval } | undefined;

/** What drives a run while it executes, besides its input and world. */
export interface RunControls {
  /** Aborted on SIGINT/SIGTERM: nothing more is applied; the rest is discarded as interrupted. */
  signal?: AbortSignal;
  approver?: Approver;
  gate?: PlanGate;
  /** Receives the run's events as they happen (synchronously: a listener must not throw). */
  onEvent?: (event: RunEvent) => void;
}

/** A run's life as its consumers (CLI, plan, apply, test, library) see it. */
export type RunEvent =
  | { type: "step_started"; id: string; tool: string; index: number; total: number }
  /** A running tool's progress text (its onUpdate calls). */
  | { type: "progress"; stepId: string; tool: string; text: string }
  | { type: "step_ended"; step: StepRecord; index: number; total: number }
  /** An action a tool call pushed, once that call has returned (its fingerprint is then final). */
  | { type: "action_staged"; staged: StagedAction }
  | { type: "outcome"; record: OutcomeRecord }
  | { type: "finished"; report: Report };

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

/** Everything loaded and checked, nothing run yet (prepareRun). */
export interface PreparedRun {
  input: RunInput;
  world: RunWorld;
  recipe: Recipe;
  /** The policy in force (`--mode` applied). */
  policy: Policy;
  tools: Map<string, Tool>;
  session: Session;
  workspace: Workspace;
}
