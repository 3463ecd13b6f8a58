import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";

// The newcomer's first hour: what validate finds before a run, what a missing path
// says, whole error texts, and usage mistakes that suggest the right flag. Real CLI processes.
const astEdit = (withText: string) => ["version: 1", "vars: { src: src }", "steps:", "  - tool: ast_edit", `    with: ${withText}`, ""].join("\n");

describe("validate finds what can be known before a run", () => {
  it("an invalid pattern, an unsupported lang and a missing path: exit 2, each at its line and column", async () => {
    const dir = await testdir({
      "src/a.ts": "Effect.map(a, f);\n",
      "recipe.yaml": [
        "version: 1",
        "vars: { src: src }",
        "steps:",
        "  - tool: ast_edit",
        '    with: { ops: [{ pat: "let a = 1; let b = 2", out: "x" }], lang: ts, path: srcc }',
        "  - tool: ast_grep",
        "    with: { pat: [x], lang: cobol, path: '${{ vars.src }}' }",
        "",
      ].join("\n"),
    });
    const r = await tollgate(["validate", "recipe.yaml"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("valid (");
    const lines = r.stderr.split("\n");
    expect(lines).toContain(
      "recipe.yaml:5:26 steps[0].with.ops[0].pat: Invalid pattern for TypeScript: let a = 1; let b = 2: Multiple AST nodes are detected. Please check the pattern source `let a = 1; let b = 2`. (ops[0].pat)",
    );
    expect(lines).toContain(
      `recipe.yaml:5:79 steps[0].with.path: Path not found: srcc; paths are relative to the workspace root ${dir} (--cwd; default: the working directory), not to the recipe's folder`,
    );
    expect(lines.some((l) => l.startsWith("recipe.yaml:7:29 steps[1].with.lang: Unsupported language 'cobol'. Supported: "))).toBe(true);
  });

  it("paths are checked after --var; an ERROR-node pattern is a warning (the run accepts it, as ast-grep does)", async () => {
    const dir = await testdir({
      "lib/a.ts": "x\n",
      "recipe.yaml": astEdit('{ ops: [{ pat: "Effect.map($A, ", out: "y" }], lang: ts, path: "${{ vars.src }}" }'),
    });
    const missing = await tollgate(["validate", "recipe.yaml"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("steps[0].with.path: Path not found: src;");
    const ok = await tollgate(["validate", "recipe.yaml", "--var", "src=lib"], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain(
      'recipe.yaml:5:26 steps[0].with.ops[0].pat: warning: Pattern "Effect.map($A, " (TypeScript, ops[0].pat) contains an ERROR node',
    );
    expect(ok.stderr).toContain("recipe.yaml: valid (1 step, 1 warning)");
  });

  it("a recipe that is fine is valid, relative to --cwd", async () => {
    const dir = await testdir({
      "proj/src/a.ts": "x\n",
      "recipes/r.yaml": astEdit("{ ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: src }"),
    });
    const r = await tollgate(["validate", "recipes/r.yaml", "--cwd", "proj"], { cwd: dir });
    expect(r.stderr).toBe("recipes/r.yaml: valid (1 step)");
    expect(r.code).toBe(0);
  });
});

describe("paths that do not exist", () => {
  it("a file named on the command line that does not exist is an error (exit 2), not 'No replacements made'", async () => {
    const dir = await testdir({ "src/a.ts": "x\n", "ok.yaml": astEdit("{ ops: [{ pat: 'Effect.map($A, $B)', out: 'y' }], lang: ts, path: src }") });
    const r = await tollgate(["run", "ok.yaml", "src/nope.ts", "src/a.ts"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `src/nope.ts: no such file (files named on the command line are relative to the workspace root ${dir}: --cwd, default the working directory)`,
    );
    expect(r.stderr).not.toContain("src/a.ts: no such file");
  });

  it("Path not found at run time says paths are relative to the workspace root, not the recipe", async () => {
    const dir = await testdir({
      "recipes/src/a.ts": "x\n",
      "recipes/r.yaml": astEdit("{ ops: [{ pat: 'Effect.map($A, $B)', out: 'y' }], lang: ts, path: src }"),
    });
    await mkdir(path.join(dir, "elsewhere"));
    const r = await tollgate(["run", "../recipes/r.yaml"], { cwd: path.join(dir, "elsewhere") });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `✗ [1/1] 0-ast_edit (ast_edit): Path not found: src\n    paths are relative to the workspace root ${path.join(dir, "elsewhere")} (--cwd; default: the working directory), not to the recipe's folder`,
    );
  });
});

describe("a pattern the CLI rejects is invalid input for run, plan and apply too", () => {
  it("exit 2 before anything runs, printed in full at the pattern's line and column", async () => {
    const pat = `let ${"averyveryverylongname".repeat(8)} = 1; let b = 2`;
    const dir = await testdir({
      "a.ts": "x\n",
      "r.yaml": astEdit(`{ ops: [{ pat: "${pat}", out: "y" }], lang: ts, path: . }`),
      "g.yaml": [
        "version: 1",
        "steps:",
        "  - tool: write",
        "    with: { path: b.ts, content: x }",
        "  - tool: ast_grep",
        "    with: { pat: ['a', '$A $$$'], lang: python }",
        "",
      ].join("\n"),
    });
    for (const command of ["run", "plan"]) {
      const r = await tollgate(command === "plan" ? ["plan", "r.yaml", "--out", "plan.json"] : ["run", "r.yaml"], { cwd: dir });
      expect(r.code, command).toBe(2);
      const line = r.stderr.split("\n").find((l) => l.startsWith("r.yaml:5:26 steps[0].with.ops[0].pat: Invalid pattern for TypeScript: "))!;
      expect(line.length, command).toBeGreaterThan(300);
      expect(line).toContain(`Multiple AST nodes are detected. Please check the pattern source \`${pat}\`. (ops[0].pat)`);
      expect(r.stderr).not.toContain("✗ [1/1]");
    }
    // Nothing ran: not even the write step before the bad ast_grep step.
    const g = await tollgate(["run", "g.yaml"], { cwd: dir });
    expect(g.code).toBe(2);
    expect(g.stderr).toMatch(/^g\.yaml:6:24 steps\[1\]\.with\.pat\[1\]: Invalid pattern for Python: \$A \$\$\$: /m);
    expect(g.stderr).not.toContain("[1/2]");
  });
});

describe("usage mistakes", () => {
  it("an unknown option suggests the nearest one", async () => {
    const dir = await testdir({ "r.yaml": astEdit("{ ops: [{ pat: 'a', out: 'b' }], lang: ts }") });
    const r = await tollgate(["run", "r.yaml", "--polcy", "p.yaml", "--zzzzzz"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("tollgate: Unknown argument: polcy. Did you mean --policy?\ntollgate: Unknown argument: zzzzzz\n");
  });

  it("every option of every command has a description (tools --help describes --cwd)", async () => {
    const dir = await testdir();
    for (const command of ["run", "plan", "apply", "validate", "tools", "schema", "test", "recover", "merge-reports"]) {
      const r = await tollgate([command, "--help"], { cwd: dir });
      expect(r.code, command).toBe(0);
      const bare = r.stdout.split("\n").filter((l) => /^\s+(-\w, )?--[\w-]+\s+\[\w+\]\s*$/.test(l));
      expect(bare, command).toEqual([]);
    }
    expect((await tollgate(["tools", "--help"], { cwd: dir })).stdout).toMatch(/--cwd\s+Workspace root/);
  });
});
