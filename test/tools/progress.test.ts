import { describe, expect, it } from "vitest";
import { builtinTools } from "../../src/tools/index.js";
import { createExec } from "../../src/subprocess.js";
import { silentLogger } from "../../src/logger.js";
import type { AgentToolResult, PendingAction } from "../../src/domain/types.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { testdir } from "../helpers/testdir.js";
import { nodeProcess } from "../../src/process-host.js";

describe("ast tools report progress through onUpdate", () => {
  it("ast_edit ends with every file scanned and the match count", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`src/f${i}.ts`] = `Effect.map(a${i}, f);\n`;
    const dir = await testdir(files);
    const pushed: PendingAction[] = [];
    const tools = builtinTools({
      cwd: dir,
      workspace: new Workspace({ root: dir }),
      push: (a) => pushed.push(a),
      exec: createExec(dir, nodeProcess()),
      scope: {},
      logger: silentLogger,
    });
    const edit = tools.find((t) => t.name === "ast_edit")!;
    const updates: string[] = [];
    const onUpdate = (r: AgentToolResult) => updates.push(r.content.map((c) => (c.type === "text" ? c.text : "")).join(""));
    const ctx = { cwd: dir, stepId: "s", isIdle: () => false, hasQueuedMessages: () => false, abort: () => {} };
    await edit.execute("call_1", { ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }], lang: "ts", path: "src" }, onUpdate, ctx);
    expect(updates.at(-1)).toBe("5/5 files scanned, 5 matches");
    expect(pushed).toHaveLength(1);
  });
});
