/**
 * Differential test of ast_scan against the @ast-grep/cli dev dependency: the rule
 * set in fixtures/scan-diff (rules over JavaScript, TypeScript, TSX, HTML, Python, Go and Rust,
 * among them rules of ast-grep's own catalog as published, using
 * patterns and pattern objects, kind/regex/nthChild, inside/has/follows with stopBy and field,
 * all/any/not/matches, constraints, local and utilDirs utils, transforms in both forms,
 * rewriters with and without joinBy, expandStart/expandEnd, files/ignores, severity off, message
 * metavariables) runs through `ast-grep scan --update-all` on one copy of the fixtures and
 * through ast_scan with an auto-apply policy on another: the trees must be identical, and the
 * findings (`ast-grep scan --json`) must be the same rules at the same positions with the same
 * messages (an unbound metavariable in a message reads as nothing). A rule whose fix, transform,
 * constraints, rewriter or labels name a metavariable the rule does not define is refused by
 * both, as is a rule that cannot say which node kinds it matches: the CLI with its reason,
 * tollgate with exit 2 and the rule file's line and column.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it, onTestFinished } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

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

/**
 * `src/a.ts` holding `source`, fixed with the rule file `rule` by `ast-grep scan --update-all`
 * (in `root/cli`) and by the real CLI's ast_scan with an auto-apply policy (in `root/tg`).
 */
