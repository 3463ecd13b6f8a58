import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";

// One CLI: the same option means and says the same in every command, one way to ask for JSON,
// usage lines that name what a command takes, and the documented exit codes. Real CLI processes.

/** `--name  text [type]` rows of a help text, joined across wrapped lines: option name → text. */
function optionTexts(help: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of help.split("\n")) {
    if (line === "Examples:") break;
    const m = /^\s+(?:-\w, )?--([\w-]+)\s+(.*)$/.exec(line);
    if (m) {
      current = m[1]!;
      out.set(current, m[2]!.trim());
    } else if (current && /^\s{10,}\S/.test(line)) {
      out.set(current, `${out.get(current)!} ${line.trim()}`);
    } else current = undefined;
  }
  // The type and choices yargs appends are part of the option too: keep them, normalised.
  for (const [k, v] of out) out.set(k, v.replace(/\s+/g, " "));
  return out;
}

const RECIPE = [
  "version: 1",
  "steps:",
  "  - tool: ast_edit",
  "    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: src }",
  "",
].join("\n");

describe("shared options", () => {
  it("run, plan and apply list the options they share with the same texts", async () => {
    const dir = await testdir();
    const help = async (c: string) => optionTexts((await tollgate([c, "--help"], { cwd: dir })).stdout);
    const [runTexts, planTexts, applyTexts] = await Promise.all([help("run"), help("plan"), help("apply")]);
    const shared = [...applyTexts.keys()].filter((k) => runTexts.has(k));
    // Everything apply takes but the plan file is one of run's options.
    expect([...applyTexts.keys()].filter((k) => !runTexts.has(k))).toEqual([]);
    expect(shared.length).toBeGreaterThanOrEqual(19);
    for (const name of shared) expect(applyTexts.get(name), name).toBe(runTexts.get(name));
    for (const [name, text] of runTexts) expect(planTexts.get(name), name).toBe(text);
    // What the plan fixes is not an option of apply.
    for (const name of ["recipe", "var", "shard"]) expect(applyTexts.has(name), name).toBe(false);
  });

  it("an option shared by other commands says the same there", async () => {
    const dir = await testdir();
    const help = async (c: string[]) => optionTexts((await tollgate([...c, "--help"], { cwd: dir })).stdout);
    const [run, validate, tools, test, merge] = await Promise.all([["run"], ["validate"], ["tools"], ["test"], ["merge-reports"]].map(help));
    for (const [name, other] of [
      ["format", validate],
      ["format", tools],
      ["format", test],
      ["format", merge],
      ["color", test],
      ["policy", validate],
      ["var", validate],
      ["cwd", validate],
      ["cwd", tools],
      ["report", merge],
      ["sarif", merge],
    ] as const) {
      expect(other!.get(name), name).toBe(run!.get(name));
    }
  });
});

describe("usage lines", () => {
  it("each command's help starts with what it takes; the command list shows the same", async () => {
    const dir = await testdir();
    const usage = {
      run: "tollgate run <recipe> [files..] [options]",
      plan: "tollgate plan <recipe> [files..] [options]",
      apply: "tollgate apply <plan.json> [options]",
      validate: "tollgate validate <recipe> [options]",
      "merge-reports": "tollgate merge-reports <reports..> [options]",
    };
    const all = await tollgate(["--help"], { cwd: dir });
    expect(all.code).toBe(0);
    for (const [command, line] of Object.entries(usage)) {
      const r = await tollgate([command, "--help"], { cwd: dir });
      expect(r.code, command).toBe(0);
      expect(r.stdout.split("\n")[0], command).toBe(line);
      expect(all.stdout, command).toContain(`  ${line.replace(/ \[options\]$/, "")}  `);
    }
    for (const text of [all.stdout, (await tollgate(["plan", "--help"], { cwd: dir })).stdout]) {
      expect(text).not.toContain("[positionals..]");
    }
  });
});

