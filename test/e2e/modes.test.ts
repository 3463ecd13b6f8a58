import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ReportSchema, type Report } from "../../src/report/schema.js";
import { gitdir, tollgate } from "../helpers/testdir.js";

const A = `import { Effect } from "effect";\nexport const a = Effect.map(Effect.succeed(1), (n) => n + 1);\n`;
const B = `import { Effect } from "effect";\nexport const b = Effect.map(x, f);\nexport const c = Effect.map(y, g);\n`;
const A_DONE = A.replace("Effect.map", "Effect.andThen");
const B_DONE = B.replaceAll("Effect.map", "Effect.andThen");

async function project(extra: Record<string, string> = {}) {
  return gitdir({
    "src/a.ts": A,
    "lib/b.ts": B,
    "recipe.yaml": [
      "version: 1",
      "name: and-then",
      "steps:",
      "  - id: src",
      "    tool: ast_edit",
      '    with: { ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }], lang: ts, path: src }',
      "  - id: lib",
      "    tool: ast_edit",
      '    with: { ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }], lang: ts, path: lib }',
      "",
    ].join("\n"),
    "auto.yaml": "version: 1\ndefault: auto-apply\n",
    "approve.yaml": "version: 1\ndefault: require-approval\n",
    ...extra,
  });
}

const read = (dir: string, f: string) => readFile(path.join(dir, f), "utf8");

async function reportOf(dir: string, file = "report.json"): Promise<Report> {
  const report = JSON.parse(await read(dir, file));
  const errors = [...Value.Errors(ReportSchema, report)].map((e) => `${e.path}: ${e.message}`);
  expect(errors).toEqual([]);
  return report;
}

async function gitApplyCheck(dir: string, patch: string) {
  return execa("git", ["apply", "--check", patch], { cwd: dir, reject: false });
}

const outcomes = (r: Report) => r.outcomes.map((o) => [o.id, o.decision, o.outcome]);

