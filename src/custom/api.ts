import * as typebox from "@sinclair/typebox";
import type { ExecFn } from "../subprocess.js";
import type { Logger } from "../logger.js";
import { STORE_UNAVAILABLE } from "../session/session.js";
import type { PendingAction } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import { gitDiff } from "../workspace/diff.js";
import type { Workspace } from "../workspace/workspace.js";
import { outsideScope, type FileScope } from "../scope.js";
import type { CustomToolAPI, CustomToolUI } from "./types.js";

export const EXEC_NOT_ALLOWED = "exec is not allowed by the policy (allow.exec: false)";

const headlessUI: CustomToolUI = {
  select: async () => undefined,
  confirm: async () => false,
  input: async () => undefined,
  notify: () => {},
  setStatus: () => {},
  editor: async () => undefined,
  getEditorText: () => "",
  setEditorText: () => {},
};

interface ApiHost {
  cwd: string;
  workspace: Workspace;
  exec: ExecFn;
  allowExec: boolean;
  logger: Logger;
  /** The session's push, or undefined when no session is active. */
  push: ((action: PendingAction) => void) | undefined;
  /** The run's positional files and shard: pi.files.stage leaves out files outside them. */
  scope?: FileScope;
  /** Why the calling code may no longer act (its step is over: finished or timed out), if so. */
  late?: () => string | undefined;
  /** Name of the tool currently executing, for the default sourceToolName of pi.files.stage. */
  currentTool?: () => string | undefined;
}

/** Builds the `pi` object. One per loader, shared by its factories. */
export function createCustomToolAPI(host: ApiHost): CustomToolAPI {
  const push = (action: PendingAction) => {
    if (!host.push) throw new Error(STORE_UNAVAILABLE);
    host.push(action);
  };
  return {
    cwd: host.cwd,
    typebox,
    logger: host.logger,
    ui: headlessUI,
    hasUI: false,
    async exec(command, args, options = {}) {
      if (!host.allowExec) throw new Error(EXEC_NOT_ALLOWED);
      const late = host.late?.();
      if (late) throw new Error(late);
      const cwd = options.cwd === undefined ? host.cwd : host.workspace.contain(options.cwd).abs;
      return host.exec(command, args, { ...options, cwd });
    },
    pushPendingAction(action) {
      if (!action || typeof action.label !== "string" || typeof action.apply !== "function") {
        throw new Error("pushPendingAction needs { label: string, apply: function }");
      }
      push({
        label: action.label,
        sourceToolName: action.sourceToolName ?? "custom_tool",
        apply: (reason: string) => action.apply(reason),
        ...(action.reject ? { reject: (reason: string) => action.reject!(reason) } : {}),
        ...(action.details !== undefined ? { details: action.details } : {}),
      });
    },
    files: {
      async read(path) {
        // One clear message like the built-in edit tool's, not the raw ENOENT with an absolute path.
        const current = await host.workspace.readIfExists(path);
        if (!current) throw new Error(`File not found: ${host.workspace.contain(path).rel}`);
        return current.text;
      },
      async stage(input) {
        const { label, changes, details, sourceToolName } = (input ?? {}) as Partial<typeof input>;
        if (typeof label !== "string" || label.length === 0 || !Array.isArray(changes)) {
          throw new Error("pi.files.stage needs { label: string, changes: [{ path, content }] }");
        }
        const bad = changes.findIndex((c) => !c || typeof c.path !== "string" || (c.content !== null && typeof c.content !== "string"));
        if (bad >= 0) throw new Error(`pi.files.stage: changes[${bad}] needs { path: string, content: string | null }`);
        if (!host.push) throw new Error(STORE_UNAVAILABLE);
        const late = host.late?.();
        if (late) throw new Error(late);
        // files.. and --shard restrict every tool: a change to a file outside them is
        // left out, as ast_edit, edit and write leave such files alone.
        const skipped: string[] = [];
        const wanted = changes.filter((c) => {
          const rel = host.workspace.contain(c.path).rel;
          if (host.scope && outsideScope(host.scope, rel)) skipped.push(rel);
          return !skipped.includes(rel);
        });
        const staged = await host.workspace.stage(wanted.map((c) => ({ path: c.path, content: c.content })));
        const result = { files: staged.map((c) => c.path), diff: gitDiff(staged), staged: staged.length > 0, skipped };
        if (staged.length === 0) return result;
        push(
          createFileAction(host.workspace, {
            label,
            sourceToolName: sourceToolName ?? host.currentTool?.() ?? "custom_tool",
            changes: staged,
            ...(details !== undefined ? { details } : {}),
          }),
        );
        return result;
      },
    },
  };
}
