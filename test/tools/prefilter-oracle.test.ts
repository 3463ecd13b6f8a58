import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { langById } from "../../src/tools/ast/langs.js";
import { buildPrefilter, compilePrefilter, patternRequirement } from "../../src/tools/ast/pattern.js";
import { astGrepCli } from "../helpers/ast-grep-cli.js";
import { testdir } from "../helpers/testdir.js";

const run = promisify(execFile);

/** The CLI's matched file names (it exits 1 when nothing matches). */
async function cliFiles(pat: string, lang: string, dir: string): Promise<Set<string>> {
  const stdout = await run(astGrepCli(), ["run", "-p", pat, "-l", lang, "--json=compact", "."], { cwd: dir }).then(
    (r) => r.stdout,
    (e: { code?: number; stdout?: string }) => {
      if (e.code === 1 && e.stdout !== undefined) return e.stdout;
      throw e;
    },
  );
  return new Set((JSON.parse(stdout) as Array<{ file: string }>).map((m) => path.basename(m.file)));
}

// Targets that spell a pattern's tokens differently, or lack tokens ast-grep lets a pattern skip.
const SNIPPETS: Record<string, string> = {
  "strict.ts": "if (a !== undefined) f(a)\nif (b!==undefined) g()\nconst c = x === y\n",
  "loose.ts": "if (a != null) f(a)\nconst d = p == q\n",
  "instanceof.ts": "if (result instanceof Observable) h()\n",
  "typeof.ts": "const t = (typeof project !== 'function')\n",
  "arrow.ts": "const f = (x) =>x + 1\nconst g = async y => { return y }\n",
  "logic.ts": "const a = b && c || d\nconst e = f ?? g\n",
  "generic.ts": "type A<T> = Array<Array<T> >\nlet v: Map<string, Set<number> > = new Map()\nconst w = i >= j\n",
  "nested.ts": "const z = (m(1, 2)) === n\nfoo(1, 2).bar\n",
  "conditions.tsx": "if (typeof project !== 'function') { f() }\n",
  "instanceof.tsx": "if (result instanceof Observable) { g() }\n",
  "operands.ts":
    "if (a !==\n  // why\n  undefined) f(a)\nconst n = undefined/* x */!== b\nconst o = p === null || q\nconst r = s ?? fallback\nconst t = u.v !== null\n",
  "apart.ts": "if (a !== b) c = undefined\nconst d = null\nif (e === f) g()\n",
  "async.ts": "const h = k === async function () {}\nconst m = n && await p()\n",
};

// Patterns whose operators, keywords or ellipses decide what the prefilter may require.
const PATTERNS = [
  "$A !== undefined",
  "$A != null",
  "$A === $B",
  "$A == $B",
  "($$$A === $C)",
  "$$$A instanceof $B",
  "($$$A) === $C",
  "$A => $B",
  "async $A => $B",
  "$A && $B",
  "$A || $B",
  "$A ?? $B",
  "$A >= $B",
  "type $N<$P> = Array<Array<$T>>",
  "let $V: Map<$K, Set<$E>> = $I",
  "foo($$$A).bar",
  "typeof $A !== $B",
  "undefined !== $A",
  "$A === null || $B",
  "$A ?? fallback",
  "$A.v !== null",
  "$A === function () {}",
  "$A && await $B",
];

describe("the text prefilter never drops a file the ast-grep CLI matches", () => {
  it("admits every file holding a CLI match, for operator, keyword and ellipsis patterns", async () => {
    const dir = await testdir(SNIPPETS);
    const texts = new Map<string, string>();
    for (const f of Object.keys(SNIPPETS)) texts.set(f, await readFile(path.join(dir, f), "latin1"));
    const dropped: string[] = [];
    let matchedFiles = 0;
    for (const [lang, id] of [
      ["ts", "TypeScript"],
      ["tsx", "Tsx"],
    ] as const) {
      for (const pat of PATTERNS) {
        const files = await cliFiles(pat, lang, dir);
        const admits = compilePrefilter(buildPrefilter([pat], langById(id), false));
        for (const f of files) {
          matchedFiles++;
          if (admits !== null && !admits(texts.get(f)!)) dropped.push(`${pat} in ${f}`);
        }
      }
    }
    // The cases must exercise the filter: most patterns match somewhere.
    expect(matchedFiles).toBeGreaterThanOrEqual(PATTERNS.length);
    expect(dropped).toEqual([]);
  });

  it("still skips files that lack a required operator", () => {
    const admits = compilePrefilter(buildPrefilter(["$A !== undefined"], langById("TypeScript"), false))!;
    expect(admits("if (a != undefined) f()")).toBe(false);
    expect(admits("if (a !== undefined) f()")).toBe(true);
  });

  it("requires a lone operand next to its operator, and only there", () => {
    const ts = langById("TypeScript");
    const admits = (pat: string) => compilePrefilter(buildPrefilter([pat], ts, false))!;
    expect(admits("$A !== undefined")("if (a !== b) c = undefined")).toBe(false);
    expect(admits("$A !== undefined")("if (a!==/* why */\n undefined) f()")).toBe(true);
    expect(admits("undefined !== $A")("x = undefined; if (a !== b) f()")).toBe(false);
    expect(admits("undefined !== $A")("if (undefined !== b) f()")).toBe(true);
    // A word heading a larger node (a call, a member, a keyword before an operand) gets no run.
    expect(patternRequirement("$A === foo($B)", ts)?.runs).toEqual([]);
    expect(patternRequirement("$A === function () {}", ts)?.runs).toEqual([]);
    expect(patternRequirement("$A && await $B", ts)?.runs).toEqual([]);
    expect(patternRequirement("$A => undefined", ts)?.runs).toEqual([]);
  });

  it("requires nothing an ellipsis lets ast-grep skip", () => {
    // The CLI matches `$$$A instanceof $B` on `a === b`: the keyword after `$$$A` is skipped.
    const ts = langById("TypeScript");
    expect(patternRequirement("$$$A instanceof $B", ts)).toBeNull();
    expect(patternRequirement("($$$A === $C)", ts)).toBeNull();
    expect(patternRequirement("($$$A) === $C", ts)?.words).toEqual(["==="]);
  });
});