describe("run modes on a git repo (real CLI, real ast_edit)", () => {
  it("auto-apply: files rewritten, exit 0, report complete and valid against the schema", async () => {
    const dir = await project();
    const r = await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", "out/report.json"], { cwd: dir });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(await read(dir, "src/a.ts")).toBe(A_DONE);
    expect(await read(dir, "lib/b.ts")).toBe(B_DONE);
    const rep = await reportOf(dir, "out/report.json");
    expect(outcomes(rep)).toEqual([
      ["lib#1", "auto-apply", "applied"],
      ["src#1", "auto-apply", "applied"],
    ]);
    const lib = rep.outcomes[0]!;
    expect(lib).toMatchObject({
      label: "AST Edit: 2 replacements in 1 file",
      sourceToolName: "ast_edit",
      step: "lib",
      requested: null,
      rule: { name: "default", index: null },
      approval: null,
      action: "apply",
      resultText: "Applied 2 replacements in 1 file.",
      details: { action: "apply", reason: "auto-apply by policy default", sourceToolName: "ast_edit", label: "AST Edit: 2 replacements in 1 file" },
      error: null,
    });
    expect(lib.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(lib.files).toEqual([
      {
        path: "lib/b.ts",
        change: "modified",
        additions: 2,
        deletions: 2,
        beforeSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        afterSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    expect(lib.diff).toContain("diff --git a/lib/b.ts b/lib/b.ts\n");
    expect(rep.summary).toMatchObject({ steps: 2, actions: 2, filesChanged: 2, additions: 3, deletions: 3, exitCode: 0 });
    expect(rep.run).toMatchObject({ mode: "auto-apply", dryRun: false, interrupted: false, git: { dirty: false } });
    expect(rep.run.git.head).toMatch(/^[0-9a-f]{40}$/);
    expect(rep.run.recipe.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(rep.run.policy.path).toBe(path.join(dir, "auto.yaml"));
    expect(r.stderr).toContain("tollgate: 2 steps, 2 actions: 2 applied (exit 0)");
  });

  it("require-approval, no approval: nothing written, exit 1, the patch applies and equals the change", async () => {
    const dir = await project();
    const r = await tollgate(
      ["run", "recipe.yaml", "--policy", "approve.yaml", "--report", "report.json", "--patch", "changes.patch", "--summary", "summary.md"],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    expect(await read(dir, "src/a.ts")).toBe(A);
    const rep = await reportOf(dir);
    expect(outcomes(rep)).toEqual([
      ["lib#1", "require-approval", "pending-approval"],
      ["src#1", "require-approval", "pending-approval"],
    ]);
    expect(rep.outcomes[0]).toMatchObject({ action: "discard", reason: "awaiting approval (policy default)" });
    // text mode shows the unapplied diffs on stderr (like terraform plan)
    expect(r.stderr).toContain("+export const b = Effect.andThen(x, f);");
    expect((await gitApplyCheck(dir, "changes.patch")).exitCode).toBe(0);
    await execa("git", ["apply", "changes.patch"], { cwd: dir });
    expect(await read(dir, "src/a.ts")).toBe(A_DONE);
    expect(await read(dir, "lib/b.ts")).toBe(B_DONE);
    const md = await read(dir, "summary.md");
    expect(md).toContain("| pending-approval | 2 |");
    expect(md).toContain("| 2 | lib | ast_edit | ok | lib#1 |");
  });

  it("require-approval with --approve <id> and with --approvals FILE (fingerprints) applies exactly those", async () => {
    const dir = await project();
    const byId = await tollgate(["run", "recipe.yaml", "--policy", "approve.yaml", "--approve", "src#1", "--approve", "scr#1", "--report", "report.json"], {
      cwd: dir,
    });
    expect(byId.code).toBe(1); // lib#1 still awaits approval
    expect(byId.stderr).toContain("tollgate: --approve scr#1 matched no action of this run");
    expect(byId.stderr).not.toContain("--approve src#1 matched");
    expect(await read(dir, "src/a.ts")).toBe(A_DONE);
    expect(await read(dir, "lib/b.ts")).toBe(B);
    const rep = await reportOf(dir);
    expect(rep.outcomes.map((o) => [o.id, o.outcome, o.approval])).toEqual([
      ["lib#1", "pending-approval", null],
      ["src#1", "applied", { by: "src#1", via: "flag" }],
    ]);
    const fp = rep.outcomes[0]!.fingerprint;
    await writeFile(path.join(dir, "approvals.yaml"), `- fingerprint: ${fp}\n  by: alice\n`);
    const byFile = await tollgate(["run", "recipe.yaml", "--policy", "approve.yaml", "--approvals", "approvals.yaml", "--report", "report.json"], { cwd: dir });
    expect(byFile.code).toBe(0);
    expect(await read(dir, "lib/b.ts")).toBe(B_DONE);
    expect((await reportOf(dir)).outcomes.map((o) => [o.id, o.outcome, o.approval])).toEqual([["lib#1", "applied", { by: "alice", via: "file" }]]);
    expect(byFile.stderr).toContain("approved by alice in approvals file");
  });

  it("--approvals FILE with a bare fingerprint names no approver twice in the reason", async () => {
    const dir = await project();
    await tollgate(["run", "recipe.yaml", "--policy", "approve.yaml", "--report", "report.json"], { cwd: dir });
    const fp = (await reportOf(dir)).outcomes.find((o) => o.id === "lib#1")!.fingerprint;
    await writeFile(path.join(dir, "approvals.yaml"), `- ${fp}\n`);
    const r = await tollgate(["run", "recipe.yaml", "--policy", "approve.yaml", "--approvals", "approvals.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(1); // src#1 still awaits approval
    const lib = (await reportOf(dir)).outcomes.find((o) => o.id === "lib#1")!;
    expect([lib.outcome, lib.approval, lib.reason]).toEqual(["applied", { by: "approvals file", via: "file" }, "approved in approvals file (policy default)"]);
    expect(r.stderr).not.toContain("approved by approvals file");
  });

  it("--approve takes a comma-separated list as well as repeats", async () => {
    const dir = await project();
    const r = await tollgate(["run", "recipe.yaml", "--policy", "approve.yaml", "--approve", "src#1,lib#1", "--report", "report.json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect((await reportOf(dir)).outcomes.map((o) => [o.id, o.outcome])).toEqual([
      ["lib#1", "applied"],
      ["src#1", "applied"],
    ]);
  });

  it("no policy is a dry run (exit 0); --check exits 1 while something is staged and 0 once clean", async () => {
    const dir = await project();
    const dry = await tollgate(["run", "recipe.yaml", "--report", "report.json", "--patch", "p.patch"], { cwd: dir });
    expect(dry.code).toBe(0);
    expect(await read(dir, "src/a.ts")).toBe(A);
    expect(outcomes(await reportOf(dir))).toEqual([
      ["lib#1", "dry-run", "dry-run"],
      ["src#1", "dry-run", "dry-run"],
    ]);
    expect((await gitApplyCheck(dir, "p.patch")).exitCode).toBe(0);
    const check = await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--check", "--report", "report.json"], { cwd: dir });
    expect(check.code).toBe(1);
    expect(await read(dir, "src/a.ts")).toBe(A);
    expect((await reportOf(dir)).run).toMatchObject({ mode: "dry-run", check: true });
    expect((await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml"], { cwd: dir })).code).toBe(0);
    const clean = await tollgate(["run", "recipe.yaml", "--check"], { cwd: dir });
    expect(clean.code).toBe(0);
  });

  it("--dry-run and --check force dry-run over --mode and --approve-all (no usage error): nothing written", async () => {
    const dir = await project();
    const dry = await tollgate(
      ["run", "recipe.yaml", "--policy", "approve.yaml", "--mode", "auto-apply", "--approve-all", "--dry-run", "--report", "report.json"],
      { cwd: dir },
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect((await reportOf(dir)).run).toMatchObject({ mode: "dry-run" });
    expect(outcomes(await reportOf(dir))).toEqual([
      ["lib#1", "dry-run", "dry-run"],
      ["src#1", "dry-run", "dry-run"],
    ]);
    expect((await reportOf(dir)).outcomes.map((o) => [o.rule.name, o.reason])).toEqual([
      ["--dry-run", "dry-run (--dry-run)"],
      ["--dry-run", "dry-run (--dry-run)"],
    ]);
    const check = await tollgate(["run", "recipe.yaml", "--mode", "auto-apply", "--check", "--report", "report.json"], { cwd: dir });
    expect(check.code, check.stderr).toBe(1);
    // The deciding "rule" names what the user asked for.
    expect((await reportOf(dir)).outcomes.map((o) => [o.rule.name, o.reason])).toEqual([
      ["--check", "dry-run (--check)"],
      ["--check", "dry-run (--check)"],
    ]);
    expect((await tollgate(["plan", "recipe.yaml", "--report", "report.json"], { cwd: dir })).code).toBe(0);
    expect((await reportOf(dir)).outcomes.map((o) => o.rule.name)).toEqual(["plan", "plan"]);
    expect(await read(dir, "src/a.ts")).toBe(A);
    expect(await read(dir, "lib/b.ts")).toBe(B);
  });

  it("policy label/tool/step globs match free text: '*' crosses '/' in a label (labels name paths)", async () => {
    const dir = await project({
      "labels.yaml": [
        "version: 1",
        "steps:",
        "  - { id: gen-one, tool: write, with: { path: out/deep/x.txt, content: x } }",
        "  - { id: gen-two, tool: write, with: { path: out/y.txt, content: y } }",
        "",
      ].join("\n"),
      "p.yaml": [
        "version: 1",
        "default: dry-run",
        "rules:",
        "  - { name: deep writes, match: { label: 'Write: create out/deep*' }, decision: discard }",
        "  - { name: generated, match: { step: 'gen*', tool: 'wr*' }, decision: auto-apply }",
        "",
      ].join("\n"),
    });
    const r = await tollgate(["run", "labels.yaml", "--policy", "p.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(outcomes(await reportOf(dir))).toEqual([
      ["gen-two#1", "auto-apply", "applied"],
      ["gen-one#1", "discard", "discarded"],
    ]);
  });

  it("an output file that cannot be written is one clear line naming it (exit 3), not an internal error", async () => {
    const dir = await project({ taken: "a file\n" });
    for (const [flag, file, why] of [
      ["--report", "taken/r.json", "a parent path is a file"],
      ["--patch", "src", "it is a directory"],
    ] as const) {
      const r = await tollgate(["run", "recipe.yaml", flag, file], { cwd: dir });
      expect(r.code).toBe(3);
      expect(r.stderr.split("\n").at(-1)).toBe(`tollgate: cannot write ${flag} ${file}: ${why}`);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
  });

  it("policy rules: first match wins, rule name and index recorded; protect blocks (exit 3, nothing written)", async () => {
    const dir = await project({
      "rules.yaml": [
        "version: 1",
        "default: require-approval",
        "rules:",
        "  - name: small src edits",
        "    match: { tool: ast_edit, paths: ['src/**'], maxFiles: 5, maxReplacements: 1 }",
        "    decision: auto-apply",
        "  - match: { step: lib }",
        "    decision: discard",
        "",
      ].join("\n"),
      "protect.yaml": "version: 1\ndefault: auto-apply\nprotect: ['lib/**']\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "rules.yaml", "--report", "report.json", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    const stdoutReport = JSON.parse(r.stdout) as Report;
    expect(stdoutReport.outcomes.map((o) => [o.id, o.decision, o.rule, o.outcome])).toEqual([
      ["lib#1", "discard", { name: "rules[1]", index: 1 }, "discarded"],
      ["src#1", "auto-apply", { name: "small src edits", index: 0 }, "applied"],
    ]);
    expect(stdoutReport.outcomes[1]!.reason).toBe('auto-apply by rule "small src edits"');
    const blocked = await tollgate(["run", "recipe.yaml", "--policy", "protect.yaml", "--report", "report.json"], { cwd: dir });
    expect(blocked.code).toBe(3);
    const rep = await reportOf(dir);
    expect(rep.outcomes[0]).toMatchObject({ id: "lib#1", decision: "blocked", outcome: "blocked", action: "discard" });
    expect(rep.outcomes[0]!.error).toMatch(/^blocked: Refusing to write protected path\(s\): lib\/b\.ts/);
    expect(await read(dir, "lib/b.ts")).toBe(B);
  });

  it("positional files restrict the tools (pre-commit style, with --recipe)", async () => {
    const dir = await project();
    const r = await tollgate(["run", "--recipe", "recipe.yaml", "--policy", "auto.yaml", "src/a.ts", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(await read(dir, "src/a.ts")).toBe(A_DONE);
    expect(await read(dir, "lib/b.ts")).toBe(B);
    expect((await reportOf(dir)).run.files).toEqual(["src/a.ts"]);
  });

  it("positional files restrict edit and write too: a named file outside them is skipped, nothing staged", async () => {
    const dir = await project({
      "notes.txt": "hello\n",
      "edits.yaml": [
        "version: 1",
        "steps:",
        "  - id: notes",
        "    tool: edit",
        "    with: { path: notes.txt, oldText: hello, newText: bye }",
        "  - id: created",
        "    tool: write",
        "    with: { path: new.txt, content: new }",
        "  - id: a",
        "    tool: edit",
        "    with: { path: src/a.ts, oldText: Effect.map, newText: Effect.andThen }",
        "",
      ].join("\n"),
    });
    const r = await tollgate(["run", "--check", "--recipe", "edits.yaml", "src/a.ts", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(1);
    const report = await reportOf(dir);
    expect(report.outcomes.map((o) => o.id)).toEqual(["a#1"]);
    expect(report.steps.map((s) => [s.id, s.status, s.resultText])).toEqual([
      ["notes", "ok", "Skipped: notes.txt is not among the run's files"],
      ["created", "ok", "Skipped: new.txt is not among the run's files"],
      ["a", "ok", expect.stringContaining("Edit: 1 replacement in src/a.ts")],
    ]);
    const clean = await tollgate(["run", "--check", "--recipe", "edits.yaml", "lib/b.ts"], { cwd: dir });
    expect(clean.code).toBe(0);
  });

  it("an explicit discard of an action touching a protected path is honoured (discarded, no error); one not discarded stays blocked", async () => {
    const dir = await project({
      "protect.yaml": 'version: 1\ndefault: auto-apply\nprotect: ["secret/**"]\n',
      "secret.yaml": [
        "version: 1",
        "steps:",
        "  - id: s",
        "    tool: write",
        "    with: { path: secret/key.txt, content: x }",
        "  - tool: resolve",
        "    with: { action: discard, reason: never mind }",
        "  - id: t",
        "    tool: write",
        "    with: { path: secret/other.txt, content: y }",
        "",
      ].join("\n"),
    });
    const r = await tollgate(["run", "secret.yaml", "--policy", "protect.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(3); // t#1 is still blocked
    const report = await reportOf(dir);
    expect(report.outcomes.map((o) => [o.id, o.decision, o.action, o.reason, o.outcome, o.error])).toEqual([
      ["s#1", "blocked", "discard", "never mind", "discarded", null],
      ["t#1", "blocked", "discard", expect.stringMatching(/^blocked: /), "blocked", expect.any(String)],
    ]);
  });

  it("resolve: step with an explicit resolve step next: that step resolves the action, the rest before the next tool", async () => {
    const dir = await project({
      "step.yaml": [
        "version: 1",
        "resolve: step",
        "steps:",
        "  - id: src",
        "    tool: ast_edit",
        '    with: { ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }], lang: ts, path: src }',
        "  - tool: resolve",
        "    with: { action: discard, reason: not this one }",
        "  - id: two",
        "    tool: write",
        "    with: { path: one.txt, content: one }",
        "  - id: three",
        "    tool: write",
        "    with: { path: two.txt, content: two }",
        "  - id: lib",
        "    tool: ast_edit",
        '    with: { ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }], lang: ts, path: lib }',
        "",
      ].join("\n"),
    });
    const r = await tollgate(["run", "step.yaml", "--policy", "auto.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const report = await reportOf(dir);
    expect(report.outcomes.map((o) => [o.id, o.requested?.action ?? null, o.outcome])).toEqual([
      ["src#1", "discard", "discarded"],
      ["two#1", null, "applied"],
      ["three#1", null, "applied"],
      ["lib#1", null, "applied"],
    ]);
    expect(report.steps.map((s) => [s.id, s.status])).toEqual([
      ["src", "ok"],
      ["1-resolve", "ok"],
      ["two", "ok"],
      ["three", "ok"],
      ["lib", "ok"],
    ]);
    expect(await read(dir, "src/a.ts")).toBe(A);
    expect(await read(dir, "lib/b.ts")).toBe(B_DONE);
  });
});
