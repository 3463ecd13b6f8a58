// The library entry: types for custom tools, and the session/runner for programmatic use.
export type {
  AgentToolResult,
  CustomTool,
  CustomToolAPI,
  CustomToolContext,
  CustomToolFactory,
  CustomToolFiles,
  CustomToolPendingAction,
  CustomToolUI,
  ImageContent,
  StagedFile,
  StageResult,
  TextContent,
} from "./custom/types.js";
export { defineTool } from "./custom/define.js";
export type { FileChange, PendingAction, StagedAction, TextEdit, Tool, ToolCallResult } from "./domain/types.js";
export { PendingActionStore } from "./session/store.js";
export { Session, STORE_UNAVAILABLE } from "./session/session.js";
export { createResolveTool, NO_PENDING_ACTION, renderResolveLine, resolveTop } from "./session/resolve.js";
export { prepareRun, executeRun, runRecipe } from "./runner/run.js";
export type { Approvals, ApprovalAnswer, Approver, PlanGate, PreparedRun, RunControls, RunEvent, RunInput, RunResult, RunWorld } from "./runner/types.js";
export type { Report, OutcomeRecord, StepRecord, Outcome } from "./report/types.js";
export { Workspace } from "./workspace/workspace.js";
