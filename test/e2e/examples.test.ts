import { cp, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ReportSchema, type Report } from "../../src/report/schema.js";
import { CLI, REPO_ROOT, gitdir, testdir, tollgate } from "../helpers/testdir.js";

/** A git repo holding a copy of examples/sample. */
async function sample() {
  const dir = await gitdir();
  await cp(path.join(REPO_ROOT, "examples/sample"), dir, { recursive: true });
  await execa("git", ["add", "-A"], { cwd: dir });
  await execa("git", ["commit", "-qm", "sample"], { cwd: dir });
  return dir;
}

const recipe = (name: string) => path.join(REPO_ROOT, "recipes", name);
const policy = (name: string) => path.join(REPO_ROOT, "recipes/policies", `${name}.yaml`);
const read = (dir: string, f: string) => readFile(path.join(dir, f), "utf8");

async function reportOf(dir: string): Promise<Report> {
  const report = JSON.parse(await read(dir, "report.json"));
  expect([...Value.Errors(ReportSchema, report)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  return report;
}

describe("the examples in recipes/ on examples/sample", () => {
  it("effect-andthen.yaml (ast_edit codemod): dry-run by default, auto-apply rewrites nested calls too", async () => {
    const dir = await sample();
    const dry = await tollgate(["run", recipe("effect-andthen.yaml"), "--report", "report.json", "--patch", "p.patch"], { cwd: dir });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain("+  Effect.andThen(loadUser(id), (name) => Effect.andThen(Effect.succeed(name.length), (n) => `${name}:${n}`));");
    expect((await reportOf(dir)).outcomes.map((o) => [o.label, o.outcome])).toEqual([["AST Edit: 4 replacements in 2 files", "dry-run"]]);
    expect((await execa("git", ["apply", "--check", "p.patch"], { cwd: dir, reject: false })).exitCode).toBe(0);
    const auto = await tollgate(["run", recipe("effect-andthen.yaml"), "--policy", policy("auto-apply")], { cwd: dir });
    expect(auto.code).toBe(0);
    expect(await read(dir, "src/effects/user.ts")).toContain("Effect.andThen(loadUser(id), (name) => Effect.andThen(Effect.succeed(name.length)");
    expect(await read(dir, "src/effects/order.ts")).toContain("Effect.andThen(Effect.succeed(prices)");
  });

  it("resolve-each-step.yaml (resolve: step): the second step sees the first one applied", async () => {
    const dir = await sample();
    const r = await tollgate(["run", recipe("resolve-each-step.yaml"), "--policy", policy("auto-apply"), "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(0);
    const rep = await reportOf(dir);
    expect(rep.outcomes.map((o) => [o.id, o.outcome, o.resultText])).toEqual([
      ["and-then#1", "applied", "Applied 4 replacements in 2 files."],
      ["succeed-to-pipe#1", "applied", "Applied 3 replacements in 2 files."],
    ]);
    expect(await read(dir, "src/effects/order.ts")).toContain("Effect.succeed(prices).pipe(Effect.andThen((ps) => ");
  });

  it("explicit-resolve.yaml: apply honoured only where the policy allows, discard always; requested recorded", async () => {
    const dir = await sample();
    const auto = await tollgate(["run", recipe("explicit-resolve.yaml"), "--policy", policy("auto-apply"), "--report", "report.json"], { cwd: dir });
    expect(auto.code).toBe(0);
    const rep = await reportOf(dir);
    expect(rep.outcomes.map((o) => [o.id, o.requested, o.decision, o.action, o.outcome])).toEqual([
      ["header#1", { action: "apply", reason: "headers are wanted" }, "auto-apply", "apply", "applied"],
      ["and-then#1", { action: "discard", reason: "the Effect migration waits for the next release" }, "auto-apply", "discard", "discarded"],
    ]);
    expect(rep.outcomes[0]!.reason).toBe("headers are wanted");
    expect(await read(dir, "src/greet.ts")).toMatch(/^\/\/ SPDX-License-Identifier: MIT\n/);
    expect(await read(dir, "src/effects/user.ts")).toContain("Effect.map(");

    const fresh = await sample();
    const approval = await tollgate(["run", recipe("explicit-resolve.yaml"), "--policy", policy("require-approval"), "--report", "report.json"], {
      cwd: fresh,
    });
    expect(approval.code).toBe(1);
    expect((await reportOf(fresh)).outcomes.map((o) => [o.id, o.requested?.action, o.decision, o.outcome])).toEqual([
      ["header#1", "apply", "require-approval", "pending-approval"],
      ["and-then#1", "discard", "require-approval", "discarded"],
    ]);
    expect(await read(fresh, "src/greet.ts")).not.toContain("SPDX");
  });

  it("SIGINT between steps: the rest is not run, pending actions are discarded, report written, exit 130", async () => {
    const dir = await testdir({
      "a.txt": "hello\n",
      "tools/slow.ts": `
import { writeFileSync } from "node:fs";
export default (pi) => [
  { name: "stage", label: "Stage", description: "d", parameters: pi.typebox.Type.Object({}),
    async execute() { await pi.files.stage({ label: "Stage: a.txt", changes: [{ path: "a.txt", content: "changed\\n" }] }); return { content: [{ type: "text", text: "staged" }] }; } },
  { name: "slow", label: "Slow", description: "d", parameters: pi.typebox.Type.Object({}),
    async execute() { writeFileSync(pi.cwd + "/started", ""); await new Promise((r) => setTimeout(r, 1500)); return { content: [{ type: "text", text: "slow done" }] }; } },
];`,
      "recipe.yaml": "version: 1\ntools: [./tools/slow.ts]\nsteps:\n  - tool: stage\n  - tool: slow\n  - id: never\n    tool: slow\n",
      "auto.yaml": "version: 1\ndefault: auto-apply\n",
    });
    const child = execa(process.execPath, [CLI, "run", "recipe.yaml", "--policy", "auto.yaml", "--report", "report.json"], {
      cwd: dir,
      reject: false,
      stdin: "ignore",
      env: { CI: "true", NO_COLOR: "1" },
      timeout: 30_000,
    });
    while (!existsSync(path.join(dir, "started"))) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    const r = await child;
    expect(r.exitCode).toBe(130);
    const rep = await reportOf(dir);
    expect(rep.run.interrupted).toBe(true);
    expect(rep.exitCode).toBe(130);
    expect(rep.steps.map((s) => s.id)).toEqual(["0-stage", "1-slow"]);
    expect(rep.outcomes.map((o) => [o.id, o.action, o.outcome, o.reason])).toEqual([["0-stage#1", "discard", "discarded", "interrupted"]]);
    expect(await read(dir, "a.txt")).toBe("hello\n");
    await writeFile(path.join(dir, "started"), "");
  });

  it("a workspace locked by another run: exit 3 with a clear error, and the report is still written", async () => {
    const dir = await testdir({
      "a.txt": "hello\n",
      "recipe.yaml": "version: 1\nsteps:\n  - tool: write\n    with: { path: a.txt, content: x }\n",
      ".tollgate/lock": JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), command: "tollgate run" }),
    });
    const r = await tollgate(["run", "recipe.yaml", "--mode", "auto-apply", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("lock");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const rep = await reportOf(dir);
    expect(rep).toMatchObject({ exitCode: 3, steps: [], outcomes: [], summary: { exitCode: 3 } });
    expect(rep.run.error).toBe(r.stderr.trim().split("\n").at(-1));
    expect(await read(dir, "a.txt")).toBe("hello\n");
  });
});
