import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, tollgate } from "../helpers/testdir.js";

const RECIPE = (withBlock: string) => `version: 1\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: ${withBlock}\n`;

async function report(dir: string, args: string[]) {
  const r = await tollgate([...args, "--format", "json"], { cwd: dir });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}

const read = (dir: string, f: string) => readFile(path.join(dir, f), "utf8");

describe("ast_scan rule features on a real repo", () => {
  it("transform (object and string forms), rewriters with joinBy, expandEnd, utils from utilDirs, files/ignores, severity off, filter", async () => {
    const dir = await gitdir({
      "sgconfig.yml": "ruleDirs: [rules]\nutilDirs: [utils]\n",
      "utils/is-literal.yml": "id: is-literal\nlanguage: JavaScript\nrule: { any: [ { kind: number }, { kind: string } ] }\n",
      "rules/rules.yml": [
        "id: upper-const",
        "language: JavaScript",
        "rule: { pattern: 'const $N = $V' }",
        "constraints: { V: { matches: is-literal } }",
        "transform:",
        "  UP: { convert: { source: $N, toCase: upperCase } }",
        "  Q: replace($V, replace='^(?P<d>\\d+)$', by='${d}_n')",
        "fix: const $UP = $Q;",
        "---",
        "id: obj-to-array",
        "language: JavaScript",
        "rule: { pattern: 'keys({ $$$P })' }",
        "rewriters:",
        "  - id: key-of",
        "    rule: { kind: pair, has: { field: key, pattern: $K } }",
        "    fix: \"'$K'\"",
        "transform:",
        "  KS: { rewrite: { source: $$$P, rewriters: [key-of], joinBy: ', ' } }",
        "fix: '[$KS]'",
        "---",
        "id: drop-debug-arg",
        "language: JavaScript",
        "rule: { pattern: debugFlag, inside: { kind: arguments } }",
        "fix: { template: '', expandEnd: { regex: '^,$' } }",
        "---",
        "id: only-lib",
        "language: JavaScript",
        "files: ['lib/**']",
        "ignores: ['lib/skip.js']",
        "rule: { pattern: oldName }",
        "fix: newName",
        "---",
        "id: disabled",
        "language: JavaScript",
        "severity: off",
        "rule: { pattern: x }",
        "fix: y",
        "---",
        "id: filtered-out",
        "language: JavaScript",
        "rule: { pattern: keepMe }",
        "fix: changed",
        "",
      ].join("\n"),
      "src/a.js": "const a = 42;\nconst b = f();\nconst o = keys({ alpha: 1, beta: 2 });\ncall(debugFlag, other);\noldName();\nkeepMe();\n",
      "lib/a.js": "oldName();\nx;\n",
      "lib/skip.js": "oldName();\n",
      "recipe.yaml": RECIPE("{ config: sgconfig.yml, filter: '^(?!filtered)' }"),
      "policy.yaml": "version: 1\ndefault: auto-apply\n",
    });
    const r = await report(dir, ["run", "recipe.yaml", "--policy", "policy.yaml"]);
    expect(r.code, r.stderr).toBe(0);
    expect(await read(dir, "src/a.js")).toBe("const A = 42_n;\nconst b = f();\nconst o = ['alpha', 'beta'];\ncall( other);\noldName();\nkeepMe();\n"); // expandEnd eats the comma, not the space (as the CLI)
    expect(await read(dir, "lib/a.js")).toBe("newName();\nx;\n");
    expect(await read(dir, "lib/skip.js")).toBe("oldName();\n");
    const ids = r.json.outcomes.map((o: any) => o.id).sort();
    expect(ids).toEqual(["scan#drop-debug-arg", "scan#obj-to-array", "scan#only-lib", "scan#upper-const"]);
    const label = r.json.outcomes.find((o: any) => o.id === "scan#only-lib").label;
    expect(label).toBe("AST Scan: only-lib: 1 fix in 1 file");
    expect(r.json.steps[0].details.rules).toBe(4); // severity off and --filter leave two out
  });

  it("multi-line fix templates are indented as the CLI does", async () => {
    const dir = await gitdir({
      "r.yml": "id: wrap\nlanguage: TypeScript\nrule: { pattern: 'run($A)' }\nfix: |-\n  guard(() => {\n    return $A;\n  })\n",
      "src/a.ts": "function f() {\n    if (x) {\n        run(compute(\n            1,\n            2,\n        ));\n    }\n}\n",
      "recipe.yaml": RECIPE("{ rules: [r.yml] }"),
    });
    const r = await report(dir, ["run", "recipe.yaml", "--mode", "auto-apply"]);
    expect(r.code, r.stderr).toBe(0);
    expect(await read(dir, "src/a.ts")).toBe(
      "function f() {\n    if (x) {\n        guard(() => {\n          return compute(\n              1,\n              2,\n          );\n        });\n    }\n}\n",
    );
  });

  it("per-rule policy decisions, error findings and the exit code", async () => {
    const dir = await gitdir({
      "rules.yml": [
        "id: chai-equal",
        "language: JavaScript",
        "severity: error",
        "message: use toBe for $X",
        "rule: { pattern: 'expect($X).to.equal($Y)' }",
        "fix: expect($X).toBe($Y)",
        "---",
        "id: other-fix",
        "language: JavaScript",
        "rule: { pattern: 'foo()' }",
        "fix: bar()",
        "---",
        "id: no-eval",
        "language: JavaScript",
        "severity: warning",
        "message: eval is dangerous",
        "rule: { pattern: 'eval($$$)' }",
        "",
      ].join("\n"),
      "t.js": "expect(a).to.equal(1);\nfoo();\neval(s);\n",
      "recipe.yaml": RECIPE("{ rules: [rules.yml] }"),
      "policy.yaml": 'version: 1\ndefault: require-approval\nrules:\n  - name: chai\n    match: { label: "AST Scan: chai-*" }\n    decision: auto-apply\n',
    });
    const r = await report(dir, ["run", "recipe.yaml", "--policy", "policy.yaml"]);
    const by = Object.fromEntries(r.json.outcomes.map((o: any) => [o.id, o.outcome]));
    expect(by).toEqual({ "scan#chai-equal": "applied", "scan#other-fix": "pending-approval" });
    expect(r.code).toBe(1); // pending approval
    expect(await read(dir, "t.js")).toBe("expect(a).toBe(1);\nfoo();\neval(s);\n");
    expect(r.json.summary.findings).toEqual({ error: 1, warning: 1, info: 0, hint: 1, unfixedErrors: 0 });
    const f = r.json.steps[0].details.findings.find((x: any) => x.rule === "chai-equal");
    expect(f).toMatchObject({ message: "use toBe for a", path: "t.js", start: { line: 1, column: 1 }, fix: "scan#chai-equal" });

    // The same error finding left unfixed (dry-run): exit 1 even though nothing awaits approval.
    const dry = await report(dir, ["run", "recipe.yaml", "--dry-run"]);
    expect(dry.json.summary.findings.unfixedErrors).toBe(0); // already fixed on disk
    const dir2 = await gitdir({
      "rules.yml": "id: e\nlanguage: JavaScript\nseverity: error\nrule: { pattern: 'eval($$$)' }\n",
      "t.js": "eval(s);\n",
      "recipe.yaml": RECIPE("{ rules: [rules.yml] }"),
    });
    const e = await report(dir2, ["run", "recipe.yaml", "--mode", "auto-apply"]);
    expect(e.code).toBe(1);
    expect(e.json.summary.findings.unfixedErrors).toBe(1);
    // GitHub annotations at the rule's severity, at the finding's range.
    const gh = await tollgate(["run", "recipe.yaml", "--mode", "auto-apply", "--format", "github"], { cwd: dir2 });
    expect(gh.stdout).toContain("::error file=t.js,line=1,col=1,endLine=1,endColumn=7,title=tollgate%3A error[e]::eval(s)");
  });

  it("two rules on one file: independent fixes both apply in LIFO order; overlapping ones make the later-resolved stale, naming the other", async () => {
    const dir = await gitdir({
      "rules.yml": [
        "id: first",
        "language: JavaScript",
        "rule: { pattern: 'alpha($A)' }",
        "fix: ALPHA($A)",
        "---",
        "id: second",
        "language: JavaScript",
        "rule: { pattern: beta }",
        "fix: betaLonger",
        "",
      ].join("\n"),
      "a.js": "beta;\nalpha(1);\nbeta;\nalpha(beta);\n",
      "recipe.yaml": RECIPE("{ rules: [rules.yml] }"),
    });
    const r = await report(dir, ["run", "recipe.yaml", "--mode", "auto-apply"]);
    // `second` was pushed last, so it is resolved first; `first`'s fix of alpha(beta) overlaps it.
    expect(r.json.outcomes.map((o: any) => [o.id, o.outcome])).toEqual([
      ["scan#second", "applied"],
      ["scan#first", "stale"],
    ]);
    expect(r.json.outcomes[1].error).toContain("overlaps scan#second");
    expect(r.code).toBe(3);
    expect(await read(dir, "a.js")).toBe("betaLonger;\nalpha(1);\nbetaLonger;\nalpha(betaLonger);\n");

    const dir2 = await gitdir({
      "rules.yml": await read(dir, "rules.yml"),
      "a.js": "beta;\nalpha(1);\nbeta;\nalpha(2);\n",
      "recipe.yaml": RECIPE("{ rules: [rules.yml] }"),
    });
    const ok = await report(dir2, ["run", "recipe.yaml", "--mode", "auto-apply"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json.outcomes.map((o: any) => o.outcome)).toEqual(["applied", "applied"]);
    expect(await read(dir2, "a.js")).toBe("betaLonger;\nALPHA(1);\nbetaLonger;\nALPHA(2);\n");
  });

  it("invalid rules are input errors with file:line:col (run and validate); unsupported languages are skipped and listed", async () => {
    const dir = await gitdir({
      "bad.yml": "id: bad\nlanguage: JavaScript\nrule:\n  patern: foo()\n",
      "sg-bad.yml": "ruleDirs: [.]\ncustomLanguages: {}\n",
      "java.yml": "id: j\nlanguage: Java\nrule: { pattern: foo() }\n---\nid: ok\nlanguage: js\nrule: { pattern: foo() }\n",
      "badpat.yml": "id: bp\nlanguage: JavaScript\nrule: { pattern: 'foo(' , kind: call_expression, nthChild: { position: 1, bogus: 2 } }\n",
      "a.js": "foo();\n",
      "r1.yaml": RECIPE("{ rules: [bad.yml] }"),
      "r2.yaml": RECIPE("{ config: sg-bad.yml }"),
      "r3.yaml": RECIPE("{ rules: [java.yml] }"),
      "r4.yaml": RECIPE("{ rules: [badpat.yml] }"),
      "syntax.yml": "id: s\nlanguage: js\nrule: { pattern: foo($A)\n",
      "deep.yml": `id: d\nlanguage: js\nrule:\n${Array.from({ length: 3000 }, (_, i) => `${"  ".repeat(i + 1)}not:\n`).join("")}${"  ".repeat(3001)}kind: number\n`,
      "r5.yaml": RECIPE("{ rules: [syntax.yml, deep.yml] }"),
    });
    const v1 = await tollgate(["validate", "r1.yaml"], { cwd: dir });
    expect(v1.code).toBe(2);
    expect(v1.stderr).toContain('bad.yml:4:3: Unknown key "patern" in rule');
    const run1 = await tollgate(["run", "r1.yaml"], { cwd: dir });
    expect(run1.code).toBe(2);
    expect(run1.stderr).toContain("bad.yml:4:3");
    const v2 = await tollgate(["validate", "r2.yaml"], { cwd: dir });
    expect(v2.code).toBe(2);
    expect(v2.stderr).toMatch(/sg-bad\.yml:2:1: customLanguages is not supported/);
    const v4 = await tollgate(["validate", "r4.yaml"], { cwd: dir });
    // ast-grep ignores unknown keys in nthChild (and in relational rules, rewriters, fixes,
    // transforms, labels, utility files): a warning at its place, not an error
    expect(v4.code, v4.stderr).toBe(0);
    expect(v4.stderr).toContain('warning: badpat.yml:3:75: Unknown key "bogus" in nthChild is ignored, as ast-grep ignores it there');
    // YAML syntax errors: positioned once (not again in the message), a stack overflow as a sentence
    const v5 = await tollgate(["validate", "r5.yaml"], { cwd: dir });
    expect(v5.code).toBe(2);
    expect(v5.stderr).toMatch(/syntax\.yml:\d+:\d+: Flow map in block collection must be sufficiently indented and end with a \}\n/);
    expect(v5.stderr).toMatch(/deep\.yml:\d+:\d+: YAML is nested too deeply/);
    expect(v5.stderr).not.toMatch(/at line \d+, column \d+|Maximum call stack|\n\s+at /);
    const r3 = await report(dir, ["run", "r3.yaml", "--dry-run"]);
    expect(r3.code, r3.stderr).toBe(0);
    expect(r3.json.steps[0].details.skippedRules).toEqual([
      { id: "j", language: "Java", reason: "language Java is not supported by tollgate", file: "java.yml" },
    ]);
    expect(r3.json.steps[0].resultText).toContain("Skipped rules:");
  });
});

