import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { StaleError } from "../../src/errors.js";
import { gitdir, testdir } from "../helpers/testdir.js";
import { makeHost } from "./helpers.js";
import { ResultCache } from "../../src/cache/index.js";
import { ResultStore } from "../../src/cache/store.js";

const read = (dir: string, rel: string) => readFileSync(path.join(dir, rel), "utf8");
const MAP_OP = { pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" };
/** A result cache at `location` under a test key (each call a new run's view of it). */
const cacheAt = (location: string) => new ResultCache(new ResultStore({ location, key: Buffer.alloc(32, 3), build: "test", warn: () => {} }));

describe("ast_edit", () => {
  it("previews, stages one action with its label, and applies with its applied text", async () => {
    const dir = await testdir({ "src/a.ts": "const x = Effect.map(a, f)\nconst y = Effect.map(b, g)\n", "src/b.ts": "const z = 1\n" });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts", path: "src" });
    expect(t.actions).toHaveLength(1);
    const action = t.actions[0]!;
    expect(action.label).toBe("AST Edit: 2 replacements in 1 file");
    expect(action.sourceToolName).toBe("ast_edit");
    expect(action.replacements).toBe(2);
    expect(text).toBe(
      [
        "# a.ts (2 replacements)",
        "-1:11 Effect.map(a, f)",
        "+1:11 Effect.andThen(a, f)",
        "-2:11 Effect.map(b, g)",
        "+2:11 Effect.andThen(b, g)",
        "",
        "Preview only: no file has been modified yet. Resolving this pending action with apply writes these changes.",
      ].join("\n"),
    );
    expect(details).toMatchObject({
      totalReplacements: 2,
      filesTouched: 1,
      filesSearched: 2,
      applied: false,
      limitReached: false,
      parseErrors: [],
      scopePath: "src",
      // display paths: relative to the scope directory
      files: ["a.ts"],
      fileReplacements: [{ path: "a.ts", count: 2 }],
    });
    expect(details.changes[0].path).toBe("src/a.ts");
    expect(read(dir, "src/a.ts")).toContain("Effect.map(a, f)"); // nothing written yet
    const applied = await action.apply("ok");
    expect(applied.content[0]).toEqual({ type: "text", text: "Applied 2 replacements in 1 file." });
    expect(read(dir, "src/a.ts")).toBe("const x = Effect.andThen(a, f)\nconst y = Effect.andThen(b, g)\n");
  });

  it("uses singular forms and groups files by directory", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\n", "lib/b.ts": "x\n\nEffect.map(b, g)\n", "lib/c.ts": "Effect.map(c, h); Effect.map(d, i)\n" });
    const t = makeHost(dir);
    const { text } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    expect(t.actions[0]!.label).toBe("AST Edit: 4 replacements in 3 files");
    expect(text.split("\n").slice(0, 14)).toEqual([
      "# a.ts (1 replacement)",
      "-1:1 Effect.map(a, f)",
      "+1:1 Effect.andThen(a, f)",
      "",
      "# lib",
      "## └─ b.ts (1 replacement)",
      "-3:1 Effect.map(b, g)",
      "+3:1 Effect.andThen(b, g)",
      "## └─ c.ts (2 replacements)",
      "-1:1 Effect.map(c, h)",
      "+1:1 Effect.andThen(c, h)",
      "-1:19 Effect.map(d, i)",
      "+1:19 Effect.andThen(d, i)",
      "",
    ]);
    const single = makeHost(dir);
    await single.call("ast_edit", { ops: [MAP_OP], path: "a.ts" });
    expect(single.actions[0]!.label).toBe("AST Edit: 1 replacement in 1 file");
    expect((await single.actions[0]!.apply("r")).content[0]).toMatchObject({ text: "Applied 1 replacement in 1 file." });
  });

  it("substitutes $A and $$$ARGS (separators kept, zero nodes → empty)", async () => {
    const dir = await testdir({
      "a.ts": "log(1, two, 'three')\nlog()\nfoo(a)(b)\nconsole.log(x,\n  y)\n",
    });
    const t = makeHost(dir);
    await t.call("ast_edit", {
      ops: [
        { pat: "log($$$ARGS)", out: "logger.info($$$ARGS)" },
        { pat: "console.log($A, $B)", out: "print($B, $A)" },
      ],
      lang: "ts",
    });
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("logger.info(1, two, 'three')\nlogger.info()\nfoo(a)(b)\nprint(y, x)\n");
  });

  it("rewrites a match nested in another match's capture in the same pass and counts it", async () => {
    const dir = await testdir({ "a.ts": "const r = Effect.map(a, Effect.map(b, f))\n" });
    const t = makeHost(dir);
    const { details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    expect(details.totalReplacements).toBe(2);
    expect(t.actions[0]!.label).toBe("AST Edit: 2 replacements in 1 file");
    expect(details.changes.map((c: any) => c.nested)).toEqual([false, true]);
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("const r = Effect.andThen(a, Effect.andThen(b, f))\n");
  });

  it("reports other overlaps at preview with both ranges and stages nothing", async () => {
    const dir = await testdir({ "a.ts": "foo(bar(1))\n" });
    const t = makeHost(dir);
    await expect(
      t.call("ast_edit", {
        ops: [
          { pat: "foo($A)", out: "baz()" },
          { pat: "bar($A)", out: "qux($A)" },
        ],
        lang: "ts",
      }),
    ).rejects.toThrow(
      /Overlapping replacements detected; refine pattern to avoid ambiguous edits[\s\S]*a\.ts:1:5-1:11 \(bar\(\$A\)\)[\s\S]*a\.ts:1:1-1:12 \(foo\(\$A\)\)/,
    );
    expect(t.actions).toHaveLength(0);
    // two patterns matching the same node
    await expect(
      t.call("ast_edit", {
        ops: [
          { pat: "foo($A)", out: "x($A)" },
          { pat: "foo(bar($B))", out: "y($B)" },
        ],
        lang: "ts",
      }),
    ).rejects.toThrow(/a\.ts:1:1-1:12/);
    expect(t.actions).toHaveLength(0);
  });

  it("zero matches: `No replacements made`, nothing pushed", async () => {
    const dir = await testdir({ "a.ts": "const x = 1\n" });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    expect(text).toBe("No replacements made");
    expect(details.totalReplacements).toBe(0);
    expect(t.actions).toHaveLength(0);
  });

  it("zero replacements with parse issues: the block follows `No replacements made` on the next line", async () => {
    const dir = await testdir({ "bad.ts": "foo(a @)\n", "ok.ts": "const x = 1\n" });
    const t = makeHost(dir);
    const { text } = await t.call("ast_edit", { ops: [{ pat: "foo($A)", out: "bar($A)" }], lang: "ts" });
    expect(text).toBe(
      "No replacements made\nParse issues:\n- bad.ts:1:1: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)",
    );
    expect(t.actions).toHaveLength(0);
  });

  it("validation errors name the parameter at fault", async () => {
    const dir = await testdir({ "a.ts": "x\n", "b.py": "x\n" });
    const t = makeHost(dir);
    await expect(t.call("ast_edit", { ops: [], lang: "ts" })).rejects.toThrow("`ops` must include at least one op entry");
    await expect(t.call("ast_edit", { ops: [{ pat: "", out: "x" }], lang: "ts" })).rejects.toThrow("`ops[0].pat` must be a non-empty pattern");
    await expect(t.call("ast_edit", { ops: [MAP_OP, { ...MAP_OP }], lang: "ts" })).rejects.toThrow("Duplicate rewrite pattern: Effect.map($A, $B)");
    await expect(t.call("ast_edit", { ops: [MAP_OP], lang: "ts", limit: 0 })).rejects.toThrow("limit must be a positive number");
    await expect(t.call("ast_edit", { ops: [MAP_OP], lang: "ts", path: "nope" })).rejects.toThrow("Path not found: nope");
    await expect(t.call("ast_edit", { ops: [MAP_OP], lang: "cobol" })).rejects.toThrow(/^Unsupported language 'cobol'\. Supported: .*\bts\b/);
    await expect(t.call("ast_edit", { ops: [MAP_OP] })).rejects.toThrow(
      "`lang` is required for ast_edit when path/glob resolves to multiple languages: Python, TypeScript",
    );
    await expect(t.call("ast_edit", { ops: [MAP_OP], path: "a.ts", glob: "*.md" })).rejects.toThrow(
      "`lang` is required for ast_edit when no files match path/glob",
    );
    // What the ast-grep CLI refuses is refused with its core's reason and the pattern's place;
    // what it accepts with a warning (an ERROR node in the pattern) is accepted with that warning.
    await expect(t.call("ast_edit", { ops: [MAP_OP, { pat: "foo(1); bar(2)", out: "x" }], lang: "ts" })).rejects.toThrow(
      "Invalid pattern for TypeScript: foo(1); bar(2): Multiple AST nodes are detected. Please check the pattern source `foo(1); bar(2)`. (ops[1].pat)",
    );
    const warned = await t.call("ast_edit", { ops: [{ pat: "Effect.map($A,", out: "x" }], lang: "ts" });
    expect(warned.text).toContain('Warning: Pattern "Effect.map($A," (TypeScript, ops[0].pat) contains an ERROR node and may cause unexpected results');
    await expect(t.call("ast_edit", { ops: [{ pat: "foo($A)", out: "bar($B)" }], lang: "ts" })).rejects.toThrow(
      "`ops[0].out` uses $B, which `ops[0].pat` does not capture",
    );
    await expect(t.call("ast_edit", { ops: [MAP_OP], lang: "ts", path: "../outside" })).rejects.toThrow(/outside the workspace/);
  });

  it("limit caps the total and says so", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\nEffect.map(b, g)\n", "b.ts": "Effect.map(c, h)\n" });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts", limit: 2 });
    expect(details.totalReplacements).toBe(2);
    expect(details.limitReached).toBe(true);
    expect(text).toContain("\n\nLimit reached; narrow path or increase limit.");
  });

  it("limit keeps the first files in discovery order, cuts the file that meets it, and drops later files' issues", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`src/f${String(i).padStart(2, "0")}.ts`] = `Effect.map(a${i}, f)\nEffect.map(b${i}, g)\n`;
    // a parse issue in a file past the limit is not listed
    files["src/f29.ts"] = "Effect.map(a, f)\nconst = Effect.map(\n";
    const dir = await testdir(files);
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts", path: "src", limit: 5 });
    expect(details.totalReplacements).toBe(5);
    expect(details.limitReached).toBe(true);
    expect(details.fileReplacements).toEqual([
      { path: "f00.ts", count: 2 },
      { path: "f01.ts", count: 2 },
      { path: "f02.ts", count: 1 },
    ]);
    expect(details.parseErrors).toEqual([]);
    expect(t.actions[0]!.label).toBe("AST Edit: 5 replacements in 3 files");
    expect(text).toContain("# f02.ts (1 replacement)\n-1:1 Effect.map(a2, f)\n+1:1 Effect.andThen(a2, f)\n\nLimit reached");
    await t.actions[0]!.apply("ok");
    expect(read(dir, "src/f02.ts")).toBe("Effect.andThen(a2, f)\nEffect.map(b2, g)\n");
    expect(read(dir, "src/f03.ts")).toBe("Effect.map(a3, f)\nEffect.map(b3, g)\n");
    // without the limit, f29's issue is listed
    const all = await makeHost(dir).call("ast_edit", { ops: [MAP_OP], lang: "ts", path: "src" });
    expect(all.details.parseErrors.some((e: string) => e.startsWith("f29.ts:"))).toBe(true);
  });

  it("stale: a file changed so the edits differ is refused, nothing written", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\n", "b.ts": "Effect.map(b, g)\n" });
    const t = makeHost(dir);
    await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    writeFileSync(path.join(dir, "a.ts"), "Effect.map(other, f)\n");
    await expect(t.actions[0]!.apply("r")).rejects.toBeInstanceOf(StaleError);
    await expect(t.actions[0]!.apply("r")).rejects.toThrow(/a\.ts/);
    expect(read(dir, "b.ts")).toBe("Effect.map(b, g)\n");
  });

  it("rebase: an unrelated change to the file still applies", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\n" });
    const t = makeHost(dir);
    await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    writeFileSync(path.join(dir, "a.ts"), "// header\nEffect.map(a, f)\n");
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("// header\nEffect.andThen(a, f)\n");
  });

  it("with the result cache, a kept plan stages, previews and rebases as a computed one", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\nEffect.map(b, g)\n" });
    const loc = await testdir();
    const first = cacheAt(loc);
    const cold = makeHost(dir, {}, { cache: first });
    const computed = await cold.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    await first.close();
    const second = cacheAt(loc);
    const warm = makeHost(dir, {}, { cache: second });
    const kept = await warm.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    // Three answers kept (the engine's, the plan, the diff), all taken again, none computed.
    expect(second.store.stats).toMatchObject({ hits: 3, misses: 0 });
    expect(kept.text).toBe(computed.text);
    expect(kept.details).toEqual(computed.details);
    const shape = (t: typeof cold) => t.actions[0]!.changes!.map(({ rebase: _r, diff, ...c }) => ({ ...c, diff: diff.text() }));
    expect(shape(warm)).toEqual(shape(cold));
    writeFileSync(path.join(dir, "a.ts"), "// header\nEffect.map(a, f)\nEffect.map(b, g)\n");
    await warm.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("// header\nEffect.andThen(a, f)\nEffect.andThen(b, g)\n");
  });

  it("with the result cache, a plan kept without a limit is not used where a limit cuts the file's matches", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\nEffect.map(b, g)\n" });
    const loc = await testdir();
    const filled = cacheAt(loc);
    await makeHost(dir, {}, { cache: filled }).call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    await filled.close();
    const cut = await makeHost(dir, {}, { cache: cacheAt(loc) }).call("ast_edit", { ops: [MAP_OP], lang: "ts", limit: 1 });
    const plain = await makeHost(dir).call("ast_edit", { ops: [MAP_OP], lang: "ts", limit: 1 });
    expect(cut.text).toBe(plain.text);
    expect(cut.details).toEqual(plain.details);
    expect(cut.details.totalReplacements).toBe(1);
  });

  it("two independent steps on the same file both apply when resolved LIFO", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\nconsole.log(x)\n" });
    const t = makeHost(dir);
    await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    await t.call("ast_edit", { ops: [{ pat: "console.log($A)", out: "logger.info($A)" }], lang: "ts" });
    expect(t.actions).toHaveLength(2);
    await t.actions[1]!.apply("r"); // newest first
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("Effect.andThen(a, f)\nlogger.info(x)\n");
  });

  it("keeps CRLF, BOM and file mode; multi-line templates use the file's line endings and indentation", async () => {
    const dir = await testdir({});
    const file = path.join(dir, "a.ts");
    writeFileSync(file, "\uFEFFfunction f() {\r\n  if (ok) Effect.map(a, f)\r\n}\r\n");
    chmodSync(file, 0o755);
    const t = makeHost(dir);
    await t.call("ast_edit", { ops: [{ pat: "Effect.map($A, $B)", out: "pipe(\n  $A,\n  map($B)\n)" }], lang: "ts" });
    await t.actions[0]!.apply("r");
    expect(readFileSync(file, "utf8")).toBe("\uFEFFfunction f() {\r\n  if (ok) pipe(\r\n    a,\r\n    map(f)\r\n  )\r\n}\r\n");
    expect(statSync(file).mode & 0o777).toBe(0o755);
  });

  it("re-indents a multi-line capture moved to another indentation", async () => {
    const dir = await testdir({ "a.ts": "wrap(() => {\n  one()\n  two()\n})\n" });
    const t = makeHost(dir);
    await t.call("ast_edit", { ops: [{ pat: "wrap($F)", out: "outer(\n  inner(\n    $F\n  )\n)" }], lang: "ts" });
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("outer(\n  inner(\n    () => {\n      one()\n      two()\n    }\n  )\n)\n");
  });

  it("handles non-ASCII text before a match (UTF-16 offsets)", async () => {
    const dir = await testdir({ "a.ts": "const é = '😀😀'; Effect.map(a, f)\n" });
    const t = makeHost(dir);
    await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("const é = '😀😀'; Effect.andThen(a, f)\n");
  });

  it("skips a match resting on a syntax error, lists it under Parse issues, keeps the file's clean matches", async () => {
    const dir = await testdir({
      "bad.ts": "foo(a @)\n",
      "good.ts": "foo(b)\n",
      // error nodes in another statement, or inside brackets in a capture, do not block the rewrite
      "other.ts": "foo(c)\nconst = ;\n",
      "warn.ts": "foo(() => { const = ; })\n",
      // an error in a capture that no brackets there enclose: recovery may have joined code
      "joined.ts": "foo(a + @)\nfoo(d)\n",
    });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_edit", { ops: [{ pat: "foo($A)", out: "bar($A)" }], lang: "ts" });
    const skipped = (at: string) => `${at}: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)`;
    expect(details.parseErrors).toEqual([skipped("bad.ts:1:1"), skipped("joined.ts:1:1")]);
    expect(text).toContain(`\n\nParse issues:\n- ${skipped("bad.ts:1:1")}\n- ${skipped("joined.ts:1:1")}`);
    expect(details.files).toEqual(["good.ts", "joined.ts", "other.ts", "warn.ts"]);
    await t.actions[0]!.apply("r");
    expect(read(dir, "bad.ts")).toBe("foo(a @)\n");
    expect(read(dir, "good.ts")).toBe("bar(b)\n");
    expect(read(dir, "other.ts")).toBe("bar(c)\nconst = ;\n");
    expect(read(dir, "warn.ts")).toBe("bar(() => { const = ; })\n");
    expect(read(dir, "joined.ts")).toBe("foo(a + @)\nbar(d)\n");
  });

  it("lists a file with syntax errors and no match under Parse issues (files that cannot match are not parsed)", async () => {
    const dir = await testdir({
      "broken.ts": "const x = Effect.map(a, f\nfunction (\n",
      "good.ts": "const b = Effect.map(y, g)\n",
      "unrelated.ts": "function (\n", // lacks the pattern's tokens: never parsed, not listed
    });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    const issue = "broken.ts:1:11: parse error (a syntax error holds the pattern's tokens here; a match may be missing)";
    expect(details.parseErrors).toEqual([issue]);
    expect(details.files).toEqual(["good.ts"]);
    expect(text).toContain(`\n\nParse issues:\n- ${issue}`);
    const grep = await t.call("ast_grep", { pat: ["Effect.map($A, $B)"], lang: "ts" });
    expect(grep.details.parseErrors).toEqual([issue]);
  });

  it("skips a file whose match rests on a token the parser invented (an unclosed call)", async () => {
    const dir = await testdir({
      "open.ts": "const a = Effect.map(x, f;\n",
      "good.ts": "const b = Effect.map(y, g)\n",
      "array.ts": "Effect.map(x, [1, 2)\n", // the invented `]` closes the capture
    });
    const t = makeHost(dir);
    const { details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    expect(details.parseErrors).toEqual([
      "array.ts:1:1: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)",
      "array.ts:1:17: parse error (a syntax error holds the pattern's tokens here; a match may be missing)",
      "open.ts:1:11: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)",
      "open.ts:1:21: parse error (a syntax error holds the pattern's tokens here; a match may be missing)",
    ]);
    expect(details.files).not.toContain("open.ts");
    expect(details.files).toContain("good.ts");
    await t.actions[0]!.apply("r");
    expect(read(dir, "open.ts")).toBe("const a = Effect.map(x, f;\n");
    expect(read(dir, "good.ts")).toBe("const b = Effect.andThen(y, g)\n");
  });

  it("skips binary, non-UTF-8 and oversize files and lists them", async () => {
    const dir = await testdir({ "a.ts": "Effect.map(a, f)\n" });
    writeFileSync(path.join(dir, "bin.ts"), Buffer.from([0x45, 0x00, 0x01, 0x02]));
    writeFileSync(path.join(dir, "latin.ts"), Buffer.from([0x45, 0xe9, 0x0a]));
    writeFileSync(path.join(dir, "big.ts"), `// ${"x".repeat(3000)}\nEffect.map(z, y)\n`);
    const t = makeHost(dir, {}, { maxFileBytes: 2000 });
    const { text, details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
    expect(details.files).toEqual(["a.ts"]);
    expect(details.skipped).toEqual([
      { path: "big.ts", reason: "too-large" },
      { path: "bin.ts", reason: "binary" },
      { path: "latin.ts", reason: "non-utf8" },
    ]);
    expect(text).toContain("Skipped files:\n- big.ts: larger than 2000 bytes\n- bin.ts: binary file\n- latin.ts: not valid UTF-8");
  });

  it("honours .gitignore in a git repo and outside one; skips node_modules", async () => {
    const files = {
      ".gitignore": "ignored/\n*.gen.ts\n",
      "src/a.ts": "Effect.map(a, f)\n",
      "src/x.gen.ts": "Effect.map(a, f)\n",
      "ignored/b.ts": "Effect.map(a, f)\n",
      "node_modules/m/c.ts": "Effect.map(a, f)\n",
      "sub/.gitignore": "local.ts\n",
      "sub/local.ts": "Effect.map(a, f)\n",
      "sub/kept.ts": "Effect.map(a, f)\n",
    };
    for (const dir of [await gitdir(files), await testdir(files)]) {
      const t = makeHost(dir);
      const { details } = await t.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
      expect(details.files).toEqual(["src/a.ts", "sub/kept.ts"]);
    }
  });

  it("restricts to positional files and shards deterministically", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`f${i}.ts`] = "Effect.map(a, f)\n";
    const dir = await testdir(files);
    const only = makeHost(dir, { files: ["f1.ts", "f3.ts", "missing.ts"] });
    expect((await only.call("ast_edit", { ops: [MAP_OP], lang: "ts" })).details.files).toEqual(["f1.ts", "f3.ts"]);
    const seen: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const s = makeHost(dir, { shard: { index: i, count: 3 } });
      const { details } = await s.call("ast_edit", { ops: [MAP_OP], lang: "ts" });
      seen.push(...details.files);
    }
    expect(seen.sort()).toEqual(Object.keys(files).sort());
  });

  it("accepts globs in path and the glob filter, and comma lists", async () => {
    const dir = await testdir({ "src/a.ts": "Effect.map(a, f)\n", "src/deep/b.ts": "Effect.map(a, f)\n", "test/c.ts": "Effect.map(a, f)\n" });
    const t = makeHost(dir);
    expect((await t.call("ast_edit", { ops: [MAP_OP], path: "src/**/*.ts" })).details.files).toEqual(["a.ts", "deep/b.ts"]);
    expect((await t.call("ast_edit", { ops: [MAP_OP], path: "src", glob: "deep/*.ts" })).details.files).toEqual(["deep/b.ts"]);
    expect((await t.call("ast_edit", { ops: [MAP_OP], path: "src/deep/b.ts" })).details.fileReplacements).toEqual([{ path: "b.ts", count: 1 }]);
    expect((await t.call("ast_edit", { ops: [MAP_OP], path: "src/a.ts,test" })).details.files).toEqual(["src/a.ts", "test/c.ts"]);
  });

  it("a path glob naming directories combines with the glob filter (packages/pkg-*/src)", async () => {
    const dir = await testdir({
      "packages/pkg-123/src/root.ts": "legacyWrap(rootValue, rootArg)\n",
      "packages/pkg-123/src/nested/child.ts": "legacyWrap(childValue, childArg)\n",
      "packages/pkg-123/src/ignore.js": "legacyWrap(ignoreValue, ignoreArg)\n",
      "packages/pkg-123/other/x.ts": "legacyWrap(otherValue, otherArg)\n",
      "outside.ts": "legacyWrap(outsideValue, outsideArg)\n",
    });
    const t = makeHost(dir);
    const op = { pat: "legacyWrap($A, $B)", out: "modernWrap($A, $B)" };
    const { text, details } = await t.call("ast_edit", { ops: [op], lang: "typescript", path: "packages/pkg-*/src", glob: "**/*.ts" });
    expect(text).toContain("## └─ root.ts (1 replacement)");
    expect(text).toContain("## └─ child.ts (1 replacement)");
    expect(text).not.toContain("ignore.js");
    expect(text).not.toContain("x.ts");
    expect(text).not.toContain("outside.ts");
    expect(details.totalReplacements).toBe(2);
    // without the glob filter the directories' files are the scope; the filter is relative to them
    expect((await t.call("ast_edit", { ops: [op], lang: "ts", path: "packages/*/src" })).details.totalReplacements).toBe(2);
    expect((await t.call("ast_edit", { ops: [op], lang: "ts", path: "packages/*/src", glob: "nested/*.ts" })).details.totalReplacements).toBe(1);
  });
});
