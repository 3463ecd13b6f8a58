import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";
import { project } from "./fixtures.js";

const read = (dir: string, rel: string) => readFile(path.join(dir, rel), "utf8");
const NO_STACK = /\n\s+at /;

describe("tollgate test (real CLI)", () => {
  it("passes a case with created, modified and deleted files; case vars override recipe vars", async () => {
    const dir = await testdir(
      project({
        "__tests__/vars/case.yaml": "vars: { greeting: hi }\n",
        "__tests__/vars/input/a.txt": "a\n",
        "__tests__/vars/expected/a.txt": "hi world\n",
        "__tests__/vars/expected/new/b.txt": "created\n",
      }),
    );
    const r = await tollgate(["test", "codemod.yaml"], { cwd: dir });
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("✓ codemod.yaml › basic");
    expect(r.stderr).toContain("✓ codemod.yaml › vars");
    expect(r.stderr).toMatch(/\n2 passed, 0 failed$/);
    expect(r.code).toBe(0);
  });

  it("a tree that differs fails with exit 1 and a unified diff per file", async () => {
    const dir = await testdir(
      project({
        "__tests__/basic/expected/a.txt": "goodbye world\n",
        "__tests__/basic/expected/gone.txt": "bye\n",
        "__tests__/basic/expected/new/b.txt": "", // placeholder, removed below
      }),
    );
    await rm(path.join(dir, "__tests__/basic/expected/new"), { recursive: true });
    const r = await tollgate(["test", "."], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("✗ codemod.yaml › basic");
    expect(r.stderr).toContain("differs: a.txt");
    expect(r.stderr).toContain("not produced: gone.txt");
    expect(r.stderr).toContain("not expected: new/b.txt");
    expect(r.stderr).toContain("--- expected/a.txt");
    expect(r.stderr).toContain("+++ actual/a.txt");
    expect(r.stderr).toContain("-goodbye world");
    expect(r.stderr).toContain("+hello world");
    expect(r.stderr).toContain("+++ actual/new/b.txt");
    expect(r.stderr).toMatch(/\n0 passed, 1 failed$/);
  });

  it("--update writes expected/ and expected-report.json, after which the case passes", async () => {
    const dir = await testdir(project({ "__tests__/basic/expected/a.txt": "stale\n", "__tests__/basic/expected/extra.txt": "x\n" }));
    const u = await tollgate(["test", "codemod.yaml", "--update"], { cwd: dir });
    expect(u.stderr).toContain("updated expected/, expected-report.json");
    expect(u.code).toBe(0);
    expect(await read(dir, "__tests__/basic/expected/a.txt")).toBe("hello world\n");
    await expect(read(dir, "__tests__/basic/expected/extra.txt")).rejects.toThrow();
    const snap = JSON.parse(await read(dir, "__tests__/basic/expected-report.json"));
    expect(snap.outcomes.map((o: { id: string; outcome: string; label: string }) => [o.id, o.outcome, o.label])).toEqual([
      ["put#1", "applied", "Put: 3 file(s)"],
    ]);
    expect(snap.outcomes[0].files.map((f: { path: string; change: string }) => [f.path, f.change])).toEqual([
      ["a.txt", "modified"],
      ["new/b.txt", "created"],
      ["gone.txt", "deleted"],
    ]);
    const text = await read(dir, "__tests__/basic/expected-report.json");
    expect(text).not.toContain(dir);
    expect(text).not.toMatch(/durationMs|sha256|fingerprint|startedAt/);

    // The snapshot is now checked: an edited snapshot fails with a diff of the report.
    await writeFile(path.join(dir, "__tests__/basic/expected-report.json"), text.replace('"applied"', '"dry-run"'));
    const r = await tollgate(["test", "codemod.yaml"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("report: the report differs from expected-report.json");
    expect(r.stderr).toContain('-      "outcome": "dry-run"');
    expect(r.stderr).toContain('+      "outcome": "applied"');
  });

  it("detects a recipe that is not idempotent, unless the case opts out", async () => {
    const dir = await testdir({
      ...project(),
      "append.yaml": "version: 1\ntools: [./tools/append.ts]\nsteps:\n  - id: add\n    tool: append\n    with: { path: log.txt, line: more }\n",
      "__tests__/append/again/input/log.txt": "start\n",
      "__tests__/append/again/expected/log.txt": "start\nmore\n",
      "__tests__/append/opted-out/case.yaml": "idempotent: false\n",
      "__tests__/append/opted-out/input/log.txt": "start\n",
      "__tests__/append/opted-out/expected/log.txt": "start\nmore\n",
      // With two recipes in the folder, each owns __tests__/<recipe-name>/.
      "__tests__/codemod/basic/input/a.txt": "a\n",
      "__tests__/codemod/basic/expected/a.txt": "hello world\n",
      "__tests__/codemod/basic/expected/new/b.txt": "created\n",
    });
    await rm(path.join(dir, "__tests__/basic"), { recursive: true });
    const r = await tollgate(["test", ".", "--reporter", "json"], { cwd: dir });
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.summary).toEqual({ passed: 2, failed: 1, invalid: 0, updated: 0 });
    expect(out.exitCode).toBe(1);
    const byName = Object.fromEntries(out.cases.map((c: { case: string }) => [c.case, c]));
    expect(byName.again.status).toBe("failed");
    expect(byName.again.failures[0].kind).toBe("idempotence");
    expect(byName.again.failures[0].message).toContain("add#1 Append: 1 file (applied)");
    expect(byName.again.failures[0].diff).toContain("+more");
    expect(byName["opted-out"]).toMatchObject({ status: "passed", idempotence: "off" });
    expect(byName.basic).toMatchObject({ recipe: "codemod.yaml", status: "passed", idempotence: "checked" });
    expect(r.stderr).toContain("not idempotent: a second run on the result staged 1 change(s)");
  });

  it("--filter selects cases by glob over <recipe-name>/<case>", async () => {
    const dir = await testdir(
      project({
        "__tests__/other/input/a.txt": "a\n",
        "__tests__/other/expected/a.txt": "wrong\n",
      }),
    );
    const glob = await tollgate(["test", ".", "--filter", "codemod/oth*", "--reporter", "json"], { cwd: dir });
    expect(glob.code).toBe(1);
    expect(JSON.parse(glob.stdout).cases.map((c: { case: string }) => c.case)).toEqual(["other"]);
    expect(glob.stderr).not.toContain("› basic");
  });

  it("invalid fixtures exit 2 with positioned messages: missing input/, bad case.yaml, bad policy, invalid recipe", async () => {
    const dir = await testdir(
      project({
        "__tests__/no-input/expected/a.txt": "x\n",
        "__tests__/bad-case/case.yaml": "idempotent: maybe\nextra: 1\n",
        "__tests__/bad-case/input/a.txt": "a\n",
        "__tests__/bad-policy/policy.yaml": "version: 1\ndefault: yolo\n",
        "__tests__/bad-policy/input/a.txt": "a\n",
        "broken/recipe.yaml": "version: 1\nsteps:\n  - tool: nosuchtool\n",
        "broken/__tests__/one/input/a.txt": "a\n",
      }),
    );
    const r = await tollgate(["test", "."], { cwd: dir });
    expect(r.stderr).not.toMatch(NO_STACK);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("✓ codemod.yaml › basic");
    expect(r.stderr).toContain("✗ codemod.yaml › no-input (invalid fixture)");
    expect(r.stderr).toContain("missing input/ folder");
    expect(r.stderr).toContain("__tests__/bad-case/case.yaml:1:13 idempotent: Expected boolean");
    expect(r.stderr).toContain('__tests__/bad-case/case.yaml:2:1 extra: Unknown key "extra"');
    expect(r.stderr).toMatch(/__tests__\/bad-policy\/policy\.yaml:2:\d+ default/);
    expect(r.stderr).toMatch(/broken\/recipe\.yaml:3:\d+ steps\[0\]\.tool: Unknown tool "nosuchtool"/);
    expect(r.stderr).toMatch(/\n1 passed, 0 failed, 4 invalid$/);
  });
});
