import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionRunStep } from "../helpers/action-step.js";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";

type Step = { id?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string>; with?: Record<string, unknown>; if?: string };
const load = async (file: string) => parse(await readFile(path.join(REPO_ROOT, file), "utf8"));

/** Every `run:` script of a workflow or composite action. */
function runs(doc: { runs?: { steps?: Step[] }; jobs?: Record<string, { steps?: Step[] }> }): string[] {
  const steps = [...(doc.runs?.steps ?? []), ...Object.values(doc.jobs ?? {}).flatMap((j) => j.steps ?? [])];
  return steps.filter((s) => typeof s.run === "string").map((s) => s.run!);
}

describe("action.yml and examples/github (structure)", () => {
  it("action.yml: composite, the documented inputs and outputs, inputs only through env", async () => {
    const action = await load("action.yml");
    expect(action.runs.using).toBe("composite");
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(["recipe", "policy", "mode", "args", "node-version", "fail-on-changes"]));
    for (const [name, input] of Object.entries<{ description?: string }>(action.inputs)) expect(input.description, name).toBeTruthy();
    for (const out of ["changed", "pending-count", "report", "sarif", "error-count"])
      expect(action.outputs[out].value).toBe(`\${{ steps.run.outputs.${out} }}`);
    for (const script of runs(action)) expect(script).not.toContain("${{");
    const steps: Step[] = action.runs.steps;
    for (const s of steps) if (s.run) expect(s.shell).toBe("bash");
    const run = steps.find((s) => s.id === "run")!;
    expect(Object.values(run.env!).join(" ")).toContain("${{ inputs.recipe }}");
    expect(steps.some((s) => s.uses?.startsWith("actions/cache@"))).toBe(true);
  });

  it("example workflows parse, have jobs with runs-on and steps, and never put ${{ }} in run:", async () => {
    const dir = path.join(REPO_ROOT, "examples/github");
    const files = (await readdir(dir)).filter((f) => f.endsWith(".yml") || f.endsWith(".yaml"));
    expect(files.sort()).toEqual(["approval-gate.yml", "campaign.yml", "code-scanning.yml", "codemod-pr.yml", "sharded.yml"]);
    const docs = Object.fromEntries(await Promise.all(files.map(async (f) => [f, await load(`examples/github/${f}`)] as const)));
    for (const [file, wf] of Object.entries(docs)) {
      expect(wf.on, file).toBeTruthy();
      for (const [name, job] of Object.entries<{ "runs-on": string; steps: Step[]; uses?: string }>(wf.jobs)) {
        // A job that calls a reusable workflow has neither runs-on nor steps (test/campaign checks it).
        if (job.uses) continue;
        expect(job["runs-on"], `${file} ${name}`).toBeTruthy();
        expect(Array.isArray(job.steps)).toBe(true);
        for (const s of job.steps) expect(Boolean(s.uses) !== Boolean(s.run), `${file} ${name}: uses xor run`).toBe(true);
      }
      for (const script of runs(wf)) expect(script, file).not.toContain("${{");
    }
    const gate = docs["approval-gate.yml"];
    expect(gate.jobs.apply.environment).toBe("codemod-approval");
    expect(gate.jobs.apply.needs).toBe("plan");
    expect(gate.jobs.plan.steps.some((s: Step) => s.uses?.startsWith("actions/upload-artifact@"))).toBe(true);
    expect(gate.jobs.apply.steps.find((s: Step) => s.id === "apply").with.command).toBe("apply");
    // The plan decides nothing: apply gets the same policy as plan, from outside .tollgate/.
    expect(gate.jobs.apply.steps.find((s: Step) => s.id === "apply").with.policy).toBe(gate.jobs.plan.steps.find((s: Step) => s.id === "plan").with.policy);
    for (const [file, wf] of Object.entries(docs)) {
      for (const job of Object.values((wf as { jobs: Record<string, { steps: Step[] }> }).jobs)) {
        for (const s of job.steps ?? []) for (const v of Object.values(s.with ?? {})) expect(String(v), file).not.toMatch(/^\.tollgate\//);
      }
    }
    expect(docs["sharded.yml"].jobs.shard.strategy.matrix.shard).toEqual([1, 2, 3, 4]);
    const upload = docs["code-scanning.yml"].jobs.scan.steps.find((s: Step) => s.uses?.startsWith("github/codeql-action/upload-sarif@"));
    expect(upload.with.sarif_file).toBe("${{ steps.tollgate.outputs.sarif }}");
    expect(docs["code-scanning.yml"].permissions["security-events"]).toBe("write");
    expect(docs["sharded.yml"].jobs.merge.steps.find((s: Step) => s.id === "merged").with.command).toBe("merge-reports");
  });

  it("the action's run script works against this checkout: outputs, patch, fail-on-changes", async () => {
    const dir = await testdir({
      "a.ts": "const a = Effect.map(x, f);\n",
      "recipe.yaml":
        "version: 1\nsteps:\n  - tool: ast_edit\n    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: . }\n",
      "tmp/.keep": "",
      "policy.yaml": "version: 1\ndefault: require-approval\n",
    });
    const run = await actionRunStep(dir, {
      TOLLGATE_COMMAND: "check",
      TOLLGATE_RECIPE: "recipe.yaml",
      TOLLGATE_FAIL_ON_CHANGES: "false",
    });
    const lenient = await run({ TOLLGATE_ARGS: "" }, "out1.txt");
    expect(lenient.exitCode).toBe(0);
    expect(await readFile(path.join(dir, "out1.txt"), "utf8")).toBe(
      `changed=true\npending-count=0\nreport=${path.join(dir, "tmp/tollgate-report.json")}\nsarif=${path.join(dir, "tmp/tollgate.sarif")}\nerror-count=0\npatch=${path.join(dir, "tmp/tollgate.patch")}\n`,
    );
    expect(await readFile(path.join(dir, "tmp/tollgate.patch"), "utf8")).toContain("+const a = Effect.andThen(x, f);");
    const strict = await run({ TOLLGATE_ARGS: "", TOLLGATE_FAIL_ON_CHANGES: "true" }, "out2.txt");
    expect(strict.exitCode).toBe(1);
    expect(strict.stdout).toContain("::error title=tollgate::the recipe staged changes (fail-on-changes: true)");
    // An action awaiting approval is exit 1 from the CLI: the step still succeeds and writes every output.
    const pending = await run({ TOLLGATE_COMMAND: "run", TOLLGATE_POLICY: "policy.yaml" }, "out4.txt");
    expect(pending.exitCode).toBe(0);
    expect(await readFile(path.join(dir, "out4.txt"), "utf8")).toBe(
      `changed=true\npending-count=1\nreport=${path.join(dir, "tmp/tollgate-report.json")}\nsarif=${path.join(dir, "tmp/tollgate.sarif")}\nerror-count=0\npatch=${path.join(dir, "tmp/tollgate.patch")}\n`,
    );
    const strictPending = await run({ TOLLGATE_COMMAND: "run", TOLLGATE_POLICY: "policy.yaml", TOLLGATE_FAIL_ON_CHANGES: "true" }, "out5.txt");
    expect(strictPending.exitCode).toBe(1);
    expect(strictPending.stdout).toContain("::error title=tollgate::the recipe staged changes (fail-on-changes: true)");
    expect(await readFile(path.join(dir, "out5.txt"), "utf8")).toContain("pending-count=1\n");
    // An unfixed error-severity ast_scan finding fails the step (error-count > 0), outputs written.
    await writeFile(path.join(dir, "rules.yml"), "id: no-eval\nlanguage: ts\nseverity: error\nrule: { pattern: 'eval($X)' }\n");
    await writeFile(path.join(dir, "b.ts"), "eval(s);\n");
    await writeFile(path.join(dir, "scan.yaml"), "version: 1\nsteps:\n  - tool: ast_scan\n    with: { rules: [rules.yml] }\n");
    const findings = await run({ TOLLGATE_COMMAND: "run", TOLLGATE_RECIPE: "scan.yaml" }, "out6.txt");
    expect(findings.exitCode).toBe(1);
    expect(findings.stdout).toContain("::error title=tollgate::1 error-severity finding(s) left unfixed");
    expect(await readFile(path.join(dir, "out6.txt"), "utf8")).toContain("error-count=1\n");
    expect(JSON.parse(await readFile(path.join(dir, "tmp/tollgate.sarif"), "utf8")).runs[0].results[0].ruleId).toBe("no-eval");
    const bad = await run({ TOLLGATE_ARGS: "--no-such-flag" }, "out3.txt");
    expect(bad.exitCode).toBe(2);
    expect(await readFile(path.join(dir, "a.ts"), "utf8")).toBe("const a = Effect.map(x, f);\n");
  });
});
