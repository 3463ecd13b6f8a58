// The run's file scope (positional files as pre-commit passes them, --shard) through the real
// CLI: a step whose scope holds no code file has nothing to do; it is not a recipe error.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, tollgate } from "../helpers/testdir.js";

const RECIPE = [
  "version: 1",
  "steps:",
  "  - tool: ast_edit",
  "    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }] }",
  "  - tool: ast_grep",
  "    with: { pat: ['Effect.map($A, $B)'] }",
  "",
].join("\n");

const steps = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, "report.json"), "utf8")).steps.map((s: { status: string; resultText: string }) => [
    s.status,
    s.resultText.split("\n")[0],
  ]);

describe("file scope with no code file for a step (no lang given)", () => {
  it("positional files that are all docs: nothing to do, exit 0, no '`lang` is required' error", async () => {
    const dir = await gitdir({ "README.md": "# hi\n", "src/a.ts": "Effect.map(a, f)\n", "recipe.yaml": RECIPE });
    const r = await tollgate(["run", "recipe.yaml", "README.md", "--check", "--report", "report.json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(steps(dir)).toEqual([
      ["ok", "No replacements made"],
      ["ok", "No matches found"],
    ]);
    // with a code file among them the check still finds the change
    const dirty = await tollgate(["run", "recipe.yaml", "README.md", "src/a.ts", "--check", "--report", "report.json"], { cwd: dir });
    expect(dirty.code, dirty.stderr).toBe(1);
  });

  it("a shard that drew no file of the step: exit 0 for every shard", async () => {
    const dir = await gitdir({ "src/a.ts": "Effect.map(a, f)\n", "recipe.yaml": RECIPE });
    const codes: number[] = [];
    for (const i of [1, 2, 3, 4])
      codes.push((await tollgate(["run", "recipe.yaml", "--shard", `${i}/4`, "--dry-run", "--report", "report.json"], { cwd: dir })).code!);
    expect(codes).toEqual([0, 0, 0, 0]);
  });

  it("without a run scope, a step without `lang` over docs is the '`lang` is required' error, exit 3", async () => {
    const dir = await gitdir({ "README.md": "# hi\n", "recipe.yaml": RECIPE.split("  - tool: ast_grep")[0]! });
    const r = await tollgate(["run", "recipe.yaml", "--dry-run", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(steps(dir)[0][1]).toMatch(/^`lang` is required for ast_edit when/);
  });
});
