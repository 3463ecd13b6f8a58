import { describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.js";
import { makeHost } from "./helpers.js";

describe("ast_grep", () => {
  it("lists matches grouped by directory with metavariables, read-only", async () => {
    const dir = await testdir({ "a.ts": "foo(1, 2)\n", "lib/b.ts": "const x = 1\nfoo(\n  3,\n  4\n)\n" });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_grep", { pat: ["foo($A, $$$REST)"], lang: "ts" });
    expect(t.actions).toHaveLength(0);
    expect(text).toBe(
      ["# a.ts", "1:foo(1, 2)", "  meta: A=1, REST=2", "", "# lib", "## └─ b.ts", "2:foo(", "3-  3,", "4-  4", "5-)", "  meta: A=3, REST=4"].join("\n"),
    );
    expect(details).toMatchObject({
      matchCount: 2,
      totalMatches: 2,
      fileCount: 2,
      filesSearched: 2,
      limitReached: false,
      scopePath: ".",
      files: ["a.ts", "lib/b.ts"],
    });
    expect(details.matches[1]).toMatchObject({ path: "lib/b.ts", line: 2, col: 1, endLine: 5, endCol: 2, meta: { A: "3", REST: "4" } });
  });

  it("limit and offset page through matches in a stable order", async () => {
    const dir = await testdir({ "a.ts": "f(1)\nf(2)\nf(3)\n" });
    const t = makeHost(dir);
    const first = await t.call("ast_grep", { pat: ["f($A)"], lang: "ts", limit: 2 });
    expect(first.details.matches.map((m: any) => m.meta.A)).toEqual(["1", "2"]);
    expect(first.details.limitReached).toBe(true);
    // the counts are totals; the page is in files/fileMatches/matches
    expect(first.details).toMatchObject({ matchCount: 3, totalMatches: 3, fileCount: 1, fileMatches: [{ path: "a.ts", count: 2 }] });
    expect(first.text).toContain("\n\nResult limit reached; narrow path pattern or increase limit.");
    const second = await t.call("ast_grep", { pat: ["f($A)"], lang: "ts", limit: 2, offset: 2 });
    expect(second.details.matches.map((m: any) => m.meta.A)).toEqual(["3"]);
    expect(second.details.limitReached).toBe(false);
    const past = await t.call("ast_grep", { pat: ["f($A)"], lang: "ts", offset: 5 });
    expect(past.text).toBe("No matches found");
    expect(past.details).toMatchObject({ matchCount: 3, limitReached: false, matches: [] });
  });

  it("no matches and validation texts", async () => {
    const dir = await testdir({ "a.ts": "x\n" });
    const t = makeHost(dir);
    expect((await t.call("ast_grep", { pat: ["nothing($A)"], lang: "ts" })).text).toBe("No matches found");
    await expect(t.call("ast_grep", { pat: ["  ", ""], lang: "ts" })).rejects.toThrow("`pat` must include at least one non-empty pattern");
    await expect(t.call("ast_grep", { pat: ["x"], lang: "ts", limit: 0 })).rejects.toThrow("Limit must be a positive number");
    await expect(t.call("ast_grep", { pat: ["x"], lang: "ts", offset: -1 })).rejects.toThrow("Offset must be a non-negative number");
    await expect(t.call("ast_grep", { pat: ["x"], lang: "ts", path: "missing/dir" })).rejects.toThrow("Path not found: missing/dir");
    await expect(t.call("ast_grep", { pat: ["x"], lang: "ts", path: "/etc" })).rejects.toThrow(/outside the workspace/);
  });

  it("no matches with parse issues: the hint, the block on the next line", async () => {
    const dir = await testdir({ "bad.ts": "foo(a @)\n" });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_grep", { pat: ["foo($A)"], lang: "ts" });
    expect(text).toBe(
      "No matches found. Parse issues mean the query may be mis-scoped; narrow `path`/`glob` or set `lang` before concluding absence.\nParse issues:\n- bad.ts:1:1: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)",
    );
    expect(details.parseErrors).toEqual(["bad.ts:1:1: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)"]);
  });

  it("pads the line numbers of a multi-line match to the widest one", async () => {
    const dir = await testdir({ "a.ts": `${"\n".repeat(8)}foo(\n  1\n)\n` });
    const t = makeHost(dir);
    const { text } = await t.call("ast_grep", { pat: ["foo($A)"], lang: "ts", path: "a.ts" });
    expect(text).toBe([" 9:foo(", "10-  1", "11-)", "  meta: A=1"].join("\n"));
  });

  it("without lang, searches a mixed-language tree with each file's own language (like ast-grep)", async () => {
    const dir = await testdir({
      "a.ts": "foo(1)\n",
      "b.js": "foo(2)\n",
      "c.py": "def g():\n    foo(3)\n",
      "d.css": "a { color: red }\n",
      "package.json": '{"foo": 1}\n',
    });
    const t = makeHost(dir);
    const { text, details } = await t.call("ast_grep", { pat: ["foo($A)"] });
    expect(details.files).toEqual(["a.ts", "b.js", "c.py"]);
    expect(text).toBe(["# a.ts", "1:foo(1)", "  meta: A=1", "", "# b.js", "1:foo(2)", "  meta: A=2", "", "# c.py", "2:foo(3)", "  meta: A=3"].join("\n"));
    // a pattern that is not valid in some of the languages leaves those files out, listed
    const py = await t.call("ast_grep", { pat: ["def $F(): $$$B"] });
    expect(py.details.files).toEqual(["c.py"]);
    expect(py.details.parseErrors.some((e: string) => e.startsWith("Invalid pattern for TypeScript: def $F(): $$$B"))).toBe(true);
    expect(py.text).toContain("\n\nParse issues:\n- Invalid pattern for");
    // ast_edit still needs one language
    await expect(t.call("ast_edit", { ops: [{ pat: "foo($A)", out: "bar($A)" }] })).rejects.toThrow(
      "`lang` is required for ast_edit when path/glob resolves to multiple languages",
    );
  });

  it("details name files by display paths (relative to the scope); matches stay workspace-relative", async () => {
    const dir = await testdir({ "src/a.ts": "foo(1)\n", "src/lib/b.ts": "foo(2)\n", "src/bad.ts": "foo(a @)\n" });
    const t = makeHost(dir);
    const { details } = await t.call("ast_grep", { pat: ["foo($A)"], path: "src" });
    expect(details.files).toEqual(["a.ts", "lib/b.ts"]);
    expect(details.fileMatches).toEqual([
      { path: "a.ts", count: 1 },
      { path: "lib/b.ts", count: 1 },
    ]);
    expect(details.parseErrors).toEqual(["bad.ts:1:1: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)"]);
    expect(details.matches.map((m: any) => m.path)).toEqual(["src/a.ts", "src/lib/b.ts"]);
  });

  it("contextual patterns with sel", async () => {
    const dir = await testdir({ "a.ts": "class A { x = 1; y = 2 }\n" });
    const t = makeHost(dir);
    const { details } = await t.call("ast_grep", { pat: ["class K { $F = $V }"], sel: "public_field_definition", lang: "ts" });
    expect(details.matches.map((m: any) => m.text)).toEqual(["x = 1", "y = 2"]);
  });

  it("searches every language: TS, TSX, JS/JSX, CSS, HTML, JSON, Python, Go, Rust", async () => {
    const dir = await testdir({
      "a.ts": "const a: number = foo(1)\n",
      "b.tsx": "const b = <div>{foo(2)}</div>\n",
      "c.js": "foo(3)\n",
      "d.jsx": "const d = <p>{foo(4)}</p>\n",
      "e.css": "a { color: red; }\n",
      "f.html": "<div><p>hi</p></div>\n",
      "g.json": '{"a": [1, 2], "b": true}\n',
      "h.py": "def f(x):\n    return foo(5)\n",
      "i.go": "package main\n\nfunc main() { x := foo(6); _ = x }\n",
      "j.rs": "fn main() { let x = foo(7); }\n",
    });
    const t = makeHost(dir);
    const find = async (lang: string, pat: string) => (await t.call("ast_grep", { pat: [pat], lang })).details.matches.map((m: any) => `${m.path}:${m.text}`);
    expect(await find("ts", "foo($A)")).toEqual(["a.ts:foo(1)"]);
    expect(await find("tsx", "foo($A)")).toEqual(["b.tsx:foo(2)"]);
    expect(await find("js", "foo($A)")).toEqual(["c.js:foo(3)", "d.jsx:foo(4)"]);
    expect(await find("css", "color: $C")).toEqual([]); // a bare declaration needs context:
    const css = await t.call("ast_grep", { pat: ["a { color: $C }"], sel: "declaration", lang: "css" });
    expect(css.details.matches.map((m: any) => `${m.path}:${m.text}`)).toEqual(["e.css:color: red;"]);
    expect(await find("html", "<p>$$$C</p>")).toEqual(["f.html:<p>hi</p>"]);
    expect(await find("json", "[$$$A]")).toEqual(["g.json:[1, 2]"]);
    expect(await find("python", "foo($A)")).toEqual(["h.py:foo(5)"]);
    expect(await find("go", "foo($A)")).toEqual(["i.go:foo(6)"]);
    expect(await find("rust", "foo($A)")).toEqual(["j.rs:foo(7)"]);
    // inferred from the extension for a single-language scope
    expect((await t.call("ast_grep", { pat: ["foo($A)"], path: "h.py" })).details.matchCount).toBe(1);
    // ts + tsx mix is one family: inferred, each file parsed with its own grammar
    const mixed = await testdir({ "a.ts": "foo(1)\n", "b.tsx": "const b = <i>{foo(2)}</i>\n" });
    expect((await makeHost(mixed).call("ast_grep", { pat: ["foo($A)"] })).details.matchCount).toBe(2);
  });

  it("ast_edit rewrites in Python, Go, Rust and JSON too", async () => {
    const dir = await testdir({
      "a.py": "print(x)\n",
      "b.go": "package main\n\nfunc f() { old(1) }\n",
      "c.rs": "fn f() { old(1); }\n",
      "d.json": '{"k": 1}\n',
    });
    const t = makeHost(dir);
    await t.call("ast_edit", { ops: [{ pat: "print($A)", out: "log($A)" }], lang: "py" });
    await t.call("ast_edit", { ops: [{ pat: "old($A)", out: "new($A)" }], lang: "go" });
    await t.call("ast_edit", { ops: [{ pat: "old($A)", out: "new($A)" }], lang: "rs" });
    await t.call("ast_edit", { ops: [{ pat: "1", out: "2" }], lang: "json" });
    for (const a of [...t.actions].reverse()) await a.apply("r");
    const { readFileSync } = await import("node:fs");
    const read = (f: string) => readFileSync(`${dir}/${f}`, "utf8");
    expect([read("a.py"), read("b.go"), read("c.rs"), read("d.json")]).toEqual([
      "log(x)\n",
      "package main\n\nfunc f() { new(1) }\n",
      "fn f() { new(1); }\n",
      '{"k": 2}\n',
    ]);
  });
});
