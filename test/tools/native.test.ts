/**
 * Whole-file matching in napi's threads (src/tools/ast/native.ts): the nodes of a file's whole
 * parse, or null where they cannot be vouched for, never a wrong answer and never a hang.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureLanguages, loadNapi } from "../../src/tools/ast/langs.js";
import { NativeFinder } from "../../src/tools/ast/native.js";
import { collect, combine, type EngineOp } from "../../src/tools/ast/traverse.js";
import { testdir } from "../helpers/testdir.js";

const op = (pat: string): EngineOp => ({ pat, captures: { A: false } });

describe("NativeFinder", () => {
  it("gives each file of a batch its own nodes, the same as a walk in this thread", async () => {
    const napi = await loadNapi();
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${i}.ts`] = i % 3 === 0 ? `const a${i} = 1;\n` : `foo(${i});\nbar(foo(${i} + 1));\nlet broken = (;\n`;
    const dir = await testdir(files);
    const c = combine([op("foo($A)")], [0], undefined)!;
    const finder = new NativeFinder(napi, 2);
    const answers = await Promise.all(Object.keys(files).map((f) => finder.find(path.join(dir, f), "TypeScript", files[f]!, c)));
    for (const [k, f] of Object.keys(files).entries()) {
      const nodes = answers[k];
      expect(nodes, f).not.toBeNull();
      const here = napi
        .parse("TypeScript", files[f]!)
        .root()
        .findAll(c.rule as never);
      const native = collect(nodes!, c, 0);
      const local = collect(here, c, 0);
      expect(native.found.map((x) => x.match)).toEqual(local.found.map((x) => x.match));
      expect(native.errors).toEqual(local.errors);
      if (k % 3 === 0) expect(nodes).toEqual([]);
      else expect(native.found.length).toBe(2);
    }
  });

  it("answers null when the file no longer holds the text the caller read", async () => {
    const napi = await loadNapi();
    const dir = await testdir({ "a.ts": "// moved\nfoo(1);\n" });
    const c = combine([op("foo($A)")], [0], undefined)!;
    const finder = new NativeFinder(napi, 1);
    // The caller read an older text: the nodes napi finds are at other offsets.
    expect(await finder.find(path.join(dir, "a.ts"), "TypeScript", "foo(1);\n", c)).toBeNull();
    expect(await finder.find(path.join(dir, "a.ts"), "TypeScript", readFileSync(path.join(dir, "a.ts"), "utf8"), c)).toHaveLength(1);
  });

  it("answers null for a rule napi refuses in a language, and for what is not a regular file", async () => {
    const napi = await loadNapi();
    ensureLanguages(napi, ["json"]);
    const dir = await testdir({ "a.json": '{ "a": 1 }\n' });
    // JSON has no lone-metavariable pattern: the combined rule's markers do not compile.
    const c = combine([{ pat: '"a": $A', captures: { A: false } }], [0], undefined)!;
    const finder = new NativeFinder(napi, 1);
    expect(await finder.find(path.join(dir, "a.json"), "json", '{ "a": 1 }\n', c)).toBeNull();
    execFileSync("mkfifo", [path.join(dir, "pipe.ts")]);
    const t = combine([op("foo($A)")], [0], undefined)!;
    expect(await finder.find(path.join(dir, "pipe.ts"), "TypeScript", "foo(1);\n", t)).toBeNull();
    expect(await finder.find(path.join(dir, "missing.ts"), "TypeScript", "foo(1);\n", t)).toBeNull();
  });
});