async function fixedByBoth(root: string, source: string, rule: string): Promise<{ fixed: string; ours: string }> {
  for (const side of ["cli", "tg"]) {
    await mkdir(path.join(root, side, "src"), { recursive: true });
    await writeFile(path.join(root, side, "src/a.ts"), source);
  }
  await writeFile(path.join(root, "rule.yml"), rule);
  const cli = await execa(SG, ["scan", "--rule", path.join(root, "rule.yml"), "--update-all", "src"], { cwd: path.join(root, "cli"), reject: false });
  expect(cli.exitCode, cli.stderr).toBe(0);
  await writeFile(path.join(root, "recipe.yaml"), "version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { rules: [rule.yml], path: src }\n");
  const tg = await tollgate(["run", path.join(root, "recipe.yaml"), "--cwd", path.join(root, "tg"), "--mode", "auto-apply"], { cwd: root });
  expect(tg.code, tg.stderr).toBe(0);
  return { fixed: await readFile(path.join(root, "cli/src/a.ts"), "utf8"), ours: await readFile(path.join(root, "tg/src/a.ts"), "utf8") };
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
    const cliFindings = (
      JSON.parse(json.stdout) as Array<{
        ruleId: string;
        file: string;
        message: string;
        range: { start: { line: number; column: number }; end: { line: number; column: number } };
      }>
    )
      .map((f) => `${f.ruleId} ${f.file} ${f.range.start.line}:${f.range.start.column}-${f.range.end.line}:${f.range.end.column} ${f.message}`)
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

    const ours = (
      report.steps[0].details.findings as Array<{
        rule: string;
        path: string;
        message: string;
        start: { line: number; column: number };
        end: { line: number; column: number };
      }>
    )
      .map((f) => `${f.rule} ${f.path} ${f.start.line - 1}:${f.start.column - 1}-${f.end.line - 1}:${f.end.column - 1} ${f.message}`)
      .sort();
    expect(ours).toEqual(cliFindings);
    expect(ours.length).toBeGreaterThanOrEqual(30);

    expect(await tree(tg)).toEqual(await tree(cli));
  }, 60_000);

  // Each case: a rule document and ast-grep's reason for refusing it.
  const UNDEFINED: Array<[string, string, string]> = [
    ["fix", 'rule: { pattern: "foo($A)" }\nfix: bar($A, $B)', "Undefined meta var `B` used in `fix`"],
    [
      "fix-list",
      'rule: { pattern: "foo($A)" }\nfix:\n  - { title: one, template: "$A" }\n  - { title: two, template: "$$$REST" }',
      "Undefined meta var `REST` used in `fix`",
    ],
    ["transform", 'rule: { pattern: "foo($A)" }\ntransform:\n  X: substring($NOPE, startChar=1)\nfix: $X', "Undefined meta var `NOPE` used in `transform`"],
    ["constraint", 'rule: { pattern: "foo($A)" }\nconstraints:\n  Q: { regex: x }', "Undefined meta var `Q` used in `constraints`"],
    ["global-util", "rule: { matches: is-literal }\nfix: $L", "Undefined meta var `L` used in `fix`"],
    [
      "rewriter",
      'rule: { pattern: "foo($A)" }\nrewriters:\n  - { id: r, rule: { kind: number }, fix: "$N" }\ntransform:\n  R: { rewrite: { source: $A, rewriters: [r] } }\nfix: $R',
      "Undefined meta var `N` used in `fix`",
    ],
    [
      "label",
      'rule: { pattern: "foo($A)" }\nlabels:\n  Z: { style: primary, message: here }',
      "Label meta-variable `Z` must be defined in `rule` or `constraints`",
    ],
    // not a metavariable: rules that cannot say which node kinds they match
    ["no-kinds", 'rule: { pattern: "$A", has: { kind: identifier } }', "Rule must specify a set of AST kinds to match. Try adding `kind` rule"],
    [
      "no-kinds-any",
      'utils:\n  lit: { regex: "^1$" }\nrule: { any: [ { kind: number }, { matches: lit } ] }',
      "Rule must specify a set of AST kinds to match. Try adding `kind` rule",
    ],
    // a pattern that parses to an ERROR node (an incomplete statement), alone and in a util
    ["no-kinds-error-root", 'rule: { pattern: "for ($A of $B" }', "Rule must specify a set of AST kinds to match. Try adding `kind` rule"],
    [
      "no-kinds-error-util",
      'utils:\n  half: { pattern: ": $$$A | void" }\nrule: { any: [ { kind: number }, { matches: half } ] }',
      "Rule must specify a set of AST kinds to match. Try adding `kind` rule",
    ],
    // a util naming an id no util defines: unchecked by both, and no kinds in the CLI
    ["no-kinds-util", "utils:\n  a: { matches: zz }\nrule: { matches: a }", "Rule must specify a set of AST kinds to match. Try adding `kind` rule"],
    // utility ids holding characters reserved for parameterized utilities (ast-grep-essentials
    // names utils after the code they match)
    ["util-id-call", 'utils:\n  "foo(...)": { pattern: "foo($$$)" }\nrule: { matches: "foo(...)" }', "Utility id `foo(...)` contains reserved characters."],
    ["util-id-eq", "utils:\n  debug=True: { kind: number }\nrule: { kind: number }", "Utility id `debug=True` contains reserved characters."],
  ];
  it("refuses, as the CLI does, a rule reading a metavariable it does not define or matching no known kinds (positioned, exit 2)", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-scan-undef-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const setup = async (dir: string, docs: Array<[string, string]>) => {
      await cp(path.join(FIXTURE, "utils"), path.join(dir, "utils"), { recursive: true });
      await cp(path.join(FIXTURE, "sgconfig.yml"), path.join(dir, "sgconfig.yml"));
      await cp(path.join(FIXTURE, "src/app.js"), path.join(dir, "src/app.js"));
      await mkdir(path.join(dir, "rules"));
      for (const [name, body] of docs) await writeFile(path.join(dir, `rules/${name}.yml`), `id: ${name}\nlanguage: JavaScript\n${body}\n`);
    };
    // The CLI stops at its first bad rule: one directory per case.
    for (const [name, body, reason] of UNDEFINED) {
      const dir = path.join(root, name);
      await setup(dir, [[name, body]]);
      const cli = await execa(SG, ["scan", "src"], { cwd: dir, reject: false });
      expect(cli.exitCode, `${name}: ${cli.stdout}`).not.toBe(0);
      expect(cli.stderr, name).toContain(reason);
    }
    // tollgate lists every bad rule at once, each at its place.
    const all = path.join(root, "all");
    await setup(
      all,
      UNDEFINED.map(([name, body]) => [name, body]),
    );
    await writeFile(path.join(all, "recipe.yaml"), "version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { config: sgconfig.yml, path: src }\n");
    for (const cmd of ["run", "validate"]) {
      const tg = await tollgate([cmd, "recipe.yaml"], { cwd: all });
      expect(tg.code, `${cmd}: ${tg.stderr}`).toBe(2);
      for (const [name, , reason] of UNDEFINED) {
        expect(tg.stderr, `${name} ${cmd}`).toMatch(new RegExp(`rules/${name}\\.yml:\\d+:\\d+: ${reason.replace(/[$`()]/g, "\\$&")}`));
      }
    }
  }, 60_000);

  it("indents a rewriter's multi-line output as the CLI does (a transform's value is kept de-indented from its capture's line)", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-scan-rewrite-indent-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const source = "function f() {\n  const applicator = [\n    // any\n    notKeyword,\n    anyOf,\n  ]\n}\n";
    const rule = [
      "id: unwrap",
      "language: TypeScript",
      'rule: { pattern: "const $$$A" }',
      'rewriters: [{ id: rw, rule: { kind: identifier, pattern: "$N" }, fix: "q($N)" }]',
      "transform: { R: { rewrite: { source: $$$A, rewriters: [rw] } } }",
      "fix: |-",
      "  {",
      "    $R",
      "  }",
      "",
    ].join("\n");
    const { fixed, ours } = await fixedByBoth(root, source, rule);
    expect(fixed).toContain("q(notKeyword)");
    expect(ours).toBe(fixed);
  }, 60_000);

  it("places findings at the CLI's columns, counted in characters, after a character outside the BMP", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-scan-columns-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    await mkdir(path.join(root, "src"), { recursive: true });
    await writeFile(path.join(root, "src/a.ts"), 'const e = "😀"; foo(2); const f = "👍🏽"; foo(3);\n');
    await writeFile(path.join(root, "rule.yml"), 'id: foo\nlanguage: TypeScript\nseverity: warning\nrule: { pattern: "foo($A)" }\n');
    const cli = await execa(SG, ["scan", "--rule", "rule.yml", "--json=compact", "src"], { cwd: root, reject: false });
    const want = (JSON.parse(cli.stdout) as Array<{ range: { start: { line: number; column: number }; end: { line: number; column: number } } }>)
      .map((m) => `${m.range.start.line + 1}:${m.range.start.column + 1}-${m.range.end.line + 1}:${m.range.end.column + 1}`)
      .sort();
    expect(want).toEqual(["1:16-1:22", "1:40-1:46"]);
    await writeFile(path.join(root, "recipe.yaml"), "version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { rules: [rule.yml], path: src }\n");
    const tg = await tollgate(["run", "recipe.yaml", "--format", "json", "--sarif", "out.sarif"], { cwd: root });
    const findings = JSON.parse(tg.stdout).steps[0].details.findings as Array<{
      start: { line: number; column: number };
      end: { line: number; column: number };
    }>;
    expect(findings.map((f) => `${f.start.line}:${f.start.column}-${f.end.line}:${f.end.column}`).sort()).toEqual(want);
    // The SARIF log says which columns it counts.
    const sarif = JSON.parse(await readFile(path.join(root, "out.sarif"), "utf8")) as {
      runs: Array<{ columnKind: string; results: Array<{ locations: Array<{ physicalLocation: { region: { startColumn: number } } }> }> }>;
    };
    expect(sarif.runs[0]!.columnKind).toBe("unicodeCodePoints");
    expect(sarif.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation.region.startColumn).sort((a, b) => a - b)).toEqual([16, 40]);
  }, 60_000);

  it("takes, as the CLI does, a fix reading a metavariable written right before a template substitution", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-scan-template-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const source = "const a = `hello${name}`;\nconst b = `bye${name}!`;\n";
    const rule = 'id: greeting\nlanguage: TypeScript\nrule: { pattern: "`$A${name}`" }\nfix: "`$A, ${name}`"\n';
    const { fixed, ours } = await fixedByBoth(root, source, rule);
    expect(fixed).toContain("`hello, ${name}`");
    expect(ours).toBe(fixed);
  }, 60_000);

  it("names the util of a cyclic `matches`, as the CLI does (napi's chain of causes on one line)", async () => {
    const root = await testdir({
      "src/a.js": "foo(1);\n",
      "sgconfig.yml": "ruleDirs: [rules]\n",
      "rules/cyc.yml": "id: cyc\nlanguage: JavaScript\nutils:\n  a: { matches: b }\n  b: { matches: a }\nrule: { matches: a }\n",
      "recipe.yaml": "version: 1\nsteps:\n  - tool: ast_scan\n    with: { config: sgconfig.yml, path: src }\n",
    });
    // Which of the two the cycle is found from varies from run to run (a hash map's order), in both.
    const reason = "Rule `[ab]` has a cyclic dependency in its `matches` sub-rule";
    const cli = await execa(SG, ["scan", "src"], { cwd: root, reject: false });
    expect(cli.exitCode).not.toBe(0);
    expect(cli.stderr).toMatch(new RegExp(reason));
    const tg = await tollgate(["validate", "recipe.yaml"], { cwd: root });
    expect(tg.code).toBe(2);
    expect(tg.stderr.trim()).toMatch(
      new RegExp(`^rules/cyc\\.yml:6:7: rule cyc: \`utils\` is not configured correctly: Rule contains invalid matches reference: ${reason}\\.$`),
    );
  });

  // Where ast-grep's parser ignores an unknown key and where it refuses one (published rules have
  // both: ast-grep's catalog puts `parent:` in an `inside` and `language:` in a rewriter).
  const IGNORED: Array<[string, string, string]> = [
    ["inside", 'rule: { pattern: "foo($A)", inside: { kind: call_expression, stopBy: end, parent: x } }', 'Unknown key "parent" in inside is ignored'],
    ["has-typo", "rule: { kind: call_expression, has: { kind: number, stopby: end } }", 'Unknown key "stopby" in has is ignored'],
    [
      "rewriter",
      'rule: { pattern: "foo($A)" }\nrewriters:\n  - { id: r, language: js, rule: { kind: number }, fix: "N" }\ntransform:\n  R: { rewrite: { source: $A, rewriters: [r] } }\nfix: bar($R)',
      'Unknown key "language" in rewriter is ignored',
    ],
    ["fix-object", 'rule: { pattern: "foo($A)" }\nfix: { template: "bar($A)", expandend: x }', 'Unknown key "expandend" in fix is ignored'],
    [
      "transform",
      'rule: { pattern: "foo($A)" }\ntransform:\n  B: { substring: { source: $A, startChar: 0, bogus: 1 } }\nfix: bar($B)',
      'Unknown key "bogus" in transform.B.substring is ignored',
    ],
  ];
  const REFUSED: Array<[string, string, string]> = [
    ["rule-object", 'rule: { pattern: "foo($A)", bogus: 1 }', 'Unknown key "bogus" in rule'],
    ["in-all", 'rule: { all: [ { pattern: "foo($A)", bogus: 1 } ] }', 'Unknown key "bogus" in all[0]'],
    [
      "stopBy-rule",
      'rule: { pattern: "foo($A)", inside: { kind: call_expression, stopBy: { kind: program, bogus: 1 } } }',
      'Unknown key "bogus" in inside.stopBy',
    ],
    ["top-level", 'rule: { pattern: "foo($A)" }\nfixx: bar', 'Unknown key "fixx" in rule'],
  ];
  it("ignores, with a warning at its place, an unknown key where the CLI ignores it, and refuses one where the CLI refuses it", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-scan-keys-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const setup = async (dir: string, name: string, body: string) => {
      await mkdir(path.join(dir, "rules"), { recursive: true });
      await mkdir(path.join(dir, "src"), { recursive: true });
      await writeFile(path.join(dir, "sgconfig.yml"), "ruleDirs: [rules]\n");
      await writeFile(path.join(dir, "src/a.js"), "foo(1);\nbar(foo(2));\n");
      await writeFile(path.join(dir, `rules/${name}.yml`), `id: ${name}\nlanguage: JavaScript\n${body}\n`);
      await writeFile(path.join(dir, "recipe.yaml"), "version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { config: sgconfig.yml }\n");
    };
    for (const [name, body, warning] of IGNORED) {
      const cli = path.join(root, name, "cli");
      const tg = path.join(root, name, "tg");
      await setup(cli, name, body);
      await setup(tg, name, body);
      const json = await execa(SG, ["scan", "--json=compact"], { cwd: cli, reject: false });
      expect(json.exitCode, `${name}: ${json.stderr}`).toBe(0);
      const cliFound = (JSON.parse(json.stdout) as Array<{ range: { start: { line: number; column: number } } }>)
        .map((f) => `${f.range.start.line + 1}:${f.range.start.column + 1}`)
        .sort();
      await execa(SG, ["scan", "--update-all"], { cwd: cli, reject: false });
      const v = await tollgate(["validate", "recipe.yaml"], { cwd: tg });
      expect(v.code, `${name}: ${v.stderr}`).toBe(0);
      expect(v.stderr, name).toMatch(new RegExp(`warning: rules/${name}\\.yml:\\d+:\\d+: ${warning.replace(/[.$()]/g, "\\$&")}`));
      const run = await tollgate(["run", "recipe.yaml", "--mode", "auto-apply", "--format", "json"], { cwd: tg });
      expect(run.code, `${name}: ${run.stderr}`).toBe(0);
      expect(run.stderr, name).toContain(warning);
      const details = JSON.parse(run.stdout).steps[0].details;
      expect(details.findings.map((f: { start: { line: number; column: number } }) => `${f.start.line}:${f.start.column}`).sort(), name).toEqual(cliFound);
      expect(details.ignoredKeys.join("\n"), name).toContain(warning);
      expect(await readFile(path.join(tg, "src/a.js"), "utf8"), name).toBe(await readFile(path.join(cli, "src/a.js"), "utf8"));
    }
    for (const [name, body, error] of REFUSED) {
      const dir = path.join(root, name);
      await setup(dir, name, body);
      const cli = await execa(SG, ["scan"], { cwd: dir, reject: false });
      expect(cli.exitCode, `${name}: ${cli.stdout}`).not.toBe(0);
      expect(cli.stderr, name).toMatch(/unknown field `(bogus|fixx)`/);
      const v = await tollgate(["validate", "recipe.yaml"], { cwd: dir });
      expect(v.code, name).toBe(2);
      expect(v.stderr, name).toMatch(new RegExp(`rules/${name}\\.yml:\\d+:\\d+: ${error.replace(/[.$()[\]]/g, "\\$&")}`));
    }
  }, 90_000);

  it("resolves YAML anchors and aliases as the CLI does, and refuses aliases that expand without bound (positioned, exit 2)", async () => {
    const dir = await testdir({
      "sgconfig.yml": "ruleDirs: [rules]\n",
      "src/a.js": "foo(1);\nbar(2);\nfoo(bar(3));\n",
      "rules/alias.yml":
        "id: alias\nlanguage: JavaScript\nrule:\n  any:\n    - &call { pattern: foo($A) }\n    - { kind: call_expression, has: { kind: number, stopBy: end }, not: *call }\n",
      "recipe.yaml": "version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { config: sgconfig.yml }\n",
    });
    const json = await execa(SG, ["scan", "--json=compact"], { cwd: dir, reject: false });
    const cli = (JSON.parse(json.stdout) as Array<{ range: { start: { line: number; column: number } } }>)
      .map((f) => `${f.range.start.line + 1}:${f.range.start.column + 1}`)
      .sort();
    expect(cli.length).toBe(4);
    const run = await tollgate(["run", "recipe.yaml", "--format", "json"], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(
      JSON.parse(run.stdout)
        .steps[0].details.findings.map((f: { start: { line: number; column: number } }) => `${f.start.line}:${f.start.column}`)
        .sort(),
    ).toEqual(cli);
    // 2^24 copies of a node: refused before anything is built from it, as the CLI refuses it
    const lines = ["a0: &a0 { kind: number }", ...Array.from({ length: 24 }, (_, i) => `a${i + 1}: &a${i + 1} { all: [*a${i}, *a${i}] }`)];
    await writeFile(
      path.join(dir, "rules/alias.yml"),
      `id: bomb\nlanguage: JavaScript\nutils:\n${lines.map((l) => `  ${l}`).join("\n")}\nrule: { matches: a24 }\n`,
    );
    const bomb = await execa(SG, ["scan"], { cwd: dir, reject: false });
    expect(bomb.exitCode).not.toBe(0);
    const v = await tollgate(["validate", "recipe.yaml"], { cwd: dir });
    expect(v.code, v.stderr).toBe(2);
    expect(v.stderr).toMatch(/rules\/alias\.yml:\d+:\d+: YAML aliases expand to more than 100000 nodes: refused/);
    expect(v.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
