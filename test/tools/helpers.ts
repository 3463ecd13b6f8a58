import { readFileSync } from "node:fs";
import path from "node:path";
import { silentLogger } from "../../src/logger.js";
import { applyEdits } from "../../src/workspace/change.js";
import { createExec } from "../../src/subprocess.js";
import type { AgentToolResult, FileChange, PendingAction, Tool, ToolExecContext } from "../../src/domain/types.js";
import { joinText } from "../../src/domain/types.js";
import type { FileScope, ToolHost } from "../../src/tools/host.js";
import type { AstTuning } from "../../src/tools/ast/pool.js";
import type { ResultCache } from "../../src/cache/index.js";
import type { WorkerSettings } from "../../src/tools/jscodeshift/workers.js";
import { builtinTools } from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { nodeProcess } from "../../src/process-host.js";

export interface TestHost {
  host: ToolHost;
  actions: PendingAction[];
  tool(name: string): Tool;
  /** Calls a tool; returns its text and details. Throws what the tool throws. */
  call(name: string, params: unknown): Promise<{ text: string; details: any; result: AgentToolResult }>;
}

export function makeHost(
  root: string,
  scope: FileScope = {},
  options: { maxFileBytes?: number; ast?: AstTuning; jscodeshift?: WorkerSettings; cache?: ResultCache } = {},
): TestHost {
  const actions: PendingAction[] = [];
  const workspace = new Workspace({ root, durableJournal: false, ...(options.maxFileBytes ? { maxFileBytes: options.maxFileBytes } : {}) });
  const host: ToolHost = {
    cwd: root,
    workspace,
    push: (a) => actions.push(a),
    exec: createExec(root, nodeProcess()),
    scope,
    logger: silentLogger,
    ...(options.ast ? { ast: options.ast } : {}),
    ...(options.jscodeshift ? { jscodeshift: options.jscodeshift } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
  };
  const tools = builtinTools(host);
  const ctx: ToolExecContext = { cwd: root, stepId: "s", isIdle: () => true, hasQueuedMessages: () => false, abort: () => {} };
  const tool = (name: string) => {
    const t = tools.find((x) => x.name === name);
    if (!t) throw new Error(`no tool ${name}`);
    return t;
  };
  return {
    host,
    actions,
    tool,
    async call(name, params) {
      const result = await tool(name).execute("call-1", params, undefined, ctx);
      return { text: joinText(result), details: result.details as any, result };
    },
  };
}

/**
 * The content a staged change would write (a change keeps edits, not texts): its edits applied
 * to the file as it is now, which is the text it was staged against until something writes it.
 */
export function stagedText(root: string, change: FileChange): string | null {
  if (change.kind === "deleted") return null;
  const before = change.kind === "created" ? "" : readFileSync(path.join(root, change.path), "utf8");
  const after = applyEdits(before, change.edits);
  if (after === undefined) throw new Error(`edits of ${change.path} do not fit it`);
  return after;
}
