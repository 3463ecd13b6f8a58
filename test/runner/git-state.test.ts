import { execFileSync } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitState } from "../../src/git.js";
import { gitdir, testdir, tollgate } from "../helpers/testdir.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

describe("the tree a run starts from (report's git fields)", () => {
  it("names HEAD and whether tracked files differ from it, as git itself says", async () => {
    const dir = await gitdir({ "a.ts": "export const a = 1\n" });
    const head = git(dir, "rev-parse", "HEAD");
    expect(await gitState(dir, {})).toEqual({ head, dirty: false });
    await writeFile(path.join(dir, "new.ts"), "untracked\n");
    expect(await gitState(dir, {})).toEqual({ head, dirty: false }); // untracked files do not count
    await writeFile(path.join(dir, "a.ts"), "export const a = 2\n");
    expect(await gitState(dir, {})).toEqual({ head, dirty: true });
    git(dir, "add", "a.ts");
    expect(await gitState(dir, {})).toEqual({ head, dirty: true }); // staged but not committed
  });

  it("has no HEAD before the first commit, and nothing outside a work tree", async () => {
    const outside = await testdir({ "a.ts": "x\n" });
    expect(await gitState(outside, {})).toEqual({ head: null, dirty: null });
    git(outside, "init", "-q");
    git(outside, "add", "a.ts");
    expect(await gitState(outside, {})).toEqual({ head: null, dirty: null });
  });
});

describe("git is asked only when the report is read", () => {
  const RECIPE =
    "version: 1\nsteps:\n  - tool: ast_edit\n    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: . }\n";

  /** A `git` first on PATH that notes its arguments, then runs the real git. */
  async function loggingGit(dir: string): Promise<{ env: Record<string, string>; calls: () => Promise<string[]> }> {
    const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const bin = path.join(dir, ".bin");
    const log = path.join(dir, ".git-calls");
    await mkdir(bin);
    await writeFile(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
    await chmod(path.join(bin, "git"), 0o755);
    const calls = async () => (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
    return { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` }, calls };
  }

  it("a check with no report (a pre-commit hook) starts no git process; --report records HEAD", async () => {
    const dir = await gitdir({ "recipe.yaml": RECIPE, "src/a.ts": "export const a = Effect.map(x, f)\n", ".gitignore": ".bin/\n.git-calls\nreport.json\n" });
    const { env, calls } = await loggingGit(dir);
    const check = await tollgate(["run", "recipe.yaml", "src/a.ts", "--check"], { cwd: dir, env });
    expect(check.code, check.stderr).toBe(1);
    expect(check.stderr).toContain("+export const a = Effect.andThen(x, f)");
    expect(await calls()).toEqual([]);

    const reported = await tollgate(["run", "recipe.yaml", "src/a.ts", "--check", "--report", "report.json"], { cwd: dir, env });
    expect(reported.code, reported.stderr).toBe(1);
    const report = JSON.parse(await readFile(path.join(dir, "report.json"), "utf8")) as { run: { git: { head: string | null; dirty: boolean | null } } };
    expect(report.run.git).toEqual({ head: git(dir, "rev-parse", "HEAD"), dirty: false });
    expect((await calls()).some((c) => c.startsWith("status "))).toBe(true);
  });
});
