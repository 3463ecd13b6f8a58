import { describe, expect, it } from "vitest";
import { matchText } from "../../src/tools/ast/engine.js";
import { langById, loadNapi } from "../../src/tools/ast/langs.js";
import { buildPrefilter, compilePrefilter, patternRequirement } from "../../src/tools/ast/pattern.js";
import { statementBoundaries } from "../../src/tools/ast/regions.js";

const TS = langById("TypeScript");
const starts = (text: string) => (statementBoundaries(text) ?? []).map((o) => text.slice(o, o + 12).split("\n")[0]);

describe("statement boundaries (region parsing)", () => {
  it("splits top-level statements, with or without semicolons", () => {
    const text = [
      'import { a } from "a"',
      "export const x = pipe(",
      "  a,",
      "  b",
      ")",
      "",
      "/** doc */",
      "export function f() {",
      "  return 1",
      "}",
      "const y = 2;",
      "class C {}",
    ].join("\n");
    expect(starts(text)).toEqual(["import { a }", "export const", "/** doc */", "const y = 2;", "class C {}"]);
  });

  it("never splits where the next line continues the statement", () => {
    const cases = [
      "const x = a +\nfunction f() {}\n", // operator
      "if (a)\nfunction f() {}\n", // body of an if
      "export default\nfunction f() {}\n", // default export
      "@dec()\nclass A {}\n", // decorator
      "const a = 1\n// note\n+ 2\n", // comment line before a continuation
      "try {\n} catch {}\nfinally {}\n",
    ];
    for (const text of cases) expect(statementBoundaries(text), text).toEqual([0]);
  });

  it("ignores keywords inside strings, templates, comments and regexes", () => {
    const text =
      "const s = `\n}\nexport const fake = 1\n${ `\n}\nconst also = 2\n` }`\nconst r = /[\"'`]/g\n/* \n}\nexport const no = 1 */\nexport const real = 1\n";
    // the last boundary is the comment opening the real statement
    expect(starts(text)).toEqual(["const s = `", "const r = /[", "/* "]);
  });

  it("gives up when unsure", () => {
    expect(statementBoundaries("const s = 'unterminated\nexport const x = 1\n")).toBeNull();
    expect(statementBoundaries("const a = (\n")).toBeNull();
    expect(statementBoundaries("const t = `open\n")).toBeNull();
  });

  it("region parsing finds the same matches as a whole parse on clean code", async () => {
    const napi = await loadNapi();
    const ops = [{ pat: "Effect.map($A, $B)", captures: { A: false, B: false } }];
    const prefilter = { TypeScript: buildPrefilter(["Effect.map($A, $B)"], TS, false) };
    const text = [
      "/** a */",
      "export const a = Effect.map(x, (y) => y + 1)",
      "const re = /Effect.map(a, b)/",
      "export const s = `Effect.map(${Effect.map(p, q)}, r)`",
      "// Effect.map(c, d)",
      "@decorate(Effect.map(e, f))",
      "class K { m() { return Effect /* c */ . map(g, h) } }",
      "export const n = Effect.map(a, Effect.map(b, c))",
      "",
    ].join("\n");
    const region = matchText(napi, "TypeScript", text, { ops, prefilter });
    const whole = matchText(napi, "TypeScript", text, { ops });
    expect(region.regions).toBeUndefined();
    expect(region.matches).toEqual(whole.matches);
    expect(region.matches.map((m) => text.slice(m.start, m.end))).toEqual(
      napi
        .parse("TypeScript", text)
        .root()
        .findAll("Effect.map($A, $B)")
        .map((n) => n.text()),
    );
    expect(region.matches.length).toBe(6);
  });

  it("where the whole parse has errors, a statement that parses cleanly alone gives its own matches", async () => {
    const napi = await loadNapi();
    const ops = [{ pat: "Effect.map($A, $B)", captures: { A: false, B: false } }];
    const clean = "export const a = Effect.map(x, (y) => y + 1)\n";
    const text = `export const b = Effect.map(z, (\n${clean}`;
    const alone = napi
      .parse("TypeScript", clean)
      .root()
      .findAll("Effect.map($A, $B)")
      .map((n) => n.range().start.index + text.length - clean.length);
    const result = matchText(napi, "TypeScript", text, { ops });
    expect(result.hadErrors).toBe(true);
    expect(result.matches.filter((m) => !m.bad).map((m) => m.start)).toEqual(alone);
    // The broken statement's possible match is listed where its tokens are.
    expect(result.issues).toContain(text.indexOf("Effect"));
  });
});

describe("prefilter", () => {
  it("derives words and dotted runs from a pattern, skipping metavariables and strings", () => {
    expect(patternRequirement("Effect.map($A, $B)", TS)?.words).toEqual(["Effect", "map"]);
    expect(patternRequirement("Effect.map($A, $B)", TS)?.runs).toHaveLength(1);
    expect(patternRequirement("$A.map($B)", TS)).toEqual({ words: ["map"], runs: [] });
    expect(patternRequirement("console.log('hello world')", TS)?.words).toEqual(["console", "log"]);
    expect(patternRequirement("$A", TS)).toBeNull();
    expect(buildPrefilter(["foo($A)"], TS, true)).toBeNull(); // contextual patterns: no filter
  });

  it("accepts every spelling ast-grep matches (whitespace, comments, optional chaining)", () => {
    const f = compilePrefilter(buildPrefilter(["Effect.map($A, $B)"], TS, false))!;
    for (const text of ["Effect.map(a, b)", "Effect\n  .map(a, b)", "Effect /* x */ . map(a)", "Effect // c\n.map", "Effect?.map"])
      expect(f(text), text).toBe(true);
    expect(f("Effect.flatMap(a, b)")).toBe(false);
    expect(f("Stream.map(a)")).toBe(false);
  });

  it("needs a run's words as whole identifiers, except the tail of a number", async () => {
    const f = compilePrefilter(buildPrefilter(["Effect.map($A, $B)"], TS, false))!;
    for (const text of ["Effect.mapError(a, b)", "MyEffect.map(a, b)", "Effect.map2(a)", "$Effect.map(a)", "Effect.map_(a)"]) expect(f(text), text).toBe(false);
    for (const text of ["(Effect.map)(a, b)", "x.Effect.map(a, b)", "[Effect.map(a, b)]"]) expect(f(text), text).toBe(true);
    // `1e5.toFixed` lexes `e5` inside a number: no left boundary there, or the file would be lost.
    const napi = await loadNapi();
    const pat = "1e5.toFixed($A)";
    const g = compilePrefilter(buildPrefilter([pat], TS, false))!;
    const source = "const a = 1e5.toFixed(2)\n";
    expect(
      napi
        .parse("TypeScript", source)
        .root()
        .findAll(pat as never),
    ).toHaveLength(1);
    expect(g(source)).toBe(true);
  });
});
