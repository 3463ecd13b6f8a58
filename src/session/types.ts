import type { Static, TSchema } from "@sinclair/typebox";

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

/**
 * One staged change to one file. `before`/`after` are the exact file texts (BOM and line endings
 * included); `null` means "absent" (create when before is null, delete when after is null).
 */
export interface FileChange {
  path: string; // workspace-relative, POSIX separators
  before: string | null;
  after: string | null;
  beforeSha256: string | null;
  afterSha256: string | null;
  /**
   * Called at apply time when the file's sha256 no longer equals `beforeSha256`. Returns the
   * text to write if the change still holds on the current text (ast_edit/edit re-run their
   * edits and compare), or `undefined` when it does not: the action is then `stale`.
   */
  rebase?: (current: string) => string | undefined;
  /**
   * Optional hint: non-overlapping edits, sorted, with offsets into `before`, that turn `before`
   * into `after`. Diffs then compare only the lines around them instead of whole texts. A
   * hint that does not reproduce `after` is ignored.
   */
  edits?: readonly TextEdit[];
}

/** Replace `before.slice(start, end)` with `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * A pending action as the store holds it (SPEC 1.1). `apply`/`reject` come from the producer;
 * `meta` is the runner's bookkeeping, filled by the session when the push happens.
 */
export interface PendingAction {
  label: string;
  sourceToolName: string;
  apply(reason: string): Promise<AgentToolResult>;
  reject?(reason: string): Promise<AgentToolResult | undefined>;
  details?: unknown;
  /** Set by producers that stage file changes through the workspace (built-ins, pi.files). */
  changes?: FileChange[];
  /** The changes as actually written (after rebasing), set by a successful apply. */
  written?: FileChange[];
  /**
   * A name for the action, unique within its step, used instead of the push order in its id
   * (`<step-id>#<key>`): ast_scan uses the rule id, so an id does not move when another rule
   * gains or loses fixes between plan and apply (SPEC 3.2).
   */
  key?: string;
  /** Replacement count, when the producer knows it (policy `maxReplacements`). */
  replacements?: number;
  meta?: ActionMeta;
}

export interface ActionMeta {
  /** `<step-id>#<n>`, n = 1-based order in which that step pushed it. */
  id: string;
  stepId: string;
  toolCallId: string;
  /** The producing tool call's result (the preview); filled when the call returns. */
  preview?: ToolCallResult;
  fingerprint: string;
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
   * Checks a step's parameters beyond the schema before anything runs (`run` and `validate`
   * alike): problems found here are input errors (exit 2) with file:line:col.
   */
  check?(params: Static<TParams>): Promise<import("../errors.js").Issue[]>;
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

/** Non-empty text parts joined with "\n" (how resolve reads an apply result, SPEC 1.2). */
export function joinText(result: AgentToolResult | undefined): string {
  if (!result || !Array.isArray(result.content)) return "";
  return result.content
    .filter((p): p is TextContent => p?.type === "text" && typeof p.text === "string" && p.text.length > 0)
    .map((p) => p.text)
    .join("\n");
}
