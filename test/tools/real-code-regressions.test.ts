/**
 * Shapes of real code (installed packages, a TypeScript library, Python's standard library) that
 * once gave answers other than the ast-grep CLI's, each in a small snippet: tollgate's matches and
 * rewrites are compared with the CLI's on the same files.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { loadNapi } from "../../src/tools/ast/langs.js";
import { astGrepCli } from "../helpers/ast-grep-cli.js";
import { testdir } from "../helpers/testdir.js";
import { makeHost, stagedText } from "./helpers.js";

interface Found {
  path: string;
  line: number;
  text: string;
}

/** The CLI's matches of `pat` under `dir` (path, 1-based line, text), sorted. */
async function cliMatches(dir: string, lang: string, pat: string): Promise<Found[]> {
  const { stdout } = await execa(astGrepCli(), ["run", "-p", pat, "-l", lang, "--json=stream", "."], { cwd: dir });
  const out = stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { file: string; text: string; range: { start: { line: number } } })
    .map((j) => ({ path: j.file.replace(/^\.\//, ""), line: j.range.start.line + 1, text: j.text }));
  return sortFound(out);
}

function sortFound(list: Found[]): Found[] {
  return [...list].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.text.localeCompare(b.text));
}

/** tollgate's matches of `pat` under `dir`, and the step's details. */
async function tollgateMatches(dir: string, lang: string, pat: string): Promise<{ found: Found[]; details: any }> {
  const { details } = await makeHost(dir).call("ast_grep", { pat: [pat], lang, limit: 100000 });
  return { found: sortFound(details.matches.map((m: any) => ({ path: m.path, line: m.line, text: m.text }))), details };
}

/** The files `ast-grep run -U` leaves, by path (in a copy of the files). */
async function cliRewrite(files: Record<string, string>, lang: string, pat: string, out: string): Promise<Record<string, string>> {
  const dir = await testdir(files);
  await execa(astGrepCli(), ["run", "-p", pat, "-r", out, "-l", lang, "-U", "."], { cwd: dir });
  return Object.fromEntries(Object.keys(files).map((f) => [f, readFileSync(path.join(dir, f), "utf8")]));
}

/** The files tollgate's ast_edit would write, by path (unchanged files as they are). */
async function tollgateRewrite(files: Record<string, string>, lang: string, pat: string, out: string): Promise<Record<string, string>> {
  const dir = await testdir(files);
  const t = makeHost(dir);
  const { text } = await t.call("ast_edit", { ops: [{ pat, out }], lang });
  const result = { ...files };
  if (text.startsWith("No replacements made")) return result;
  for (const change of t.actions[0]!.changes ?? []) result[change.path] = stagedText(dir, change) ?? "";
  return result;
}

describe("JSON patterns with metavariables", () => {
  const files = {
    "a/package.json": '{\n  "name": "a",\n  "files": [\n    "dist"\n  ],\n  "os": ["linux"],\n  "keywords": ["x", "y"]\n}\n',
    "b/package.json": '{\n  "files": ["index.js"]\n}\n',
  };

  it("a one-element array pattern finds what the CLI finds", async () => {
    const dir = await testdir(files);
    const cli = await cliMatches(dir, "json", "[$A]");
    expect(cli.length).toBe(3);
    expect((await tollgateMatches(dir, "json", "[$A]")).found).toEqual(cli);
  });

  it("an object pattern with a metavariable value finds what the CLI finds", async () => {
    const dir = await testdir(files);
    const cli = await cliMatches(dir, "json", '{ "files": $A }');
    expect(cli.length).toBe(1);
    expect((await tollgateMatches(dir, "json", '{ "files": $A }')).found).toEqual(cli);
  });

  it("a rewrite duplicating the element gives the CLI's files", async () => {
    const cli = await cliRewrite(files, "json", "[$A]", "[$A, $A]");
    expect(cli["b/package.json"]).toContain('["index.js", "index.js"]');
    expect(await tollgateRewrite(files, "json", "[$A]", "[$A, $A]")).toEqual(cli);
  });
});

describe("re-indenting inside template literals", () => {
  const PAT = "function $F($$$P) { $$$B }";
  const OUT = "const $F = function ($$$P) {\n  $$$B\n}";

  it("re-indents the lines of a multi-line `${ … }` substitution as the CLI does (tab-indented code)", async () => {
    const files = {
      "check.js": [
        "function check(errors, name) {",
        "\tif (!errors) {",
        "\t\tfail(",
        "\t\t\t`Invalid errors for ${name}: got ${",
        '\t\t\t\terrors === null ? "null" : typeof errors',
        "\t\t\t}`,",
        "\t\t);",
        "\t}",
        "}",
        "",
      ].join("\n"),
    };
    const cli = await cliRewrite(files, "js", PAT, OUT);
    expect(cli["check.js"]).toContain("\n  \t\t\t\terrors === null");
    expect(await tollgateRewrite(files, "js", PAT, OUT)).toEqual(cli);
  });

  it("never re-indents the text lines of a template, even around a substitution", async () => {
    const text = ["function show(a) {", "\tlog(`first", "line ${a", "\t\t.b} after", "last`)", "}", ""].join("\n");
    const out = await tollgateRewrite({ "show.js": text }, "js", PAT, OUT);
    // The text line after `first` and the one after the substitution keep their bytes; the
    // substitution's own second line is code and is re-indented.
    expect(out["show.js"]).toBe(["const show = function (a) {", "  log(`first", "line ${a", "  \t\t.b} after", "last`)", "}", ""].join("\n"));
  });
});

describe("patterns whose own parse needs error recovery", () => {
  // tree-sitter weighs a recovery by the bytes it skips: the pattern is matched as written, with
  // its metavariables' own names, so it parses as the CLI parses it.
  it.each([
    ["if (!s) $B $$$A", "function f(s) {\n  if (!s) {\n    return 1;\n  } else {\n    return 2;\n  }\n}\n"],
    ["class VE $B { $$$A }", "export default class VE extends Error {\n  readonly errors: string[]\n  readonly ajv: true\n}\n"],
  ])("%s finds what the CLI finds", async (pat, code) => {
    const dir = await testdir({ "a.ts": code });
    const cli = await cliMatches(dir, "ts", pat);
    expect(cli.length).toBe(1);
    expect((await tollgateMatches(dir, "ts", pat)).found).toEqual(cli);
  });
});

describe("findings of the generative differential test", () => {
  it("an HTML element with empty content is no syntax error", async () => {
    const dir = await testdir({ "a.html": '<html>\n<head>\n  <script src="a.js"></script>\n</head>\n</html>\n' });
    const cli = await cliMatches(dir, "html", "<script $A></script>");
    expect(cli.length).toBe(1);
    const { found, details } = await tollgateMatches(dir, "html", "<script $A></script>");
    expect(found).toEqual(cli);
    expect(details.parseErrors).toBeUndefined();
  });

  it("a hex colour's digits do not filter CSS files (the CLI's matcher does not compare them)", async () => {
    const dir = await testdir({ "c.css": ".a {\n    color: #fff;\n}\n" });
    const cli = await cliMatches(dir, "css", "$A: #eaeded;");
    expect(cli.length).toBe(1);
    expect((await tollgateMatches(dir, "css", "$A: #eaeded;")).found).toEqual(cli);
  });

  it("a capture ending in a line break: the template text after it keeps the template's indentation (Go)", async () => {
    const files = { "a.go": "package p\n\nfunc f(xs []int) {\n\tfor _, x := range xs {\n\t\tuse(x)\n\t}\n}\n" };
    const cli = await cliRewrite(files, "go", "for $C := range $A { $B }", "if true {\n    $B}");
    expect(cli["a.go"]).toContain("    }");
    expect(await tollgateRewrite(files, "go", "for $C := range $A { $B }", "if true {\n    $B}")).toEqual(cli);
  });
});

describe("matches the whole parse joins across statements", () => {
  // napi's error recovery reads `a +` and the next line's `return g(x) as any` as one
  // expression: a node holding an error node, not a match of the file as written.
  const files = { "a.ts": "function f() {\n  const h = a +\n  return g(x) as any\n}\nexport const k = v as any\n", "b.ts": "export const m = w as any\n" };

  it("are skipped and listed, and do not fail the step as overlaps; the clean matches are rewritten as the CLI does", async () => {
    const dir = await testdir(files);
    const t = makeHost(dir);
    const { details } = await t.call("ast_edit", { ops: [{ pat: "$A as any", out: "$A as unknown" }], lang: "ts" });
    expect(details.parseErrors).toEqual(["a.ts:2:13: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)"]);
    const cli = await cliRewrite(files, "ts", "$A as any", "$A as unknown");
    const mine = await tollgateRewrite(files, "ts", "$A as any", "$A as unknown");
    expect(mine["b.ts"]).toBe(cli["b.ts"]);
    expect(mine["a.ts"]).toBe(files["a.ts"].replace("v as any", "v as unknown"));
    // The CLI rewrites the joined expression too; tollgate leaves it as written.
    expect(cli["a.ts"]).toContain("return g(x) as unknown");
  });
});

describe("where napi's whole-file parse and the CLI's recover from errors differently", () => {
  // A run of broken tokens (the remains of generic call signatures tree-sitter cannot parse)
  // before a clean statement: napi's recovery, which weighs UTF-16 text, swallows the clean
  // statement's comparison; the CLI's, which weighs UTF-8, keeps it.
  const BROKEN =
    '{{[K>>]()}{[Cases]: Cases[RK]}[]{}>((()R2>))}dual(isEffect(args[0]){catchIf(((any)((e.reason._tag)))(any){(){}})}){}dual(E2>(failCause(causeMap(f)))){A2>()(undefined){}(1){}}("parallel"){makeScope(scope)("Closed"){}scopeAddFinalizerUnsafe(scopeClose(exit))}/** */\n(){suspend(()=> {("Closed"){}scopeAddFinalizerUnsafe(finalizer)})}scopeAddFinalizer ()scopeAddFinalizerExit()= (): => {("Empty"){{}}("Open"){   if (state.finalizer !== undefined) {\n      state.finalizers = new Map([[state.finalizerKey!, state.finalizer]])\n state.finalizerKey = undefined\n      state.finalizer = undefined\n    }\n  }\n}\n';
  const CLEAN =
    '\n/** @internal */\nexport const scopeRemoveFinalizerUnsafe = (\n  box: Box.Box,\n  key: {}\n): void => {\n  if (box.state._tag !== "Open") return\n  const state = box.state\n  if (state.firstKey === key) {\n    box.state = emptyBox\n  } else if (state.keys !== undefined) {\n    state.keys.delete(key)\n  }\n}\n';
  const pat = "$A === $B";
  const needle = "state.firstKey === key";

  it("a match in a statement that parses cleanly alone is found, as the CLI finds it", async () => {
    const napi = await loadNapi();
    const text = BROKEN + CLEAN;
    expect(
      napi
        .parse("TypeScript", text)
        .root()
        .findAll(pat)
        .map((n) => n.text()),
    ).not.toContain(needle);
    const dir = await testdir({ "a.ts": text });
    const cli = await cliMatches(dir, "ts", pat);
    expect(cli.map((m) => m.text)).toContain(needle);
    const { found } = await tollgateMatches(dir, "ts", pat);
    expect(found.filter((m) => m.text === needle)).toEqual(cli.filter((m) => m.text === needle));
    // ast_edit rewrites it as ast-grep -U does.
    const out = "Object.is($A, $B)";
    const cliFiles = await cliRewrite({ "a.ts": text }, "ts", pat, out);
    const mine = await tollgateRewrite({ "a.ts": text }, "ts", pat, out);
    expect(cliFiles["a.ts"]).toContain("Object.is(state.firstKey, key)");
    expect(mine["a.ts"]!.slice(mine["a.ts"]!.indexOf("/** @internal */"))).toBe(cliFiles["a.ts"]!.slice(cliFiles["a.ts"]!.indexOf("/** @internal */")));
  });

  it("a match lost where no statement parses cleanly is listed with its place, never missed silently", async () => {
    const napi = await loadNapi();
    const text = BROKEN + CLEAN.replace("    state.keys.delete(key)\n", "    state.keys.delete(key) @\n");
    expect(
      napi
        .parse("TypeScript", text)
        .root()
        .findAll(pat)
        .map((n) => n.text()),
    ).not.toContain(needle);
    const dir = await testdir({ "a.ts": text });
    const cli = (await cliMatches(dir, "ts", pat)).filter((m) => m.text === needle);
    expect(cli.length).toBe(1);
    const { found, details } = await tollgateMatches(dir, "ts", pat);
    expect(found.map((m) => m.text)).not.toContain(needle);
    const col = text.split("\n")[cli[0]!.line - 1]!.indexOf(needle) + 1;
    const places = (details.parseErrors as string[])
      .map((e) => /^a\.ts:(\d+):(\d+): parse error \(a syntax error holds the pattern's tokens here; a match may be missing\)$/.exec(e))
      .filter((m) => m !== null)
      .map((m) => [Number(m[1]), Number(m[2])]);
    expect(places.some(([line, c]) => line === cli[0]!.line && c! >= col && c! < col + needle.length)).toBe(true);
  });
});
