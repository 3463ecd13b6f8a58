import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, tollgate } from "../helpers/testdir.js";

const RECIPE = [
  "version: 1",
  "steps:",
  "  - tool: ast_edit",
  "    with:",
  '      ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }]',
  "",
].join("\n");

describe("plan and apply in the workspace itself, without a policy file", () => {
  it("ignores its own output files as sources and applies what --approve-all approves", async () => {
    const dir = await gitdir({ "src/a.ts": "const x = Effect.map(a, f);\n", "package.json": '{ "name": "x" }\n', "recipe.yaml": RECIPE });
    const plan = await tollgate(["plan", "recipe.yaml", "--out", "plan.json", "--report", "report.json"], { cwd: dir });
    expect(plan.code).toBe(0);
    // A stale report in the tree is not a source file either (it would make `lang` ambiguous).
    await writeFile(path.join(dir, "old-report.json"), "{}\n");
    const notApproved = await tollgate(["apply", "plan.json", "--report", "report.json"], { cwd: dir });
    expect(notApproved.code).toBe(0);
    expect(await readFile(path.join(dir, "src/a.ts"), "utf8")).toBe("const x = Effect.map(a, f);\n");
    const dry = await tollgate(["apply", "plan.json", "--approve-all", "--dry-run"], { cwd: dir });
    expect(dry.code).toBe(0);
    expect(await readFile(path.join(dir, "src/a.ts"), "utf8")).toBe("const x = Effect.map(a, f);\n");
    const applied = await tollgate(["apply", "plan.json", "--approve-all", "--report", "report.json"], { cwd: dir });
    expect(applied.stderr).toContain("1 applied");
    expect(applied.code).toBe(0);
    expect(await readFile(path.join(dir, "src/a.ts"), "utf8")).toBe("const x = Effect.andThen(a, f);\n");
    const report = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
    expect(report.outcomes[0]).toMatchObject({ outcome: "applied", approval: { by: "--approve-all", via: "approve-all" } });
  });
});
