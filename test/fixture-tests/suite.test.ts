import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createExec } from "../../src/subprocess.js";
import { runTests, type TestOptions } from "../../src/fixture-tests/suite.js";
import { compareTrees, type Tree } from "../../src/fixture-tests/tree.js";
import { testdir } from "../helpers/testdir.js";
import { project } from "./fixtures.js";
import { nodeProcess } from "../../src/process-host.js";

function opts(dir: string, extra: Partial<TestOptions> = {}): TestOptions {
  return { targets: [dir], exec: createExec(dir, nodeProcess()), now: Date.now, displayBase: dir, ...extra };
}

const file = (text: string | Buffer) => ({ kind: "file" as const, data: Buffer.isBuffer(text) ? text : Buffer.from(text) });

describe("recipe test runner (in-process)", () => {
  it("--filter by substring; a filter that matches nothing and a missing target are exit 2", async () => {
    const dir = await testdir(project({ "__tests__/other/input/a.txt": "a\n", "__tests__/other/expected/a.txt": "wrong\n" }));
    const sub = await runTests(opts(dir, { filter: ["bas"] }));
    expect(sub.cases.map((c) => [c.name, c.status])).toEqual([["basic", "passed"]]);
    expect(sub.exitCode).toBe(0);
    const none = await runTests(opts(dir, { filter: ["nomatch"] }));
    expect(none.exitCode).toBe(2);
    expect(none.issues[0]?.message).toBe("no case matches --filter nomatch (2 case(s) found)");
    const missing = await runTests(opts(dir, { targets: [path.join(dir, "nope.yaml")] }));
    expect(missing.exitCode).toBe(2);
    expect(missing.issues[0]?.message).toBe("not found");
    const untested = await runTests(opts(dir, { targets: [path.join(dir, "tools")] }));
    expect(untested.exitCode).toBe(2);
    expect(untested.issues[0]?.message).toContain("no recipe tests found");
  });

  it("several recipes in one folder: cases go under __tests__/<recipe-name>/; a stray folder is invalid", async () => {
    const dir = await testdir({
      ...project(),
      "second.yaml": "version: 1\nsteps:\n  - tool: resolve\n    with: { action: discard, reason: nothing }\n",
    });
    const r = await runTests(opts(dir));
    expect(r.exitCode).toBe(2);
    expect(r.issues.map((i) => `${i.file}: ${i.message}`)).toEqual([
      "__tests__/basic: belongs to no recipe: 2 recipes share ., so cases go in __tests__/<recipe-name>/<case>/ (codemod, second)",
    ]);
  });

  it("an expected exit code and a policy from the case: require-approval leaves the tree as is", async () => {
    const dir = await testdir(
      project({
        "__tests__/approval/policy.yaml": "version: 1\ndefault: require-approval\n",
        "__tests__/approval/case.yaml": "exitCode: 1\n",
        "__tests__/approval/input/a.txt": "a\n",
        "__tests__/approval/expected/a.txt": "a\n",
        "__tests__/unexpected/policy.yaml": "version: 1\ndefault: require-approval\n",
        "__tests__/unexpected/input/a.txt": "a\n",
        "__tests__/unexpected/expected/a.txt": "a\n",
      }),
    );
    const r = await runTests(opts(dir, { filter: ["approval", "unexpected"] }));
    const byName = Object.fromEntries(r.cases.map((c) => [c.name, c]));
    expect(byName.approval).toMatchObject({ status: "passed", idempotence: "skipped" });
    expect(byName.unexpected?.status).toBe("failed");
    expect(byName.unexpected?.failures[0]).toMatchObject({ kind: "exit-code" });
    expect(byName.unexpected?.failures[0]?.message).toContain("the run exited 1, expected 0\nput#1 pending-approval: awaiting approval (policy default)");
  });

  it("git: the input is committed, so .gitignore holds and the tree comparison skips .git and .tollgate", async () => {
    const gitCheck = `
export default (pi) => ({
  name: "gitcheck", label: "Git check", description: "writes what git says",
  parameters: pi.typebox.Type.Object({}),
  async execute() {
    const r = await pi.exec("git", ["check-ignore", "debug.log"]);
    await pi.files.stage({ label: "Git check: 1 file", changes: [{ path: "status.txt", content: "code " + r.code + "\\n" + r.stdout }] });
    return { content: [{ type: "text", text: "ok" }] };
  },
});`;
    const dir = await testdir({
      "tools/gitcheck.ts": gitCheck,
      "check.yaml": "version: 1\ntools: [./tools/gitcheck.ts]\nsteps:\n  - tool: gitcheck\n",
      "__tests__/repo/case.yaml": "idempotent: false\n",
      "__tests__/repo/input/.gitignore": "*.log\n",
      "__tests__/repo/input/debug.log": "noise\n",
      "__tests__/repo/expected/.gitignore": "*.log\n",
      "__tests__/repo/expected/debug.log": "noise\n",
      "__tests__/repo/expected/status.txt": "code 0\ndebug.log\n",
      "__tests__/plain/case.yaml": "git: false\nidempotent: false\n",
      "__tests__/plain/input/.gitkeep": "",
      "__tests__/plain/expected/status.txt": "code 128\n",
    });
    const r = await runTests(opts(dir));
    expect(r.cases.map((c) => [c.name, c.status, c.failures.map((f) => f.message)])).toEqual([
      ["plain", "passed", []],
      ["repo", "passed", []],
    ]);
  });

  it("--update writes an empty expected tree as a .gitkeep; --keep keeps the workspace", async () => {
    const dir = await testdir({
      ...project(),
      "codemod.yaml": 'version: 1\ntools: [./tools/put.ts]\nsteps:\n  - tool: put\n    with: { files: { "a.txt": null } }\n',
      "__tests__/basic/input/a.txt": "a\n",
      "__tests__/basic/input/gone.txt": "",
      "__tests__/basic/input/keep.txt": "",
    });
    const r = await runTests(opts(dir, { update: true, keep: true, filter: ["basic"] }));
    expect(r.cases[0]).toMatchObject({ status: "passed", updated: ["expected/", "expected-report.json"] });
    expect(await readFile(path.join(dir, "__tests__/basic/expected/gone.txt"), "utf8")).toBe("");
    const ws = r.cases[0]?.workspace;
    expect(ws && (await stat(path.join(ws, "keep.txt"))).isFile()).toBe(true);
  });

  it("tree comparison is byte for byte and explains invisible differences", () => {
    const expected: Tree = new Map([
      ["crlf.txt", file("a\r\nb\r\n")],
      ["bom.txt", file("\uFEFFx\n")],
      ["bin.dat", file(Buffer.from([0, 1, 2]))],
      ["same.txt", file("same\n")],
    ]);
    const actual: Tree = new Map([
      ["crlf.txt", file("a\nb\n")],
      ["bom.txt", file("x\n")],
      ["bin.dat", file(Buffer.from([0, 1, 3]))],
      ["same.txt", file("same\n")],
    ]);
    const d = compareTrees(expected, actual);
    expect(d.map((x) => [x.path, x.kind])).toEqual([
      ["bin.dat", "differs"],
      ["bom.txt", "differs"],
      ["crlf.txt", "differs"],
    ]);
    expect(d[0]?.diff).toBe("Binary files differ: expected 3 bytes, actual 3 bytes\n");
    expect(d[1]?.diff).toMatch(/^a leading BOM differs\n/);
    expect(d[2]?.diff).toMatch(/^line endings differ \(CRLF vs LF\)\n--- expected\/crlf.txt\n\+\+\+ actual\/crlf.txt\n/);
  });
});
