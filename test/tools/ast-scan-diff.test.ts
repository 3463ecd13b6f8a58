/**
 * Differential test of ast_scan against the @ast-grep/cli dev dependency (SPEC 3.2): the rule
 * set in fixtures/scan-diff (rules over JavaScript, TypeScript, TSX, Python, Go and Rust using
 * patterns and pattern objects, kind/regex/nthChild, inside/has/follows with stopBy and field,
 * all/any/not/matches, constraints, local and utilDirs utils, transforms in both forms,
 * rewriters with and without joinBy, expandStart/expandEnd, files/ignores, severity off, message
 * metavariables) runs through `ast-grep scan --update-all` on one copy of the fixtures and
 * through ast_scan with an auto-apply policy on another: the trees must be identical, and the
 * findings (`ast-grep scan --json`) must be the same rules at the same positions.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it, onTestFinished } from "vitest";
import { REPO_ROOT, tollgate } from "../helpers/testdir.js";

const FIXTURE = path.join(REPO_ROOT, "test/tools/fixtures/scan-diff");
const SG = path.join(REPO_ROOT, "node_modules/.bin/ast-grep");

async function tree(dir: string, base = dir): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name === ".tollgate") continue;
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, await tree(abs, base));
    else out[path.relative(base, abs)] = await readFile(abs, "utf8");
  }
  return out;
}

describe("ast_scan vs ast-grep scan --update-all", () => {
  it("gives the CLI's tree and the CLI's finding positions on the fixture rule set", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-scan-diff-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const cli = path.join(root, "cli");
    const tg = path.join(root, "tg");
    await cp(FIXTURE, cli, { recursive: true });
    await cp(FIXTURE, tg, { recursive: true });

    const rules = (await readdir(path.join(FIXTURE, "rules"))).length;
    const ids = (await Promise.all((await readdir(path.join(FIXTURE, "rules"))).map((f) => readFile(path.join(FIXTURE, "rules", f), "utf8"))))
      .join("\n")
      .match(/^id: /gm)!.length;
    expect(rules).toBeGreaterThanOrEqual(5);
    expect(ids).toBeGreaterThanOrEqual(20);

    const json = await execa(SG, ["scan", "--json=compact"], { cwd: cli, reject: false });
    const cliFindings = (JSON.parse(json.stdout) as Array<{ ruleId: string; file: string; range: { start: { line: number; column: number }; end: { line: number; column: number } } }>)
      .map((f) => `${f.ruleId} ${f.file} ${f.range.start.line}:${f.range.start.column}-${f.range.end.line}:${f.range.end.column}`)
      .sort();
    const update = await execa(SG, ["scan", "--update-all"], { cwd: cli, reject: false });
    expect(update.exitCode === 0 || update.exitCode === 1, update.stderr).toBe(true);

    await writeFile(path.join(root, "recipe.yaml"), `version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { config: tg/sgconfig.yml }\n`);
    const run = await tollgate(["run", path.join(root, "recipe.yaml"), "--cwd", tg, "--mode", "auto-apply", "--format", "json"], { cwd: root });
    const report = JSON.parse(run.stdout);
    // Error-severity findings without a fix stay: exit 1, as `ast-grep scan` exits 1.
    expect(run.code, run.stderr).toBe(1);
    expect(report.outcomes.every((o: { outcome: string }) => o.outcome === "applied")).toBe(true);
    expect(report.outcomes.length).toBeGreaterThanOrEqual(15);

    const ours = (report.steps[0].details.findings as Array<{ rule: string; path: string; start: { line: number; column: number }; end: { line: number; column: number } }>)
      .map((f) => `${f.rule} ${f.path} ${f.start.line - 1}:${f.start.column - 1}-${f.end.line - 1}:${f.end.column - 1}`)
      .sort();
    expect(ours).toEqual(cliFindings);
    expect(ours.length).toBeGreaterThanOrEqual(30);

    expect(await tree(tg)).toEqual(await tree(cli));
  }, 60_000);
});
