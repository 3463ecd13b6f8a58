import type { ResultCache } from "../cache/index.js";
import type { ExecFn } from "../subprocess.js";
import type { Logger } from "../logger.js";
import type { PendingAction } from "../domain/types.js";
import type { Workspace } from "../workspace/workspace.js";
import type { FileScope } from "../scope.js";
import type { WorkerSettings } from "./jscodeshift/workers.js";
import type { AstTuning } from "./ast/pool.js";
import type { ProcessHost } from "../process-host.js";

export { outsideScope, type FileScope } from "../scope.js";

/** What built-in tools get: the world passed in, nothing global. */
export interface ToolHost {
  cwd: string;
  workspace: Workspace;
  push(action: PendingAction): void;
  exec: ExecFn;
  scope: FileScope;
  logger: Logger;
  /** Directory of the recipe: files a step names for its own input (ast_scan rules) are relative to it. */
  recipeDir?: string;
  /** Where paths in messages are shown relative to (absent: cwd). */
  displayBase?: string;
  /** `--cache`: the result cache the structural tools consult (absent: every file is searched). */
  cache?: ResultCache | undefined;
  /** How many jscodeshift workers a step may start, and their Node flags (absent: one worker). */
  jscodeshift?: WorkerSettings | undefined;
  /** How long file discovery's `git ls-files` may take (absent: discovery's default). */
  gitTimeoutMs?: number | undefined;
  /** How the structural tools may use the machine (threads, forced collections); absent: automatic. */
  ast?: AstTuning | undefined;
  /** The process tollgate runs in (jscodeshift's workers are killed when it exits); absent: this one. */
  process?: ProcessHost | undefined;
}

/** What every structural search takes from the host: the tree, the run's scope and its engine settings. */
export function searchContext(host: ToolHost) {
  return {
    cache: host.cache,
    tuning: host.ast,
    root: host.workspace.root,
    scope: host.scope,
    gitTimeoutMs: host.gitTimeoutMs,
    env: host.process?.env,
    maxFileBytes: host.workspace.maxFileBytes,
  };
}
