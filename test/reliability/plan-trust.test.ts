import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";

// A plan.json is an artifact passed between jobs; anyone in between can edit it. It
// decides nothing: apply decides by the policy on its own command line and its own flags.
const RECIPE = 'version: 1\nsteps:\n  - id: w\n    tool: write\n    with: { path: a.txt, content: "CHANGED\\n" }\n';
const STRICT = "version: 1\ndefault: require-approval\n";

async function planned(): Promise<{ dir: string; plan: Record<string, any> }> {
  const dir = await testdir({ "a.txt": "original\n", "r.yaml": RECIPE, "policy.yaml": STRICT, "lax.yaml": "version: 1\ndefault: auto-apply\n" });
  const r = await tollgate(["plan", "r.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return { dir, plan: JSON.parse(await readFile(path.join(dir, "plan.json"), "utf8")) };
}
const a = (dir: string) => readFile(path.join(dir, "a.txt"), "utf8");
const noTrace = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at |internal error/);

describe("a plan decides nothing", () => {
  it("a plan whose mode and wouldDecide were edited to auto-apply still waits for approval under the policy given to apply", async () => {
    const { dir, plan } = await planned();
    plan.plan.mode = "auto-apply";
    plan.plan.actions[0].wouldDecide = { decision: "auto-apply", rule: { name: "default", index: null } };
    await writeFile(path.join(dir, "plan.json"), JSON.stringify(plan));
    const r = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--format", "json"], { cwd: dir });
    noTrace(r.stderr);
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stdout).outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(["pending-approval"]);
    expect(await a(dir)).toBe("original\n");
    // apply's own flags decide: --approve-all applies what was planned
    const ok = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--approve-all"], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(await a(dir)).toBe("CHANGED\n");
  });

  it("--policy is required when the plan was made with one, and must be that policy (sha256); else exit 2, nothing written", async () => {
    const { dir, plan } = await planned();
    const missing = await tollgate(["apply", "plan.json"], { cwd: dir });
    noTrace(missing.stderr);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      "plan.json: the plan was made with a policy (policy.yaml); pass the same policy to apply: tollgate apply plan.json --policy FILE",
    );
    const other = await tollgate(["apply", "plan.json", "--policy", "lax.yaml"], { cwd: dir });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^lax\.yaml: not the policy the plan was made with \(sha256 [0-9a-f]{12}, plan has [0-9a-f]{12}\)/);
    // editing the plan's policy path and hash to the lax one does not help: the hash must be the planned one
    plan.plan.policy = { path: "lax.yaml", sha256: plan.plan.policy.sha256 };
    await writeFile(path.join(dir, "plan.json"), JSON.stringify(plan));
    const swapped = await tollgate(["apply", "plan.json", "--policy", "lax.yaml"], { cwd: dir });
    expect(swapped.code).toBe(2);
    // a plan made without a policy is not applied under one it never previewed
    const noPolicy = await testdir({ "a.txt": "original\n", "r.yaml": RECIPE, "lax.yaml": "version: 1\ndefault: auto-apply\n" });
    expect((await tollgate(["plan", "r.yaml", "--out", "plan.json"], { cwd: noPolicy })).code).toBe(0);
    const added = await tollgate(["apply", "plan.json", "--policy", "lax.yaml"], { cwd: noPolicy });
    expect(added.code).toBe(2);
    expect(added.stderr).toContain("lax.yaml: the plan was made without a policy");
    expect(await a(dir)).toBe("original\n");
    expect(await a(noPolicy)).toBe("original\n");
  });

  it("a plan that does not match its schema or its recipe is refused (exit 2)", async () => {
    const { dir, plan } = await planned();
    const cases: Array<[string, (p: any) => void, RegExp]> = [
      ["mode not a decision", (p) => (p.plan.mode = "yolo"), /bad\.json: not a valid tollgate plan \(plan\.mode: /],
      ["fingerprint not a sha256", (p) => (p.plan.actions[0].fingerprint = "x"), /plan\.actions\.0\.fingerprint/],
      ["vars not strings", (p) => (p.plan.vars = [1]), /plan\.vars\.0/],
      [
        "action of a step the recipe lacks",
        (p) => (p.plan.actions[0].id = "nope#1"),
        /the plan does not match its recipe \(action nope#1: the recipe has no step "nope"\)/,
      ],
      ["action listed twice", (p) => p.plan.actions.push(p.plan.actions[0]), /action w#1 is listed twice/],
    ];
    for (const [name, edit, message] of cases) {
      const copy = structuredClone(plan);
      edit(copy);
      await writeFile(path.join(dir, "bad.json"), JSON.stringify(copy));
      const r = await tollgate(["apply", "bad.json", "--policy", "policy.yaml", "--approve-all"], { cwd: dir });
      noTrace(r.stderr);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(message);
    }
    expect(await a(dir)).toBe("original\n");
  });
});