describe("one way to ask for JSON", () => {
  it("validate --format json: every issue with its place, and exit 2", async () => {
    const dir = await testdir({
      "src/a.ts": "x\n",
      "recipe.yaml": [
        "version: 1",
        "steps:",
        "  - tool: ast_edit",
        '    with: { ops: [{ pat: "let a = 1; let b = 2", out: "x" }], lang: ts, path: srcc }',
        "  - tool: ast_grep",
        '    with: { pat: ["Effect.map($A, "], lang: ts, path: src }',
        "",
      ].join("\n"),
    });
    const r = await tollgate(["validate", "recipe.yaml", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout) as { kind: string; valid: boolean; exitCode: number; issues: Array<Record<string, unknown>> };
    expect(doc.kind).toBe("validate");
    expect(doc.valid).toBe(false);
    expect(doc.exitCode).toBe(2);
    expect(doc.issues.map((i) => [i.severity, i.file, i.line, i.col, i.path])).toEqual([
      ["error", "recipe.yaml", 4, 26, "steps[0].with.ops[0].pat"],
      ["error", "recipe.yaml", 4, 79, "steps[0].with.path"],
      ["warning", "recipe.yaml", 6, 19, "steps[1].with.pat[0]"],
    ]);
    expect(doc.issues[1]!.message).toMatch(/^Path not found: srcc/);
    // The same problems on stderr, as without --format json.
    expect(r.stderr).toContain("recipe.yaml:4:79 steps[0].with.path: Path not found: srcc");
  });

  it("validate --format json of a recipe that does not load: its issues, exit 2; of a valid one: no issues, exit 0", async () => {
    const dir = await testdir({ "src/a.ts": "x\n", "bad.yaml": "version: 1\nsteps:\n  - tool: nope\n", "ok.yaml": RECIPE });
    const bad = await tollgate(["validate", "bad.yaml", "--format", "json"], { cwd: dir });
    expect(bad.code).toBe(2);
    const doc = JSON.parse(bad.stdout) as { steps: number | null; issues: Array<{ file: string; line: number; message: string }> };
    expect(doc.steps).toBeNull();
    expect(doc.issues).toHaveLength(1);
    expect(doc.issues[0]).toMatchObject({ file: "bad.yaml", line: 3 });
    expect(doc.issues[0]!.message).toMatch(/nope/);
    const ok = await tollgate(["validate", "ok.yaml", "--format", "json"], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, steps: 1, issues: [], exitCode: 0 });
    // Text: nothing on stdout, the verdict on stderr.
    const text = await tollgate(["validate", "ok.yaml"], { cwd: dir });
    expect(text.stdout).toBe("");
    expect(text.stderr).toBe("ok.yaml: valid (1 step)");
  });

  it("tools and test take --format json; --json and --reporter json stay as aliases", async () => {
    const dir = await testdir();
    const [format, alias] = await Promise.all([tollgate(["tools", "--format", "json"], { cwd: dir }), tollgate(["tools", "--json"], { cwd: dir })]);
    expect(format.code).toBe(0);
    expect(format.stdout).toBe(alias.stdout);
    expect((JSON.parse(format.stdout) as Array<{ name: string }>).map((t) => t.name)).toContain("ast_edit");
    const text = await tollgate(["tools"], { cwd: dir });
    expect(text.stdout).toMatch(/^ast_grep: /m);
    const [testFormat, testAlias] = await Promise.all([
      tollgate(["test", ".", "--format", "json"], { cwd: dir }),
      tollgate(["test", ".", "--reporter", "json"], { cwd: dir }),
    ]);
    expect(testFormat.code).toBe(testAlias.code);
    expect(JSON.parse(testFormat.stdout)).toEqual(expect.objectContaining({ schemaVersion: 1 }));
    expect(Object.keys(JSON.parse(testFormat.stdout) as object)).toEqual(Object.keys(JSON.parse(testAlias.stdout) as object));
  });

  it("run --format json prints the report; text prints nothing on stdout", async () => {
    const dir = await testdir({ "src/a.ts": "Effect.map(a, f);\n", "r.yaml": RECIPE });
    const json = await tollgate(["run", "r.yaml", "--format", "json"], { cwd: dir });
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { outcomes: Array<{ outcome: string }> }).outcomes.map((o) => o.outcome)).toEqual(["dry-run"]);
    const text = await tollgate(["run", "r.yaml", "--format", "text"], { cwd: dir });
    expect(text.stdout).toBe("");
    expect(text.stderr).toContain("Preview: 1 replacement in 1 file [AST Edit]");
  });
});

describe("exit codes", () => {
  it("0 done, 1 outstanding (--check found changes), 2 invalid input, 3 a failure during the run", async () => {
    const dir = await testdir({ "src/a.ts": "Effect.map(a, f);\n", "r.yaml": RECIPE, ".tollgate/journal.json": "{}" });
    const clean = await testdir({ "src/a.ts": "Effect.map(a, f);\n", "r.yaml": RECIPE });
    expect((await tollgate(["run", "r.yaml", "--dry-run"], { cwd: clean })).code).toBe(0);
    expect((await tollgate(["run", "r.yaml", "--check"], { cwd: clean })).code).toBe(1);
    expect((await tollgate(["run", "r.yaml", "--mode", "nope"], { cwd: clean })).code).toBe(2);
    expect((await tollgate(["run"], { cwd: clean })).code).toBe(2);
    // A journal left by an interrupted apply: the run refuses to start.
    const locked = await tollgate(["run", "r.yaml", "--mode", "auto-apply"], { cwd: dir });
    expect(locked.code).toBe(3);
    expect(locked.stderr).not.toMatch(/\n\s+at /);
  });
});
