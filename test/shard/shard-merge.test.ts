import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/report/types.js";
import { testdir, tollgate } from "../helpers/testdir.js";

const RECIPE = [
  "version: 1",
  "steps:",
  "  - id: and-then",
  "    tool: ast_edit",
  "    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: . }",
  "",
].join("\n");

async function project() {
  const files: Record<string, string> = { "recipe.yaml": RECIPE };
  for (let i = 0; i < 16; i++) {
    files[`src/m${String(i).padStart(2, "0")}.ts`] =
      i % 4 === 3 ? `export const k${i} = ${i};\n` : `export const v${i} = Effect.map(a${i}, (x) => x + ${i});\n`;
  }
  return testdir(files);
}

const json = async (file: string) => JSON.parse(await readFile(file, "utf8")) as Report;

/** Each changed file with its outcome: what "the same outcome" means across shards. */
const perFile = (r: Report) =>
  r.outcomes.flatMap((o) => o.files.map((f) => `${f.path} ${f.change} ${f.beforeSha256} ${f.afterSha256} +${f.additions}-${f.deletions} ${o.outcome}`)).sort();

describe("--shard i/n and merge-reports", () => {
  it("the union of the shards equals the unsharded run, file for file and outcome for outcome", async () => {
    const dir = await project();
    const full = await tollgate(["run", "recipe.yaml", "--check", "--report", "full.json", "--patch", "full.patch"], { cwd: dir });
    expect(full.code).toBe(1);
    const shards = [];
    for (const i of [1, 2, 3]) {
      const r = await tollgate(["run", "recipe.yaml", "--check", "--shard", `${i}/3`, "--report", `s${i}.json`], { cwd: dir });
      expect(r.stderr).not.toMatch(/\n\s+at /);
      shards.push(await json(path.join(dir, `s${i}.json`)));
    }
    const fullReport = await json(path.join(dir, "full.json"));
    expect(perFile(fullReport)).toHaveLength(12);
    // Every file is in exactly one shard, and no shard is empty for this corpus.
    const owned = shards.map((s) => perFile(s));
    expect(owned.flat().sort()).toEqual(perFile(fullReport));
    expect(new Set(owned.flat()).size).toBe(12);

    // Arguments in any order give the same merge (shard order decides).
    const m = await tollgate(["merge-reports", "s3.json", "s1.json", "s2.json", "--report", "merged.json", "--patch", "merged.patch"], { cwd: dir });
    expect(m.stderr).not.toMatch(/\n\s+at /);
    expect(m.code).toBe(1);
    const merged = await json(path.join(dir, "merged.json"));
    expect(perFile(merged)).toEqual(perFile(fullReport));
    expect(merged.outcomes.map((o) => o.shard?.index)).toEqual(shards.flatMap((s, i) => s.outcomes.map(() => i + 1)));
    // ast_edit stages one action per step and run, so each shard has its own action.
    expect(merged.summary).toMatchObject({ steps: 1, stepErrors: 0, actions: 3, outcomes: { "dry-run": 3 }, exitCode: 1 });
    expect(merged.exitCode).toBe(1);
    expect(merged.run.command).toBe("merge-reports");
    expect(merged.steps.map((s) => [s.id, s.status])).toEqual([["and-then", "ok"]]);
    expect(await readFile(path.join(dir, "merged.patch"), "utf8")).toBe(await readFile(path.join(dir, "full.patch"), "utf8"));
    const again = await tollgate(["merge-reports", "s1.json", "s2.json", "s3.json", "--format", "json"], { cwd: dir });
    expect(JSON.parse(again.stdout).outcomes).toEqual(merged.outcomes);
  });

  it("edit and write steps belong to the shard of their file: every change is staged by exactly one shard", async () => {
    const dir = await project();
    const steps = ["version: 1", "steps:"];
    for (let i = 0; i < 6; i++) steps.push(`  - id: w${i}`, "    tool: write", `    with: { path: out/f${i}.txt, content: "${i}" }`);
    steps.push("  - id: e", "    tool: edit", "    with: { path: src/m00.ts, oldText: Effect.map, newText: Effect.andThen }", "");
    await writeFile(path.join(dir, "files.yaml"), steps.join("\n"));
    const ids: string[] = [];
    for (const i of [1, 2, 3]) {
      const r = await tollgate(["run", "files.yaml", "--shard", `${i}/3`, "--report", `f${i}.json`], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      const report = await json(path.join(dir, `f${i}.json`));
      ids.push(...report.outcomes.map((o) => o.id));
      for (const s of report.steps) if (s.actions.length === 0) expect(s.resultText).toMatch(/^Skipped: \S+ belongs to shard [123]\/3$/);
    }
    expect(ids.sort()).toEqual(["e#1", "w0#1", "w1#1", "w2#1", "w3#1", "w4#1", "w5#1"]);
  });

  it("auto-apply in shards writes the same files as one unsharded run", async () => {
    const a = await project();
    const b = await project();
    await writeFile(path.join(a, "auto.yaml"), "version: 1\ndefault: auto-apply\n");
    await writeFile(path.join(b, "auto.yaml"), "version: 1\ndefault: auto-apply\n");
    expect((await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml"], { cwd: a })).code).toBe(0);
    for (const i of [1, 2]) expect((await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--shard", `${i}/2`], { cwd: b })).code).toBe(0);
    for (let i = 0; i < 16; i++) {
      const f = `src/m${String(i).padStart(2, "0")}.ts`;
      expect(await readFile(path.join(b, f), "utf8"), f).toBe(await readFile(path.join(a, f), "utf8"));
    }
  });

  it("refuses reports of different recipes, duplicate shards and non-reports (exit 2); bad --shard is exit 2", async () => {
    const dir = await project();
    await tollgate(["run", "recipe.yaml", "--shard", "1/2", "--report", "a.json"], { cwd: dir });
    await writeFile(path.join(dir, "other.yaml"), RECIPE.replace("and-then", "other"));
    await tollgate(["run", "other.yaml", "--shard", "2/2", "--report", "b.json"], { cwd: dir });
    await writeFile(path.join(dir, "junk.json"), "[1]");
    const diff = await tollgate(["merge-reports", "a.json", "b.json"], { cwd: dir });
    expect(diff.code).toBe(2);
    expect(diff.stderr).toContain("b.json: made from a different recipe than a.json");
    const dup = await tollgate(["merge-reports", "a.json", "a.json"], { cwd: dir });
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain("a.json: shard 1/2 is also in a.json");
    const junk = await tollgate(["merge-reports", "junk.json"], { cwd: dir });
    expect(junk.code).toBe(2);
    expect(junk.stderr).toBe("junk.json: not a tollgate report (schemaVersion 1 with run, steps and outcomes)");
    const partial = await tollgate(["merge-reports", "a.json"], { cwd: dir });
    expect(partial.code).toBe(0);
    expect(partial.stderr).toContain("shards 2 of 2 are missing from the merge");
    expect(partial.stderr).toMatch(/tollgate: merged 1 report, \d+ actions?[:( ]/);
    expect(partial.stderr).not.toMatch(/\b1 (reports|actions)\b/);
    for (const bad of ["0/2", "3/2", "x"]) expect((await tollgate(["run", "recipe.yaml", "--shard", bad], { cwd: dir })).code).toBe(2);
  });
});
