import type { AgentToolResult, FileChange, PendingAction } from "../domain/types.js";
import { textResult } from "../domain/types.js";
import type { Workspace } from "./workspace.js";

interface FileActionInput {
  label: string;
  sourceToolName: string;
  changes: readonly FileChange[];
  details?: unknown;
  replacements?: number;
  /** See PendingAction.key. */
  key?: string;
  /** Text of a successful apply; defaults to "" so resolve falls back to `Applied: <label>.` */
  appliedText?: (written: readonly FileChange[]) => string;
}

/**
 * A pending action whose apply writes exactly the staged changes through the workspace
 * (stale-checked, journaled, atomic). Shared by every built-in producer and `pi.files.stage`.
 * What was written is the workspace transaction's record, not a field set on the action.
 */
export function createFileAction(workspace: Workspace, input: FileActionInput): PendingAction {
  const action: PendingAction = {
    label: input.label,
    sourceToolName: input.sourceToolName,
    changes: input.changes,
    ...(input.details !== undefined ? { details: input.details } : {}),
    ...(input.replacements !== undefined ? { replacements: input.replacements } : {}),
    ...(input.key !== undefined ? { key: input.key } : {}),
    async apply(): Promise<AgentToolResult> {
      // Inside the runner's action transaction, which names this action as the owner of its writes.
      const written = await workspace.apply(input.changes);
      return textResult(input.appliedText?.(written) ?? "", { files: written.map((c) => c.path) });
    },
  };
  return action;
}
