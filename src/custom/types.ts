import type * as TypeBoxModule from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";
import type { ExecOptions, ExecResult } from "../subprocess.js";
import type { Logger } from "../logger.js";
import type { AgentToolResult, Tool, ToolExecContext } from "../domain/types.js";

export type { AgentToolResult, ImageContent, TextContent, ToolUpdateCallback } from "../domain/types.js";

/** What `pi.pushPendingAction` accepts. */
export interface CustomToolPendingAction {
  label: string;
  apply(reason: string): Promise<AgentToolResult>;
  reject?(reason: string): Promise<AgentToolResult | undefined>;
  details?: unknown;
  /** Default `"custom_tool"`. */
  sourceToolName?: string;
}

/** Headless UI: nothing to ask, nobody to answer. */
export interface CustomToolUI {
  select(title: string, options: string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  input(title: string, placeholder?: string): Promise<string | undefined>;
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  editor(title: string, prefill?: string): Promise<string | undefined>;
  getEditorText(): string;
  setEditorText(text: string): void;
}

export interface StagedFile {
  path: string;
  /** New content; `null` deletes the file. */
  content: string | null;
}

export interface StageResult {
  /** Workspace-relative paths of the files that change. */
  files: string[];
  /** Git-style unified diff of the staged change. */
  diff: string;
  /** False when nothing would change (no action was pushed). */
  staged: boolean;
  /** Paths left out because they lie outside the run's files (`files..`) or `--shard`. */
  skipped: string[];
}

/** tollgate's addition: diffs, stale checks, atomic writes and rollback for custom tools. */
export interface CustomToolFiles {
  read(path: string): Promise<string>;
  stage(input: { label: string; changes: StagedFile[]; details?: unknown; sourceToolName?: string }): Promise<StageResult>;
}

/** The `pi` object handed to every factory. */
export interface CustomToolAPI {
  cwd: string;
  exec(command: string, args: string[], options?: Pick<ExecOptions, "cwd" | "timeout" | "signal">): Promise<ExecResult>;
  typebox: typeof TypeBoxModule;
  pushPendingAction(action: CustomToolPendingAction): void;
  logger: Logger;
  ui: CustomToolUI;
  hasUI: false;
  files: CustomToolFiles;
}

export type CustomToolContext = ToolExecContext;

/** A custom tool is exactly a built-in tool's shape: one interface for both. */
export type CustomTool<TParams extends TSchema = TSchema, TDetails = unknown> = Tool<TParams, TDetails>;

// Tools of any parameter shape are accepted: a factory's tools are checked against their own schemas.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CustomToolFactory = (pi: CustomToolAPI) => CustomTool<any, any> | CustomTool<any, any>[] | Promise<CustomTool<any, any> | CustomTool<any, any>[]>;
