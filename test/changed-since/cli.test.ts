import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { gitdir, testdir, tollgate } from "../helpers/testdir.js";

const git = async (cwd: string, ...args: string[]) => (await execa("git", args, { cwd })).stdout;
const RECIPE = "version: 1\nsteps:\n  - id: info\n    tool: ast_edit\n    with: { ops: [{ pat: 'console.log($A)', out: 'console.info($A)' }], lang: ts }\n";

interface Outcome {
  id: string;
  outcome: string;
  files: Array<{ path: string }>;
}
const outcomesOf = async (file: string) => (JSON.parse(await readFile(file, "utf8")) as { outcomes: Outcome[] }).outcomes;
const pathsOf = (outcomes: Outcome[]) => outcomes.flatMap((o) => o.files.map((f) => f.path)).sort();

async function repo(): Promise<string> {
  return gitdir({ "recipe.yaml": RECIPE, "src/a.ts": "console.log(1);\n", "src/b.ts": "export const b = 1;\n", ".gitignore": "*.json\n" });
}

describe("--changed-since (CLI)", () => {
  it("with nothing changed runs over no file and exits 0, where the whole tree would stage a change", async () => {
    const dir = await repo();
    const whole = await tollgate(["run", "recipe.yaml", "--check", "--report", "whole.json"], { cwd: dir });
    expect(whole.code).toBe(1);
    expect(pathsOf(await outcomesOf(path.join(dir, "whole.json")))).toEqual(["src/a.ts"]);
    const none = await tollgate(["run", "recipe.yaml", "--check", "--changed-since", "HEAD", "--report", "none.json"], { cwd: dir });
    expect(none.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(none.code).toBe(0);
    expect(await outcomesOf(path.join(dir, "none.json"))).toEqual([]);
  });

  it("stages changes only in changed files; with named files and --shard, in their intersection", async () => {
    const dir = await repo();
    await writeFile(path.join(dir, "src/b.ts"), "console.log(2);\n");
    await writeFile(path.join(dir, "src/c.ts"), "console.log(3);\n"); // untracked
    const changed = await tollgate(["run", "recipe.yaml", "--check", "--changed-since", "HEAD", "--report", "r.json"], { cwd: dir });
    expect(changed.code).toBe(1);
    expect(pathsOf(await outcomesOf(path.join(dir, "r.json")))).toEqual(["src/b.ts", "src/c.ts"]);
    const named = await tollgate(["run", "recipe.yaml", "src/a.ts", "src/b.ts", "--check", "--changed-since", "HEAD", "--report", "n.json"], { cwd: dir });
    expect(named.code).toBe(1);
    expect(pathsOf(await outcomesOf(path.join(dir, "n.json")))).toEqual(["src/b.ts"]);
    // The shards of the changed set partition it.
    const shards: string[] = [];
    for (const i of [1, 2]) {
      await tollgate(["run", "recipe.yaml", "--check", "--changed-since", "HEAD", "--shard", `${i}/2`, "--report", `s${i}.json`], { cwd: dir });
      shards.push(...pathsOf(await outcomesOf(path.join(dir, `s${i}.json`))));
    }
    expect(shards.sort()).toEqual(["src/b.ts", "src/c.ts"]);
  });

  it("runs over every file when the recipe changed since REF, and says so", async () => {
    const dir = await repo();
    await writeFile(path.join(dir, "recipe.yaml"), `${RECIPE}# tuned\n`);
    const r = await tollgate(["run", "recipe.yaml", "--check", "--changed-since", "HEAD", "--report", "r.json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--changed-since HEAD: the recipe's inputs changed (recipe.yaml): every file is in scope");
    expect(pathsOf(await outcomesOf(path.join(dir, "r.json")))).toEqual(["src/a.ts"]);
  });

  it("refuses an unknown REF and a tree outside git: exit 2, one message with the fetch-depth hint", async () => {
    const dir = await repo();
    const r = await tollgate(["run", "recipe.yaml", "--changed-since", "origin/main"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--changed-since origin/main: unknown revision");
    expect(r.stderr).toContain("fetch-depth: 2");
    expect(r.stderr).toContain("HEAD^1");
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    const plain = await testdir({ "recipe.yaml": RECIPE, "a.ts": "console.log(1);\n" });
    const p = await tollgate(["run", "recipe.yaml", "--changed-since", "main"], { cwd: plain });
    expect(p.code).toBe(2);
    expect(p.stderr).toContain("is not inside a git repository");
  });

  it("plan records the merge-base and apply uses it, not REF resolved again", async () => {
    const dir = await repo();
    await git(dir, "checkout", "-q", "-b", "feature");
    await writeFile(path.join(dir, "src/b.ts"), "console.log(2);\n");
    await git(dir, "commit", "-q", "-am", "b logs");
    const base = await git(dir, "rev-parse", "main");
    const plan = await tollgate(["plan", "recipe.yaml", "--changed-since", "main", "--out", "plan.json"], { cwd: dir });
    expect(plan.code).toBe(0);
    const planned = JSON.parse(await readFile(path.join(dir, "plan.json"), "utf8")) as {
      plan: { changedSince: { ref: string; base: string } };
      outcomes: Outcome[];
    };
    expect(planned.plan.changedSince).toEqual({ ref: "main", base });
    expect(pathsOf(planned.outcomes)).toEqual(["src/b.ts"]);
    // main catches up with the branch: `main` resolved again would give an empty change set.
    await git(dir, "branch", "-f", "main", "feature");
    const apply = await tollgate(["apply", "plan.json", "--approve-all", "--report", "applied.json"], { cwd: dir });
    expect(apply.code).toBe(0);
    const outcomes = await outcomesOf(path.join(dir, "applied.json"));
    expect(outcomes.map((o) => [o.id, o.outcome])).toEqual([[planned.outcomes[0]!.id, "applied"]]);
    expect(await readFile(path.join(dir, "src/b.ts"), "utf8")).toBe("console.info(2);\n");
    expect(await readFile(path.join(dir, "src/a.ts"), "utf8")).toBe("console.log(1);\n");
  });
});
