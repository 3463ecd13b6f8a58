import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";

// Upper-cases one file through pi.files.stage: one action per step, with exact file hashes.
const SHOUT = `
export default (pi) => ({
  name: "shout", label: "Shout", description: "Upper-cases one file", deferrable: true,
  parameters: pi.typebox.Type.Object({ file: pi.typebox.Type.String() }),
  async execute(_id, params) {
    const text = await pi.files.read(params.file);
    const staged = await pi.files.stage({ label: "Shout: " + params.file, changes: [{ path: params.file, content: text.toUpperCase() }] });
    return { content: [{ type: "text", text: staged.staged ? "staged " + params.file : "nothing to do" }] };
  },
});`;

async function project(policy = "version: 1\ndefault: auto-apply\n") {
  return testdir({
    "a.txt": "alpha\n",
    "b.txt": "beta\n",
    "c.txt": "gamma\n",
    "tools/shout.ts": SHOUT,
    "recipe.yaml": [
      "version: 1",
      "tools: [./tools/shout.ts]",
      "vars: { second: b.txt }",
      "steps:",
      "  - { id: a, tool: shout, with: { file: a.txt } }",
      "  - { id: b, tool: shout, with: { file: '${{ vars.second }}' } }",
      "",
    ].join("\n"),
    "policy.yaml": policy,
  });
}

const json = async (file: string) => JSON.parse(await readFile(file, "utf8"));
const read = (dir: string, f: string) => readFile(path.join(dir, f), "utf8");

