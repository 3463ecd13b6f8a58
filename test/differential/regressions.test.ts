/**
 * Findings of the generative differential sweeps, each reduced to a small input: tollgate's
 * matches are compared with the ast-grep CLI's on the same files (the CLI is the oracle).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";
import { makeHost } from "../tools/helpers.js";
import { issuePositions, rangeKey } from "./compare.js";
import { runCli, runPatterns } from "./cli.js";

/** `file:line:col-line:col text` of every match, sorted. */
const keys = (ms: Array<{ file: string; line: number; col: number; endLine: number; endCol: number; text: string }>) =>
  ms.map((m) => `${m.file}:${rangeKey(m)} ${JSON.stringify(m.text)}`).sort();

/** The CLI's matches of `pat`, and tollgate's in one call with `pat` and the `others` (their matches left out). */
async function both(files: Record<string, string>, lang: string, cliLang: string, pat: string, others: string[] = [], threads?: number) {
  const dir = await testdir(files);
  const cli = keys(runPatterns(dir, cliLang, [pat]));
  const host = makeHost(dir, {}, threads === undefined ? {} : { ast: { threads } });
  const { details } = await host.call("ast_grep", { pat: [pat, ...others], lang, limit: 1_000_000 });
  const mine = (details.matches as Array<{ path: string; pattern: string } & Parameters<typeof keys>[0][number]>).filter((m) => m.pattern === pat);
  const tg = keys(mine.map((m) => ({ ...m, file: m.path })));
  return { cli, tg, details };
}

