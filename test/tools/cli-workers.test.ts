// End to end through the built CLI (npm test builds first): the engine with its parses on
// libuv's thread pool (the default with enough files) must give the same result as the inline one.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

// A missing build is a failure of this suite, not a reason to skip it.
if (!existsSync(path.join(REPO_ROOT, "dist", "bundle"))) throw new Error("dist/bundle is missing: run `npm run build` (npm test builds first)");

describe("ast_edit through the CLI", () => {
  it("parses off the main thread: preview (dry-run) then auto-apply, nested rewrite counted", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++)
      files[`src/f${String(i).padStart(2, "0")}.ts`] = i % 3 === 0 ? `export const v${i} = Effect.map(a, Effect.map(b, f))\n` : `export const v${i} = 1\n`;
    const dir = await testdir({
      ...files,
      "recipe.yaml":
        'version: 1\nsteps:\n  - tool: ast_edit\n    with:\n      ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }]\n      lang: ts\n      path: src\n',
      "auto.yaml": "version: 1\ndefault: auto-apply\n",
    });
    for (const threads of ["2", "0"]) {
      const dry = await tollgate(["run", "recipe.yaml", "--dry-run", "--report", "r.json"], { cwd: dir, env: { TOLLGATE_AST_THREADS: threads } });
      expect(dry.code, dry.stderr).toBe(0);
      const report = JSON.parse(readFileSync(path.join(dir, "r.json"), "utf8"));
      expect(report.steps[0].details.totalReplacements).toBe(20);
      expect(report.outcomes[0].label).toBe("AST Edit: 20 replacements in 10 files");
      expect(report.outcomes[0].outcome).toBe("dry-run");
    }
    const run = await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", "r.json"], { cwd: dir, env: { TOLLGATE_AST_THREADS: "2" } });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(dir, "r.json"), "utf8"));
    expect(report.outcomes[0].outcome).toBe("applied");
    expect(report.outcomes[0].resultText).toBe("Applied 20 replacements in 10 files.");
    expect(readFileSync(path.join(dir, "src/f00.ts"), "utf8")).toBe("export const v0 = Effect.andThen(a, Effect.andThen(b, f))\n");
  });

  it("in this thread and through the pool, the whole-file parse's answer; the call its recovery loses is listed", async () => {
    const fixture = readFileSync(path.join(REPO_ROOT, "test/tools/fixtures/recovery.ts.txt"), "utf8");
    const dir = await testdir({
      "src/d.ts": fixture,
      "src/plain.ts": "export const x = Effect.map(a, f)\n",
      "recipe.yaml":
        'version: 1\nsteps:\n  - tool: ast_edit\n    with:\n      ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }]\n      lang: ts\n      path: src\n',
    });
    const lost = fixture.split("\n").findIndex((l) => l.includes("Effect.map(options.workflow.executionId")) + 1;
    for (const threads of ["0", "2"]) {
      const dry = await tollgate(["run", "recipe.yaml", "--dry-run", "--report", "r.json"], { cwd: dir, env: { TOLLGATE_AST_THREADS: threads } });
      expect(dry.code, dry.stderr).toBe(0);
      const report = JSON.parse(readFileSync(path.join(dir, "r.json"), "utf8"));
      expect(report.outcomes[0].label).toBe("AST Edit: 1 replacement in 1 file");
      expect(report.steps[0].details.parseErrors.some((e: string) => e.startsWith(`d.ts:${lost}:`))).toBe(true);
    }
  });
});
