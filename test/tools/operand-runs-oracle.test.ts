import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureLanguages, langById, loadNapi } from "../../src/tools/ast/langs.js";
import { buildPrefilter, compilePrefilter } from "../../src/tools/ast/pattern.js";
import { astGrepCli } from "../helpers/ast-grep-cli.js";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";

const run = promisify(execFile);

/** Installed packages' JavaScript: real code, about a megabyte of it. */
function realFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const dir of ["yaml/dist", "yargs/build/lib", "execa/lib"]) {
    const root = path.join(REPO_ROOT, "node_modules", dir);
    for (const f of readdirSync(root, { recursive: true }) as string[]) {
      if (f.endsWith(".js")) files[`${dir}/${f}`.replaceAll("/", "_")] = readFileSync(path.join(root, f), "utf8");
    }
  }
  return files;
}

const OPERATORS = new Set(["===", "!==", "==", "!=", "&&", "||", "??"]);
const LEAF = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Patterns made from the code's own binary expressions: an operator with a lone word on one side
 * and a metavariable on the other (`$A !== undefined`, `null == $A`), the shapes whose operand
 * runs the prefilter requires.
 */
async function operandPatterns(files: Record<string, string>): Promise<string[]> {
  const napi = await loadNapi();
  ensureLanguages(napi, ["JavaScript"]);
  const seen = new Map<string, number>();
  for (const text of Object.values(files)) {
    for (const node of napi
      .parse("JavaScript", text)
      .root()
      .findAll({ rule: { kind: "binary_expression" } })) {
      const op = node.field("operator")?.text() ?? "";
      const left = node.field("left");
      const right = node.field("right");
      if (!OPERATORS.has(op) || !left || !right) continue;
      const add = (p: string) => seen.set(p, (seen.get(p) ?? 0) + 1);
      if (right.children().length === 0 && LEAF.test(right.text())) add(`$A ${op} ${right.text()}`);
      if (left.children().length === 0 && LEAF.test(left.text())) add(`${left.text()} ${op} $A`);
    }
  }
  // The most frequent first: each is found in many files, and some files hold its tokens apart.
  return [...seen]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 40)
    .map(([p]) => p);
}

describe("operand runs in the prefilter, against the ast-grep CLI on real code", () => {
  it("admit every file the CLI matches for operator patterns made from real code, and skip some", async () => {
    const files = realFiles();
    expect(Object.keys(files).length).toBeGreaterThan(40);
    const dir = await testdir(files);
    const pats = await operandPatterns(files);
    expect(pats.length).toBe(40);
    const rules = pats.map((p, i) => `id: r${i}\nlanguage: JavaScript\nseverity: hint\nrule:\n  pattern: ${JSON.stringify(p)}\n`).join("---\n");
    const rulesFile = path.join(dir, "rules.yml.txt");
    writeFileSync(rulesFile, rules);
    const { stdout } = await run(astGrepCli(), ["scan", "--rule", rulesFile, "--json=compact", "."], { cwd: dir, maxBuffer: 256 * 1024 * 1024 });
    const found = JSON.parse(stdout) as Array<{ file: string; ruleId: string }>;
    const matched = new Map<string, Set<string>>();
    for (const m of found) {
      const file = m.file.replace(/^\.\//, "");
      if (!matched.has(m.ruleId)) matched.set(m.ruleId, new Set());
      matched.get(m.ruleId)!.add(file);
    }
    const js = langById("JavaScript");
    const latin1 = new Map(Object.keys(files).map((f) => [f, Buffer.from(files[f]!, "utf8").toString("latin1")]));
    const dropped: string[] = [];
    let admittedWithout = 0;
    let cliFiles = 0;
    for (const [i, pat] of pats.entries()) {
      const admits = compilePrefilter(buildPrefilter([pat], js, false))!;
      const hits = matched.get(`r${i}`) ?? new Set<string>();
      cliFiles += hits.size;
      for (const f of hits) if (!admits(latin1.get(f)!)) dropped.push(`${pat} in ${f}`);
      // Files holding the pattern's words whose operand runs rule them out.
      for (const [f, text] of latin1) {
        const words = pat.split(" ").filter((w) => w !== "$A");
        if (!hits.has(f) && words.every((w) => text.includes(w)) && !admits(text)) admittedWithout++;
      }
    }
    expect(cliFiles).toBeGreaterThan(100);
    expect(dropped).toEqual([]);
    expect(admittedWithout).toBeGreaterThan(0);
  });
});
