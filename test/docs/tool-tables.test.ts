import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createExec } from "../../src/subprocess.js";
import { silentLogger } from "../../src/logger.js";
import { Session } from "../../src/session/session.js";
import { builtinTools } from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type ToolSchema, toolTable, withToolTables } from "../../scripts/tool-tables.mjs";
import { REPO_ROOT } from "../helpers/testdir.js";
import { nodeProcess } from "../../src/process-host.js";

/** Every tool a recipe can call, with its parameters as the JSON Schema `tollgate tools --json` prints. */
function tools(): ToolSchema[] {
  const cwd = REPO_ROOT;
  const session = new Session({ cwd });
  for (const tool of builtinTools({
    cwd,
    workspace: new Workspace({ root: cwd }),
    push: () => {},
    exec: createExec(cwd, nodeProcess()),
    scope: {},
    logger: silentLogger,
  })) {
    session.register(tool);
  }
  return [...session.tools.values()].map((t) => ({ name: t.name, parameters: JSON.parse(JSON.stringify(t.parameters)) as unknown }));
}

describe("README tool parameter tables", () => {
  const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

  it("every tool has a table, and each equals the one generated from its schema (node scripts/tool-tables.mjs rewrites them)", () => {
    const all = tools();
    expect(all.map((t) => t.name).sort()).toEqual(["ast_edit", "ast_grep", "ast_scan", "edit", "exec", "jscodeshift", "resolve", "write"]);
    expect(withToolTables(readme, all)).toBe(readme);
  });

  it("a table lists every parameter of the schema, with its required flag and default", () => {
    const edit = tools().find((t) => t.name === "edit")!;
    const table = toolTable(edit);
    expect(table).toContain("| `oldText` | string | yes |  | Exact text to replace |");
    expect(table).toContain("| `all` | boolean |  | `false` |");
    const changed = { name: "edit", parameters: { type: "object", properties: { extra: { type: "string", description: "new" } } } };
    expect(toolTable(changed)).not.toBe(table);
  });
});
