// The library entry: running recipes from code, and writing custom tools. docs/internals.md
// describes every name exported here; test/structure/public-api.test.ts holds the list.
export { prepareRun, executeRun, runRecipe } from "./runner/run.js";
export type { Approvals, ApprovalAnswer, Approver, PlanGate, PreparedRun, RunControls, RunEvent, RunInput, RunResult, RunWorld } from "./runner/types.js";
export type { StagedAction } from "./domain/types.js";
export type { Report, OutcomeRecord, StepRecord, Outcome } from "./report/types.js";
export type { Logger } from "./logger.js";
export type { ProcessHost } from "./process-host.js";
export { TollgateError, InputError, RunError } from "./errors.js";
export { defineTool } from "./custom/define.js";
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
