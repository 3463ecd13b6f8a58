import type { Static, TSchema } from "@sinclair/typebox";
import type { Issue } from "../errors.js";

/** What every tool returns (the agent runtime's shape, kept so custom tools port unchanged). */
export interface TextContent {
  type: "text";
  text: string;
}
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}
export interface AgentToolResult<TDetails = unknown> {
  content: Array<TextContent | ImageContent>;
  details?: TDetails;
}

/** A result as the session records it: a throw becomes `isError: true` with the message as text. */
export interface ToolCallResult extends AgentToolResult {
  isError?: boolean;
}

export type ToolUpdateCallback = (partial: AgentToolResult) => void;

/** Replace `before.slice(start, end)` with `text` (offsets are JS string indices into the before text). */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Text kept outside the heap (a run's spill file): read back on demand, one piece at a time. */
export interface Spilled {
  /** UTF-8 size of the text. */
  readonly bytes: number;
  text(): string;
}

export type ChangeKind = "modified" | "created" | "deleted";

/**
 * One staged change to one file, as a pending action holds it: what the file must be (its
 * sha256, `null` when it must not exist) and the edits that turn it into the new content. No
 * whole texts: apply re-reads the file, checks the hash and applies the edits; the diff was
 * computed once at staging and spilled.
 */
export interface FileChange {
  path: string; // workspace-relative, POSIX separators
  kind: ChangeKind;
  beforeSha256: string | null;
  afterSha256: string | null;
  /**
   * Sorted, non-overlapping edits against the before text. A create is one edit at 0; a delete
   * has none (`kind` says so).
   */
  edits: readonly TextEdit[];
  additions: number;
  deletions: number;
  /**
   * Staged as explicit edits (stageEdits, or stage with edits): on a file this run has written
   * since, the edits are moved over those writes (workspace/rebase.ts) before `rebase` is tried.
   */
  movable?: boolean;
  /** This file's part of the action's git-style unified diff. */
  diff: Spilled;
  /**
   * Called at apply time when the file's sha256 no longer equals `beforeSha256`. Returns the
   * edits to apply to the current text if the change still holds on it (ast_edit/edit re-run
   * their edits and compare), or `undefined` when it does not: the action is then `stale`.
   */
  rebase?: (current: string) => readonly TextEdit[] | undefined;
}

/**
 * What a producer stages for one file (the narrow staging API, `workspace.stageEdits`): the
 * path, the sha256 the file has now (`null`: it does not exist yet), and the edits against that
 * text (`null`: delete the file).
 */
export interface EditRequest {
  path: string;
  beforeSha256: string | null;
  edits: readonly TextEdit[] | null;
  /** The file's current text when the producer has it (saves a read; checked against the hash). */
  text?: string;
  rebase?: FileChange["rebase"];
}

/**
 * What staging derives from a file's text and its edits, besides the edits: kept across runs by
 * the result cache (`--cache`), so a file staged again with the same text and edits is not
 * diffed again.
 */
export interface StagedDiff {
  afterSha256: string | null;
  additions: number;
  deletions: number;
  /** The file's part of the git-style unified diff. */
  diff: string;
}

/**
 * StagedDiffs by request (path, `beforeSha256`, edits), each checked against the text it was
 * made from (`before`); a miss is undefined (staging then diffs).
 */
export interface StagingMemo {
  get(request: EditRequest, before: string): StagedDiff | undefined;
  put(request: EditRequest, before: string, staged: StagedDiff): void;
}

/**
 * A pending action as the store holds it: what its producer made, never written to by
 * the runner. The runner's bookkeeping about it is a separate record (StagedAction).
 */
export interface PendingAction {
  label: string;
  sourceToolName: string;
  apply(reason: string): Promise<AgentToolResult>;
  reject?(reason: string): Promise<AgentToolResult | undefined>;
  details?: unknown;
  /** Set by producers that stage file changes through the workspace (built-ins, pi.files). */
  changes?: readonly FileChange[];
  /**
   * A name for the action, unique within its step, used instead of the push order in its id
   * (`<step-id>#<key>`): ast_scan uses the rule id, so an id does not move when another rule
   * gains or loses fixes between plan and apply.
   */
  key?: string;
  /** Replacement count, when the producer knows it (policy `maxReplacements`). */
  replacements?: number;
}

/**
 * The session's record of one pushed action (the runner's bookkeeping), kept beside the
 * action, not on it: its id, who pushed it, the pushing call's result and the fingerprint.
 */
export interface StagedAction {
  readonly action: PendingAction;
  /** `<step-id>#<n>`, n = 1-based order in which that step pushed it (or its `key`). */
  readonly id: string;
  readonly stepId: string;
  readonly toolCallId: string;
  /** 0-based order of the push within the session. */
  readonly order: number;
  /** The producing tool call's result (the preview); set when the call returns. */
  preview: ToolCallResult | undefined;
  /** Final once the producing call has returned (an opaque action's covers its preview). */
  fingerprint: string;
}

/** How far a tool's `check` looks. */
export interface CheckOptions {
  /**
   * true (`validate`): also that the paths the step names exist now. A run leaves them to the
   * step, as an earlier step may create them.
   */
  paths: boolean;
}

/** A problem a tool's `check` found in a step's parameters. */
export interface CheckIssue extends Issue {
  /**
   * Where inside the step's `with` (`["ops", 0, "pat"]`). Absent: the issue names its own
   * `file` (a rule file), or else it is placed at the step's `with`.
   */
  at?: Array<string | number>;
  /** A likely mistake the run accepts (its step warns of it too): never an error. */
  warning?: boolean;
}

/** What every tool (built-in or custom) is: a schema plus a function. */
export interface Tool<TParams extends TSchema = TSchema, TDetails = unknown> {
  name: string;
  label: string;
  description: string;
  parameters: TParams;
  /** Advisory: the tool may stage pending actions. */
  deferrable?: boolean;
  /** Hidden tools (resolve) are not listed by default. */
  hidden?: boolean;
  /**
   * Code from outside tollgate that a step of this tool runs, which the policy must allow before
   * anything runs: `commands` (`allow.exec`) or user code modules (`allow.customTools`; `noun`
   * names them in the refusal, "transform modules").
   */
  runs?: { kind: "commands" } | { kind: "modules"; noun: string };
  /**
   * Checks a step's parameters beyond the schema before anything runs (`run` and `validate`
   * alike): an issue that is not a warning is an input error (exit 2), placed at file:line:col.
   */
  check?(params: Static<TParams>, options: CheckOptions): Promise<CheckIssue[]>;
  execute(
    toolCallId: string,
    params: Static<TParams>,
    onUpdate: ToolUpdateCallback | undefined,
    ctx: ToolExecContext,
    signal?: AbortSignal,
  ): Promise<AgentToolResult<TDetails>>;
}

/** The `ctx` argument handed to `execute`: headless, nothing to ask. */
export interface ToolExecContext {
  cwd: string;
  stepId: string;
  isIdle(): boolean;
  hasQueuedMessages(): boolean;
  abort(): void;
}

export function textResult<T>(text: string, details?: T): AgentToolResult<T> {
  return details === undefined ? { content: [{ type: "text", text }] } : { content: [{ type: "text", text }], details };
}

/** Non-empty text parts joined with "\n" (how resolve reads an apply result). */
export function joinText(result: AgentToolResult | undefined): string {
  if (!result || !Array.isArray(result.content)) return "";
  return result.content
    .filter((p): p is TextContent => p?.type === "text" && typeof p.text === "string" && p.text.length > 0)
    .map((p) => p.text)
    .join("\n");
}
