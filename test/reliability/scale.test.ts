import { mkdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";

// Hostile inputs that are about size rather than shape: each must end with a clear result,
// in bounded time, with no stack trace.
describe("hostile scale", () => {
  it("a 100,000-file tree: ast_edit finds the one match and finishes", { timeout: 180_000 }, async () => {
    const dir = await testdir({
      "r.yaml":
        'version: 1\nsteps:\n  - tool: ast_edit\n    with:\n      ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }]\n      lang: ts\n',
    });
    for (let d = 0; d < 100; d++) {
      mkdirSync(path.join(dir, "src", `d${d}`), { recursive: true });
      for (let i = 0; i < 1000; i++) writeFileSync(path.join(dir, "src", `d${d}`, `f${i}.ts`), "export const x = 1;\n");
    }
    writeFileSync(path.join(dir, "src/d0/hit.ts"), "Effect.map(a, f);\n");
    const r = await tollgate(["run", "r.yaml", "--report", "report.json"], { cwd: dir, timeoutMs: 150_000 });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    const report = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
    expect(report.steps[0].details.filesSearched).toBe(100_001);
    expect(report.outcomes.map((o: { label: string; outcome: string }) => [o.label, o.outcome])).toEqual([["AST Edit: 1 replacement in 1 file", "dry-run"]]);
  });

  it("patterns that match everything: no hang, a clear result each", async () => {
    const dir = await testdir({
      "a.ts": "const a = f(1, 2);\nlet b = [a, a];\n",
      "r.yaml": [
        "version: 1",
        "steps:",
        "  - { id: same, tool: ast_edit, with: { ops: [{ pat: $A, out: $A }], lang: ts } }",
        "  - { id: search, tool: ast_grep, with: { pat: [$A], lang: ts, limit: 5 } }",
        "  - { id: clobber, tool: ast_edit, with: { ops: [{ pat: $A, out: x }], lang: ts } }",
        "",
      ].join("\n"),
    });
    const r = await tollgate(["run", "r.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(3);
    const report = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
    const steps = report.steps.map((s: { id: string; status: string; resultText: string }) => [s.id, s.status, s.resultText.split("\n")[0]]);
    expect(steps[0]).toEqual(["same", "ok", "No replacements made"]);
    expect(steps[1].slice(0, 2)).toEqual(["search", "ok"]);
    expect(steps[2][1]).toBe("error");
    expect(steps[2][2]).toContain("Overlapping replacements detected");
    expect(report.outcomes).toEqual([]);
    expect(await readFile(path.join(dir, "a.ts"), "utf8")).toBe("const a = f(1, 2);\nlet b = [a, a];\n");
  });
});