describe("ast_scan on files with syntax errors", () => {
  it("skips only the matches resting on an error node or an invented token, lists each with its position, keeps the file's other fixes and findings", async () => {
    const dir = await gitdir({
      "broken.ts": "foo(a @)\nfoo(b)\nconst z = Effect.map(x, f;\nconst y = Effect.map(u, g)\nnoFix(c @)\nnoFix(d)\n",
      "rules/rules.yml": [
        // a plain pattern (the ast engine's path)
        "id: foo-bar",
        "language: TypeScript",
        "rule: { pattern: 'foo($A)' }",
        "fix: bar($A)",
        "---",
        // constraints: matched on napi nodes
        "id: map-andthen",
        "language: TypeScript",
        "rule: { pattern: 'Effect.map($X, $F)' }",
        "constraints: { F: { kind: identifier } }",
        "fix: Effect.andThen($X, $F)",
        "---",
        // no fix: a finding on a misparse is no finding either (never a false one)
        "id: no-fix",
        "language: TypeScript",
        "severity: warning",
        "message: noFix of $A",
        "rule: { pattern: 'noFix($A)' }",
      ].join("\n"),
      "recipe.yaml": RECIPE("{ rules: [rules/rules.yml] }"),
    });
    const r = await report(dir, ["run", "recipe.yaml", "--mode", "auto-apply"]);
    expect(r.code, r.stderr).toBe(0);
    const d = r.json.steps[0].details;
    expect(d.findings.map((f: any) => `${f.rule} ${f.path}:${f.start.line}:${f.start.column}`)).toEqual([
      "foo-bar broken.ts:2:1",
      "map-andthen broken.ts:4:11",
      "no-fix broken.ts:6:1",
    ]);
    expect(d.parseIssues.map((p: any) => `${p.rule} ${p.path}:${p.start.line}:${p.start.column}`)).toEqual([
      "foo-bar broken.ts:1:1",
      "map-andthen broken.ts:3:11",
      "no-fix broken.ts:5:1",
    ]);
    expect(r.json.steps[0].resultText).toContain(
      "Parse issues:\n- broken.ts:1:1: foo-bar: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)",
    );
    expect(await read(dir, "broken.ts")).toBe("foo(a @)\nbar(b)\nconst z = Effect.map(x, f;\nconst y = Effect.andThen(u, g)\nnoFix(c @)\nnoFix(d)\n");
  });
});