describe("generative differential findings", () => {
  it("a pattern whose parse keeps one metavariable matches ERROR nodes too, as the CLI's does (CSS `91.6667$A`)", async () => {
    // `2n-1` parses with an ERROR node for `-1`; the CLI's pattern `91.6667$A` is `$A` alone.
    const { cli, tg } = await both({ "a.css": ".t tr:nth-child(2n-1) td { color: red; }\n" }, "css", "Css", "91.6667$A");
    expect(cli).toContain('a.css:1:19-1:21 "-1"');
    expect(tg).toEqual(cli);
  });

  it("a CSS hex colour starting with digits filters no file (the CLI's matcher compares no colour digits)", async () => {
    const { cli, tg } = await both({ "h.css": ".a { color: #fff; }\n" }, "css", "Css", "$A: #129FEA;");
    expect(cli).toEqual(['h.css:1:6-1:18 "color: #fff;"']);
    expect(tg).toEqual(cli);
  });

  it("a match in code that recovery glued to an error (here: into a template) is found or listed where it lies, never missed silently", async () => {
    // ajv's keyword.ts with one `)` deleted: napi's parse pairs the backticks otherwise and line 25 becomes template text.
    const text = `function f() {
  function validateAsync(): Name {
    const ruleErrs = gen.let("ruleErrs", null)
    gen.try(
      () => assignValid(_\`await \`),
      (e) =>
        gen.assign(valid, false).if(
          _\`\${e} instanceof \${it.ValidationError as Name}\`,
          () => gen.assign(ruleErrs, _\`\${e}.errors\`),
          () => gen.throw(e)
        
    )
    return ruleErrs
  }

  function validateSync(): Code {
    const validateErrs = _\`\${validateRef}.errors\`
    gen.assign(validateErrs, null)
    assignValid(nil)
    return validateErrs
  }

  function assignValid(_await: Code = def.async ? _\`await \` : nil): void {
    const passCxt = it.opts.passContext ? N.this : N.self
    const passSchema = !(("compile" in def && !$data) || def.schema === false)
    gen.assign(
      valid,
      _\`\${_await}\${callValidateCode(cxt, validateRef, passCxt, passSchema)}\`,
      def.modifying
    )
  }
}
`;
    // Alone, and beside a pattern that matches the template recovery made (it is a literal there, whatever matched it).
    for (const others of [[], ["`$$$A`"]]) {
      const { cli, tg, details } = await both({ "a.tsx": text }, "tsx", "Tsx", "$B === $$$A", others);
      const lost = 'a.tsx:25:58-25:78 "def.schema === false"';
      expect(cli).toContain(lost);
      const listed = issuePositions(details.parseErrors, "a.tsx").some(([line, col]) => line === 25 && col >= 58 && col <= 78);
      expect(tg.includes(lost) || listed, JSON.stringify(details.parseErrors)).toBe(true);
    }
  });

  it("a number's digits are not required where the grammar compares only its unit: a match lost to recovery is listed (CSS `$$$A: 0.5em;`)", async () => {
    // purecss's forms.css with one `]` deleted: napi's parse turns the rules after it into one
    // ERROR node, the CLI's keeps `height: 2.25em;` (its pattern's `float_value` compares only `em`).
    const forms = readFileSync(path.join(REPO_ROOT, "node_modules/purecss/build/forms.css"), "utf8");
    const damaged = forms.replace('input[type="month"]:focus,', 'input[type="month":focus,').split("\n").slice(59, 160).join("\n");
    const { cli, tg, details } = await both({ "f.css": damaged }, "css", "Css", "$$$A: 0.5em;");
    expect(cli.length).toBeGreaterThan(0);
    for (const lost of cli.filter((k) => !tg.includes(k))) {
      const line = Number(/^f\.css:(\d+):/.exec(lost)![1]);
      expect(
        issuePositions(details.parseErrors, "f.css").some(([l]) => l === line),
        `${lost} is neither found nor listed: ${JSON.stringify(details.parseErrors)}`,
      ).toBe(true);
    }
  });

  it("a file lacking a pattern's fixed string is not searched for it, also in the pool's threads and beside other patterns", async () => {
    // `($$$A || $_)` matches any parenthesized expression; the CLI's `run` searches only files holding `||`.
    const files = { "a.ts": "const d = (a - b);\nf((x > 0));\n", "b.ts": "const e = (a || b);\nconst g = (c - d);\n" };
    for (const threads of [undefined, 2]) {
      const { cli, tg } = await both(files, "ts", "TypeScript", "($$$A || $_)", ["f($A)"], threads);
      expect(cli).toEqual(['b.ts:1:11-1:19 "(a || b)"', 'b.ts:2:11-2:18 "(c - d)"']);
      expect(tg, `threads ${threads}`).toEqual(cli);
    }
  });

  it("a match recovery glued beside an error is listed even where another pattern matched there (rxjs windowWhen with a `}` deleted)", async () => {
    const source = readFileSync(path.join(REPO_ROOT, "node_modules/rxjs/src/internal/operators/windowWhen.ts"), "utf8");
    const cut = "this.unsubscribeClosingNotification();\n  }\n\n  protected _complete";
    expect(source).toContain(cut);
    const text = source.replace(cut, "this.unsubscribeClosingNotification();\n  \n\n  protected _complete");
    // napi's parse makes `if (this.closingNotification) {…}` a method named `if`; `$B.$$$A()` matches inside it.
    for (const others of [[], ["$B.$$$A()"]]) {
      const { details } = await both({ "a.tsx": text }, "tsx", "Tsx", "if ($_) $$$A", others);
      const dir = await testdir({ "a.tsx": text });
      const cli = runPatterns(dir, "Tsx", ["if ($_) $$$A"]);
      expect(cli.length).toBeGreaterThanOrEqual(3);
      const issues = issuePositions(details.parseErrors, "a.tsx");
      const found = (details.matches as Array<{ pattern: string; line: number; col: number }>).filter((m) => m.pattern === "if ($_) $$$A");
      for (const m of cli) {
        const kept = found.some((f) => f.line === m.line && f.col === m.col);
        const listed = issues.some(([line, col]) => line === m.line && col >= m.col);
        expect(kept || listed, `${others.join(" ")}: ${m.line}:${m.col} ${JSON.stringify(details.parseErrors)}`).toBe(true);
      }
    }
  });

  it("counts a column in characters, as the CLI does, where a character outside the BMP comes first on the line", async () => {
    const files = { "a.ts": 'const s = "é"; foo(1);\nconst e = "😀"; foo(2); const f = "👍🏽"; foo(3);\n' };
    const { cli, tg, details } = await both(files, "ts", "TypeScript", "foo($A)");
    expect(cli).toEqual(['a.ts:1:16-1:22 "foo(1)"', 'a.ts:2:16-2:22 "foo(2)"', 'a.ts:2:40-2:46 "foo(3)"']);
    expect(tg).toEqual(cli);
    // ast_edit's change details too.
    const dir = await testdir(files);
    const edit = await makeHost(dir).call("ast_edit", { ops: [{ pat: "foo($A)", out: "bar($A)" }], lang: "ts" });
    const cols = (edit.details.changes as Array<{ line: number; col: number; endCol: number }>).map((c) => `${c.line}:${c.col}-${c.endCol}`);
    expect(cols).toEqual(["1:16-22", "2:16-22", "2:40-46"]);
    expect(details.matches.length).toBe(3);
  });

  it('a fix whose capture ends in the spaces before the rest of its line keeps them, as `scan --update-all` does (Python `"""$A"""`)', async () => {
    // http/cookies.py's js_output: the docstring's last line is the indentation before `""" % (…)`.
    const source = 'class M:\n    def js_output(self, attrs=None):\n        return """\n        <script>\n\n        </script>\n        """ % (attrs)\n';
    const rule = 'id: f8\nlanguage: Python\nseverity: hint\nrule: { pattern: \'"""$A"""\' }\nfix: $A\n';
    const dir = await testdir({ "rules.yml": rule, "recipe.yaml": "version: 1\nsteps:\n  - id: fix\n    tool: ast_scan\n    with: { rules: [rules.yml] }\n" });
    for (const d of ["cli", "tg"]) {
      mkdirSync(path.join(dir, d));
      writeFileSync(path.join(dir, d, "c.py"), source);
    }
    expect(runCli(["scan", "--inline-rules", rule, "--update-all", "."], path.join(dir, "cli")).status).toBe(0);
    const tg = await tollgate(["run", path.join(dir, "recipe.yaml"), "--cwd", path.join(dir, "tg"), "--mode", "auto-apply"], { cwd: dir });
    expect(tg.code, tg.stderr).toBe(0);
    const want = readFileSync(path.join(dir, "cli", "c.py"), "utf8");
    expect(want).toContain("\n         % (attrs)\n");
    // Interior blank lines get no indentation (a documented difference); every other line is the CLI's.
    const blankless = (t: string) => t.replace(/^ +$/gm, "");
    const got = readFileSync(path.join(dir, "tg", "c.py"), "utf8");
    expect(got).toContain("\n         % (attrs)\n");
    expect(blankless(got)).toBe(blankless(want));
  });
});
