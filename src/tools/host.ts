import type { ExecFn } from "../exec.js";
import type { Logger } from "../logger.js";
import type { PendingAction, Tool } from "../session/types.js";
import type { Workspace } from "../workspace/workspace.js";

/** Restricts which files tools see: pre-commit's positional files and `--shard i/n`. */
export interface FileScope {
  /** Workspace-relative POSIX paths; when set, tools consider only these files. */
  files?: string[];
  shard?: { index: number; count: number };
  /**
   * Workspace-relative paths no tool should treat as input: tollgate's own output files
   * (`--report`, `--patch`, `--summary`, `--out`, the plan being applied), which users often
   * write inside the workspace and which a later run must not rewrite or count as sources.
   */
  exclude?: string[];
}

/** What built-in tools get: the world passed in, nothing global. */
export interface ToolHost {
  cwd: string;
  workspace: Workspace;
  push(action: PendingAction): void;
  exec: ExecFn;
  scope: FileScope;
  logger: Logger;
}

export type BuiltinToolFactory = (host: ToolHost) => Tool;