describe("tollgate plan / apply", () => {
  it("plan writes nothing and records fingerprints, hashes, vars and what the policy would decide", async () => {
    const dir = await project();
    const r = await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--var", "second=c.txt", "--out", "out/plan.json", "--patch", "plan.patch"], {
      cwd: dir,
    });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    expect(await read(dir, "c.txt")).toBe("gamma\n");
    expect(await read(dir, "plan.patch")).toContain("-gamma\n+GAMMA\n");
    const plan = await json(path.join(dir, "out/plan.json"));
    expect(plan.schemaVersion).toBe(1);
    expect(plan.run.command).toBe("plan");
    expect(plan.outcomes.map((o: { id: string; outcome: string }) => [o.id, o.outcome])).toEqual([
      ["b#1", "dry-run"],
      ["a#1", "dry-run"],
    ]);
    expect(plan.plan).toMatchObject({
      version: 1,
      recipe: { path: "recipe.yaml" },
      policy: { path: "policy.yaml" },
      vars: ["second=c.txt"],
      mode: null,
      files: null,
      shard: null,
    });
    expect(plan.plan.recipe.sha256).toBe(plan.run.recipe.sha256);
    expect(plan.plan.actions.map((a: { id: string; label: string; wouldDecide: { decision: string } }) => [a.id, a.label, a.wouldDecide.decision])).toEqual([
      ["b#1", "Shout: c.txt", "auto-apply"],
      ["a#1", "Shout: a.txt", "auto-apply"],
    ]);
    expect(plan.plan.actions[0].fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.plan.actions[0].files[0]).toMatchObject({ path: "c.txt" });
  });

  it("apply: an action whose file changed since the plan is stale (nothing of it written), others applied, exit 3", async () => {
    const dir = await project();
    expect((await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir })).code).toBe(0);
    await writeFile(path.join(dir, "b.txt"), "beta, edited\n");
    const r = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(3);
    expect(await read(dir, "a.txt")).toBe("ALPHA\n");
    expect(await read(dir, "b.txt")).toBe("beta, edited\n");
    const rep = await json(path.join(dir, "report.json"));
    expect(rep.run.command).toBe("apply");
    expect(rep.outcomes.map((o: Record<string, unknown>) => [o.id, o.outcome, o.action])).toEqual([
      ["b#1", "stale", "discard"],
      ["a#1", "applied", "apply"],
    ]);
    expect(rep.outcomes[0].reason).toMatch(/^changed since the plan: b#1 has fingerprint [0-9a-f]{12}, the plan has [0-9a-f]{12}$/);
    expect(rep.outcomes[0].error).toBe(rep.outcomes[0].reason); // a stale outcome always says why in error
    expect(rep.outcomes[1].error).toBeNull();
    expect(rep.outcomes[0].rule).toEqual({ name: "plan", index: null });
    expect(rep.missing).toEqual([]);
    expect(rep.fromPlan.path).toBe(path.join(dir, "plan.json"));
    expect(rep.summary.outcomes).toMatchObject({ applied: 1, stale: 1 });
  });

  it("apply twice: the second run finds the changes already there (missing, alreadyApplied), writes nothing, exit 0", async () => {
    const dir = await project();
    await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir });
    const first = await tollgate(["apply", "plan.json", "--policy", "policy.yaml"], { cwd: dir });
    expect(first.code).toBe(0);
    expect([await read(dir, "a.txt"), await read(dir, "b.txt")]).toEqual(["ALPHA\n", "BETA\n"]);
    const second = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--format", "json"], { cwd: dir });
    expect(second.code).toBe(0);
    const rep = JSON.parse(second.stdout);
    expect(rep.outcomes).toEqual([]);
    expect(rep.missing.map((m: Record<string, unknown>) => [m.id, m.alreadyApplied])).toEqual([
      ["b#1", true],
      ["a#1", true],
    ]);
    expect(second.stderr).toContain("planned action a#1 did not come back (already applied): Shout: a.txt");
    expect([await read(dir, "a.txt"), await read(dir, "b.txt")]).toEqual(["ALPHA\n", "BETA\n"]);
  });

  it("require-approval: apply leaves actions pending (exit 1) unless approved by id or --approve-all", async () => {
    const dir = await project("version: 1\ndefault: require-approval\n");
    await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir });
    const plan = await json(path.join(dir, "plan.json"));
    expect(plan.plan.actions.map((a: { wouldDecide: { decision: string } }) => a.wouldDecide.decision)).toEqual(["require-approval", "require-approval"]);
    const pending = await tollgate(["apply", "plan.json", "--policy", "policy.yaml"], { cwd: dir });
    expect(pending.code).toBe(1);
    expect(await read(dir, "a.txt")).toBe("alpha\n");
    const fpA = plan.plan.actions.find((a: { id: string }) => a.id === "a#1").fingerprint;
    const one = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--approve", fpA, "--format", "json"], { cwd: dir });
    expect(one.code).toBe(1);
    expect(JSON.parse(one.stdout).outcomes.map((o: { id: string; outcome: string }) => [o.id, o.outcome])).toEqual([
      ["b#1", "pending-approval"],
      ["a#1", "applied"],
    ]);
    expect(await read(dir, "a.txt")).toBe("ALPHA\n");
    const all = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--approve-all"], { cwd: dir });
    expect(all.code).toBe(0);
    expect(await read(dir, "b.txt")).toBe("BETA\n");
  });

  it("an action the plan does not know is discarded; a changed recipe or policy is refused (exit 2)", async () => {
    const dir = await project();
    await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir });
    const plan = await json(path.join(dir, "plan.json"));
    plan.plan.actions = plan.plan.actions.filter((a: { id: string }) => a.id !== "a#1");
    await writeFile(path.join(dir, "partial.json"), JSON.stringify(plan));
    const r = await tollgate(["apply", "partial.json", "--policy", "policy.yaml", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep.outcomes.map((o: { id: string; outcome: string; reason: string }) => [o.id, o.outcome, o.reason])).toEqual([
      ["b#1", "applied", "auto-apply by policy default"],
      ["a#1", "discarded", "not in the plan: a#1 has no planned counterpart"],
    ]);
    expect(await read(dir, "a.txt")).toBe("alpha\n");

    await writeFile(path.join(dir, "policy.yaml"), "version: 1\ndefault: auto-apply\nrules: []\n");
    const policyChanged = await tollgate(["apply", "plan.json", "--policy", "policy.yaml"], { cwd: dir });
    expect(policyChanged.code).toBe(2);
    expect(policyChanged.stderr).toMatch(
      /^policy\.yaml: not the policy the plan was made with \(sha256 [0-9a-f]{12}, plan has [0-9a-f]{12}\)\. Refusing to apply; run tollgate plan again\.$/,
    );
    await writeFile(path.join(dir, "recipe.yaml"), (await read(dir, "recipe.yaml")) + "# edited\n");
    const recipeChanged = await tollgate(["apply", "plan.json", "--policy", "policy.yaml"], { cwd: dir });
    expect(recipeChanged.code).toBe(2);
    expect(recipeChanged.stderr).toContain("recipe.yaml: the recipe changed since the plan was made");
    expect(await read(dir, "c.txt")).toBe("gamma\n");
  });

  it("bad plan files and plan-only flags are input errors without a stack trace", async () => {
    const dir = await testdir({ "x.json": "{}", "bad.json": "{nope" });
    for (const args of [
      ["apply", "x.json"],
      ["apply", "bad.json"],
      ["apply", "missing.json"],
      ["apply", "x.json", "--policy", "p.yaml"],
    ]) {
      const r = await tollgate(args, { cwd: dir });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await tollgate(["apply", "x.json"], { cwd: dir })).stderr).toBe("x.json: not a tollgate plan (make one with: tollgate plan <recipe> --out x.json)");
  });

  it("plan accepts --recipe with files as positionals and says when the plan was not saved", async () => {
    const dir = await project();
    const r = await tollgate(["plan", "--recipe", "recipe.yaml", "a.txt", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).plan.files).toEqual(["a.txt"]);
    expect(r.stderr).toContain("the plan was not saved; pass --out plan.json to apply it later");
  });
});
