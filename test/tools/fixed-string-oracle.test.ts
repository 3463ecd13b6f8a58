import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { fixedString } from "../../src/tools/ast/fixed-string.js";
import { ensureLanguages, loadNapi } from "../../src/tools/ast/langs.js";
import { astGrepCli } from "../helpers/ast-grep-cli.js";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";
import { makeHost } from "./helpers.js";

const run = promisify(execFile);

/** `ast-grep run -p` matches as "file:start-end" (it exits 1 when nothing matches). */
async function cliMatches(pat: string, lang: string, dir: string, sel?: string): Promise<string[]> {
  const args = ["run", "-p", pat, ...(sel ? ["--selector", sel] : []), "-l", lang, "--json=compact", "."];
  const stdout = await run(astGrepCli(), args, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => r.stdout,
    (e: { code?: number; stdout?: string }) => {
      if (e.code === 1 && e.stdout !== undefined) return e.stdout;
      throw e;
    },
  );
  const got = JSON.parse(stdout) as Array<{ file: string; range: { start: { line: number; column: number } } }>;
  return got.map((m) => `${m.file.replace(/^\.\//, "")}:${m.range.start.line + 1}:${m.range.start.column + 1}`).sort();
}

async function tollgateMatches(pat: string, lang: string, dir: string, sel?: string): Promise<string[]> {
  const { details } = await makeHost(dir).call("ast_grep", { pat: [pat], lang, limit: 1_000_000, ...(sel ? { sel } : {}) });
  return (details.matches as Array<{ path: string; line: number; col: number }>).map((m) => `${m.path}:${m.line}:${m.col}`).sort();
}

// Patterns whose structural matches can lack their longest literal: ast-grep skips a pattern's
// unnamed tokens after a `$$$` ellipsis, and the CLI's `run` searches only files holding it.
const QUIRKS = ["($$$A === $C)", "$$$A instanceof $B", "f($$$A, 'function')", "($$$A && $B)", "[$$$A, typeof $B]"];

describe("ast_grep searches the files the ast-grep CLI's run searches (the pattern's fixed string)", () => {
  it("takes the CLI's fixed string: the first longest leaf, metavariables empty, the µ languages too", async () => {
    const napi = await loadNapi();
    ensureLanguages(napi, ["python"]);
    expect(fixedString(napi, "Tsx", "class A { $F }")).toBe("class");
    expect(fixedString(napi, "TypeScript", "($$$A === $C)")).toBe("===");
    expect(fixedString(napi, "TypeScript", "Effect.map($A, $B)")).toBe("Effect");
    expect(fixedString(napi, "TypeScript", "$A")).toBe("");
    expect(fixedString(napi, "python", "print($$$ARGS)")).toBe("print");
    expect(fixedString(napi, "python", "$X == $Y")).toBe("==");
    // A contextual pattern's is its selected node's (the first of that kind).
    expect(fixedString(napi, "TypeScript", "function f() { return ($$$A === $C); }", "parenthesized_expression")).toBe("===");
    expect(fixedString(napi, "Tsx", "class A { $F }", "property_identifier")).toBe("");
  });

  it("takes a contextual pattern's fixed string from its selected node, as the CLI's run --selector does", async () => {
    const dir = await testdir({
      "lacks.ts": 'const z = (typeof a !== "f");\n',
      "holds.ts": 'const y = (typeof a !== "f");\nconst w = (p === q);\n',
    });
    const cases: Array<[string, string]> = [
      ["function f() { return ($$$A === $C); }", "parenthesized_expression"],
      ["class K { $$$B() { return $V; } }", "method_definition"],
      ["const $X = ($$$A === $C);", "parenthesized_expression"],
    ];
    const differ: string[] = [];
    let cliTotal = 0;
    for (const [pat, sel] of cases) {
      const cli = await cliMatches(pat, "ts", dir, sel);
      cliTotal += cli.length;
      const tg = await tollgateMatches(pat, "ts", dir, sel);
      if (JSON.stringify(cli) !== JSON.stringify(tg)) differ.push(`${pat} / ${sel}: cli ${cli.join(" ")} | tollgate ${tg.join(" ")}`);
    }
    expect(cliTotal).toBeGreaterThanOrEqual(4);
    expect(differ).toEqual([]);
  });

  it("matches exactly what the CLI matches where a match lacks the pattern's literal", async () => {
    const dir = await testdir({
      "no-strict.ts": "if (typeof project !== 'function') { f() }\nconst k = (a instanceof B)\n",
      "with-strict.ts": "if (typeof project !== 'function') { f() }\nconst same = x === y\n",
      "calls.ts": "f(a, b, 'function')\nf(a, 'function')\nconst q = [1, typeof z]\nconst r = (p || q)\n",
      "and.ts": "const r = (p && q)\nconst s = (p || q)\n",
    });
    const differ: string[] = [];
    let cliTotal = 0;
    for (const lang of ["ts", "tsx"]) {
      for (const pat of QUIRKS) {
        const cli = await cliMatches(pat, lang, dir);
        cliTotal += cli.length;
        const tg = await tollgateMatches(pat, lang, dir);
        if (JSON.stringify(cli) !== JSON.stringify(tg)) differ.push(`${lang} ${pat}: cli ${cli.join(" ")} | tollgate ${tg.join(" ")}`);
      }
    }
    expect(cliTotal).toBeGreaterThan(0);
    expect(differ).toEqual([]);
  });

  it("agrees with the CLI on installed packages' code for ellipsis and operator patterns", async () => {
    // Real JavaScript: a few hundred KB of installed dependencies' sources.
    const pkgDir = path.join(REPO_ROOT, "node_modules", "yargs", "build", "lib");
    const files: Record<string, string> = {};
    for (const f of readdirSync(pkgDir, { recursive: true }) as string[]) {
      if (f.endsWith(".js")) files[f.replaceAll(path.sep, "_")] = readFileSync(path.join(pkgDir, f), "utf8");
    }
    expect(Object.keys(files).length).toBeGreaterThan(5);
    const dir = await testdir(files);
    const differ: string[] = [];
    let cliTotal = 0;
    for (const pat of [...QUIRKS, "typeof $A === $B", "$$$A !== undefined", "if ($$$C) { $$$B }", "return $$$A || $B"]) {
      const cli = await cliMatches(pat, "js", dir);
      cliTotal += cli.length;
      const tg = await tollgateMatches(pat, "js", dir);
      if (JSON.stringify(cli) !== JSON.stringify(tg)) differ.push(`${pat}: ${cli.length} vs ${tg.length}`);
    }
    expect(cliTotal).toBeGreaterThan(20);
    expect(differ).toEqual([]);
  });
});
