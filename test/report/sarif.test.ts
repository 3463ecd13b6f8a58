import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import AjvModule from "ajv-draft-04";
import formatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { buildSarif } from "../../src/report/sarif.js";
import { gitdir, tollgate } from "../helpers/testdir.js";

const schema = JSON.parse(await readFile(path.join(import.meta.dirname, "fixtures/sarif-schema-2.1.0.json"), "utf8"));
// CommonJS packages: their default export is the module object under nodenext.
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (o: object) => {
  compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown };
};
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (a: unknown) => void;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

function valid(log: unknown): void {
  const ok = validate(log);
  expect(ok ? [] : validate.errors).toEqual([]);
}

const RULES = [
  "id: no-eval",
  "language: JavaScript",
  "severity: error",
  "message: eval of $X",
  "note: never eval",
  "url: https://example.com/no-eval",
  "rule: { pattern: 'eval($X)' }",
  "---",
  "id: eq",
  "language: JavaScript",
  "severity: warning",
  "message: use ===",
  "rule: { pattern: '$A == $B' }",
  "fix: $A === $B",
  "---",
  "id: hint-rule",
  "language: JavaScript",
  "rule: { pattern: 'foo()' }",
  "",
].join("\n");

describe("--sarif", () => {
  it("run, plan, apply and merge-reports write SARIF 2.1.0 that the official schema accepts, with findings, fixes and unapplied changes once each", async () => {
    const dir = await gitdir({
      "pkg/rules.yml": RULES,
      "pkg/src/a b.js": "eval(s);\nif (a == 1) foo();\n",
      "pkg/src/c.js": "x == y;\n",
      "pkg/recipe.yaml":
        "version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { rules: [rules.yml] }\n  - id: note\n    tool: edit\n    with: { path: src/c.js, oldText: 'x == y;', newText: 'x == y; // checked' }\n",
    });
    const pkg = path.join(dir, "pkg");
    const r = await tollgate(["run", "recipe.yaml", "--dry-run", "--sarif", "out.sarif"], { cwd: pkg });
    expect(r.code, r.stderr).toBe(1); // an unfixed error-severity finding
    const log = JSON.parse(await readFile(path.join(pkg, "out.sarif"), "utf8"));
    valid(log);
    expect(log.version).toBe("2.1.0");
    const run = log.runs[0];
    expect(run.automationDetails.id).toBe("tollgate/recipe.yaml/all/");
    const results = run.results as any[];
    // 4 findings (eval, two ==, foo) + 1 unapplied edit; the fixable == findings are one result each.
    expect(results.map((x) => x.ruleId).sort()).toEqual(["eq", "eq", "hint-rule", "no-eval", "tollgate/edit"]);
    const evalResult = results.find((x) => x.ruleId === "no-eval");
    expect(evalResult).toMatchObject({
      level: "error",
      message: { text: "eval of s" },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: "pkg/src/a%20b.js", uriBaseId: "%SRCROOT%" },
            region: { startLine: 1, startColumn: 1, endLine: 1, endColumn: 8 },
          },
        },
      ],
    });
    expect(Object.keys(evalResult.partialFingerprints)).toHaveLength(1);
    const eq = results.find((x) => x.ruleId === "eq" && x.locations[0].physicalLocation.artifactLocation.uri === "pkg/src/a%20b.js");
    expect(eq.level).toBe("warning");
    expect(eq.fixes[0].artifactChanges[0].replacements[0]).toEqual({
      deletedRegion: { startLine: 2, startColumn: 5, endLine: 2, endColumn: 11 },
      insertedContent: { text: "a === 1" },
    });
    expect(results.find((x) => x.ruleId === "hint-rule").level).toBe("note");
    expect(results.find((x) => x.ruleId === "tollgate/edit")).toMatchObject({
      level: "warning",
      locations: [{ physicalLocation: { region: { startLine: 1 } } }],
    });
    const ruleIds = run.tool.driver.rules.map((x: any) => x.id).sort();
    expect(ruleIds).toEqual(["eq", "hint-rule", "no-eval", "tollgate/edit"]);
    expect(run.tool.driver.rules.find((x: any) => x.id === "no-eval")).toMatchObject({ helpUri: "https://example.com/no-eval", help: { text: "never eval" } });
    for (const x of results) expect(run.tool.driver.rules[x.ruleIndex].id).toBe(x.ruleId);

    // Shards: a distinct automationDetails.id each; merge-reports writes one valid log too.
    const s1 = await tollgate(["run", "recipe.yaml", "--dry-run", "--shard", "1/2", "--report", "s1.json", "--sarif", "s1.sarif"], { cwd: pkg });
    const s2 = await tollgate(["run", "recipe.yaml", "--dry-run", "--shard", "2/2", "--report", "s2.json", "--sarif", "s2.sarif"], { cwd: pkg });
    expect([s1.code, s2.code, s1.stderr, s2.stderr].join("\n")).toMatch(/^[01]\n[01]\n/);
    const ids = await Promise.all(
      ["s1.sarif", "s2.sarif"].map(async (f) => JSON.parse(await readFile(path.join(pkg, f), "utf8")).runs[0].automationDetails.id),
    );
    expect(ids).toEqual(["tollgate/recipe.yaml/shard-1-of-2/", "tollgate/recipe.yaml/shard-2-of-2/"]);
    const merged = await tollgate(["merge-reports", "s1.json", "s2.json", "--sarif", "merged.sarif"], { cwd: pkg });
    expect(merged.code, merged.stderr).toBeLessThanOrEqual(1);
    const m = JSON.parse(await readFile(path.join(pkg, "merged.sarif"), "utf8"));
    valid(m);
    expect(m.runs[0].automationDetails.id).toBe("tollgate/recipe.yaml/merged/");
    expect(m.runs[0].results.map((x: any) => x.ruleId).sort()).toEqual(["eq", "eq", "hint-rule", "no-eval", "tollgate/edit"]);

    // Applied fixes leave the SARIF: after an auto-apply run only the eval and foo findings remain.
    await writeFile(path.join(pkg, "policy.yaml"), "version: 1\ndefault: auto-apply\n");
    const plan = await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json", "--sarif", "plan.sarif"], { cwd: pkg });
    expect(plan.code, plan.stderr).toBeLessThanOrEqual(1);
    valid(JSON.parse(await readFile(path.join(pkg, "plan.sarif"), "utf8")));
    const applied = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--sarif", "apply.sarif", "--report", "apply.json"], { cwd: pkg });
    expect(applied.code, applied.stderr).toBe(1);
    const after = JSON.parse(await readFile(path.join(pkg, "apply.sarif"), "utf8"));
    valid(after);
    expect(after.runs[0].results.map((x: any) => x.ruleId).sort()).toEqual(["hint-rule", "no-eval"]);

    // GitHub's limits: truncated with a note, still valid.
    const report = JSON.parse(await readFile(path.join(pkg, "apply.json"), "utf8"));
    const cut = buildSarif(report, { maxResults: 1 });
    valid(cut.log);
    const cutRun = (cut.log.runs as any[])[0];
    expect(cutRun.results).toHaveLength(1);
    expect(cutRun.tool.driver.rules).toHaveLength(1);
    expect(cutRun.invocations[0].toolExecutionNotifications[0].message.text).toContain("Truncated to 1 of 2 results");
  }, 60_000);

  it("an empty run still has one run and validates; GitHub outputs carry sarif and error-count", async () => {
    const dir = await gitdir({
      "rules.yml": "id: no-eval\nlanguage: JavaScript\nseverity: error\nrule: { pattern: 'eval($X)' }\n",
      "a.js": "eval(s);\n",
      "b.js": "ok();\n",
      "recipe.yaml": "version: 1\nsteps:\n  - tool: ast_scan\n    with: { rules: [rules.yml], path: b.js }\n",
      "r2.yaml": "version: 1\nsteps:\n  - tool: ast_scan\n    with: { rules: [rules.yml] }\n",
    });
    const out = path.join(dir, "gh-output");
    await writeFile(out, "");
    const r = await tollgate(["run", "recipe.yaml", "--sarif", "empty.sarif"], { cwd: dir, env: { GITHUB_OUTPUT: out, GITHUB_ACTIONS: "true" } });
    expect(r.code, r.stderr).toBe(0);
    const log = JSON.parse(await readFile(path.join(dir, "empty.sarif"), "utf8"));
    valid(log);
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0].results).toEqual([]);
    const r2 = await tollgate(["run", "r2.yaml", "--sarif", "e.sarif"], { cwd: dir, env: { GITHUB_OUTPUT: out, GITHUB_ACTIONS: "true" } });
    expect(r2.code).toBe(1);
    const lines = (await readFile(out, "utf8")).split("\n");
    expect(lines).toContain("error-count=0");
    expect(lines).toContain("error-count=1");
    expect(lines).toContain(`sarif=${path.join(dir, "e.sarif")}`);
  }, 30_000);
});
