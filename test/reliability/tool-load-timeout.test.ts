// A custom tool factory that never settles while a timer of its own keeps the process alive
// (so the event loop never runs empty) is ended by `toolLoadTimeout`: an input error naming the
// module, exit 2, nothing run.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_TOOL_LOAD_TIMEOUT_MS, parseRecipe } from "../../src/recipe/load.js";
import { RecipeSchema } from "../../src/recipe/schema.js";
import { testdir, tollgate } from "../helpers/testdir.js";

const NEVER = "export default () => { setInterval(() => {}, 1000); return new Promise(() => {}); };\n";
const recipe = (extra: string) => `version: 1\n${extra}tools: [./never.mjs]\nsteps:\n  - tool: write\n    with: { path: out.txt, content: x }\n`;

describe("toolLoadTimeout", () => {
  it("a factory that never settles while holding a timer: exit 2 naming the module once the recipe's toolLoadTimeout is over", async () => {
    const dir = await testdir({ "never.mjs": NEVER, "r.yaml": recipe("toolLoadTimeout: 400\n") });
    const started = Date.now();
    const r = await tollgate(["run", "r.yaml", "--mode", "auto-apply"], { cwd: dir, timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("never.mjs: Failed to load tool: the factory did not settle within 400 ms (recipe toolLoadTimeout)");
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(existsSync(path.join(dir, "out.txt"))).toBe(false);
    // validate loads custom tools too, under the same bound.
    const v = await tollgate(["validate", "r.yaml"], { cwd: dir, timeoutMs: 20_000 });
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/never\.mjs: Failed to load tool: the factory did not settle within 400 ms/);
  });

  it(`without the key a recipe's bound is the default, ${DEFAULT_TOOL_LOAD_TIMEOUT_MS} ms (the bound the CLI honours above)`, () => {
    expect(DEFAULT_TOOL_LOAD_TIMEOUT_MS).toBe(30_000);
    expect(parseRecipe("r.yaml", recipe("")).recipe.toolLoadTimeout).toBe(DEFAULT_TOOL_LOAD_TIMEOUT_MS);
    expect(parseRecipe("r.yaml", recipe("toolLoadTimeout: 400\n")).recipe.toolLoadTimeout).toBe(400);
  });

  it("the recipe schema documents the key and its default; a bad value is refused at its position", async () => {
    const description = (RecipeSchema.properties as Record<string, { description?: string }>).toolLoadTimeout?.description ?? "";
    expect(description).toMatch(/default 30000/);
    const dir = await testdir({ "never.mjs": NEVER, "r.yaml": recipe("toolLoadTimeout: 0\n") });
    const r = await tollgate(["validate", "r.yaml"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^r\.yaml:2:\d+ toolLoadTimeout: /);
    expect(r.stderr).not.toMatch(/Unknown key/);
  });
});
