/**
 * Region parsing against the whole-file parse (SPEC 3.1: a shortcut gives the whole parse's
 * answer or better), property-based: files made of generated statements (decorators, regexes
 * after `if (…)`, templates, comments, brackets of every kind, syntax errors) and of real
 * top-level statements taken from this repository's own sources and fixtures.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchText } from "../../src/tools/ast/engine.js";
import { langById, loadNapi, type Napi } from "../../src/tools/ast/langs.js";
import { buildPrefilter } from "../../src/tools/ast/pattern.js";
import { REPO_ROOT } from "../helpers/testdir.js";

const TS = langById("TypeScript");
const PATS = ["Effect.map($A, $B)", "$X !== undefined", "export class $C { $$$B }"];
const CAPTURES: Array<Record<string, boolean>> = [{ A: false, B: false }, { X: false }, { C: false, B: true }];
const ops = PATS.map((pat, i) => ({ pat, captures: CAPTURES[i]! }));
const prefilter = { TypeScript: buildPrefilter(PATS, TS, false) };

const ident = fc.constantFrom("a", "b", "x", "items", "Effect", "self", "value");
const call = fc.tuple(ident, ident).map(([a, b]) => `Effect.map(${a}, (v) => v.${b})`);
const expr = fc.oneof(call, ident, fc.tuple(ident, ident).map(([a, b]) => `${a} !== undefined ? ${b} : null`), fc.constant("/x\\/y/g.test(s)"), fc.constant("`t ${Effect.map(a, b)}`"));

const generated: fc.Arbitrary<string> = fc.oneof(
  expr.map((e) => `export const c = ${e};`),
  expr.map((e) => `const d = ${e}`), // no semicolon: ASI
  fc.tuple(ident, expr).map(([n, e]) => `@Component({\n  selector: "${n}",\n  value: ${e},\n})\nexport class C${n} {\n  m() { return ${e}; }\n}`),
  fc.tuple(ident, expr).map(([n, e]) => `@Injectable()\n@Other(${e})\nexport class D${n} {}`),
  fc.tuple(ident, expr).map(([n, e]) => `export class E${n} {\n  f = ${e};\n}`),
  ident.map((n) => `@Component({\n  selector: "${n}",\n})\nexport class F${n} {}`),
  expr.map((e) => `if (ok) /re[/]x/.test(s) && ${e};`),
  expr.map((e) => `function f() {\n  if (a !== undefined) {\n    return [${e}, { k: (${e}) }];\n  }\n}`),
  expr.map((e) => `/* Effect.map(no, match) */\n// ${e}\nexport default ${e};`),
  expr.map((e) => `const t = \`line\n  \${${e}}\n\`;`),
  expr.map((e) => `type T = { [k: string]: number };\nlet q = ${e};`),
  expr.map((e) => `for (const item of items) {\n  use(${e});\n}`),
  // syntax errors
  expr.map((e) => `const broken = (${e};`),
  expr.map((e) => `function g( {\n  return ${e};\n}`),
  fc.constant("const = ;"),
);

function realStatements(): string[] {
  const files = [
    ...readdirSync(path.join(REPO_ROOT, "src", "tools", "ast")).map((f) => path.join(REPO_ROOT, "src", "tools", "ast", f)),
    path.join(REPO_ROOT, "src", "tools", "ast-edit.ts"),
    path.join(REPO_ROOT, "test", "tools", "fixtures", "recovery.ts.txt"),
    path.join(REPO_ROOT, "test", "tools", "fixtures", "differential", "app.ts.txt"),
  ].filter((f) => /\.ts(\.txt)?$/.test(f));
  return files.flatMap((f) => {
    const text = readFileSync(f, "utf8");
    // Top-level statements by the whole parse (the reference); the splitter never sees this.
    return napiRef.parse("TypeScript", text).root().children().map((n) => n.text()).filter((t) => t.trim() !== "");
  });
}

let napiRef: Napi;
const keyed = (ms: ReturnType<typeof matchText>["matches"]) => ms.filter((m) => !m.bad).map((m) => `${m.op}:${m.start}:${m.end}:${JSON.stringify(m.captures)}`).sort();

function check(text: string): void {
  const region = matchText(napiRef, "TypeScript", text, { ops, prefilter });
  const whole = matchText(napiRef, "TypeScript", text, { ops });
  const w = keyed(whole.matches);
  const r = keyed(region.matches);
  if (!whole.hadErrors) {
    // A file without syntax errors: exactly the whole parse's matches.
    expect(r).toEqual(w);
    expect(region.hadErrors ?? false).toBe(false);
  } else {
    // With errors: every clean whole-parse match, and extras only where the whole parse has
    // errors to lose them to.
    for (const k of w) expect(r).toContain(k);
    for (const k of r) {
      if (w.includes(k)) continue;
      const [, s, e] = k.split(":").map(Number);
      expect(whole.errors.some(([es, ee]) => es <= e! && s! <= ee), `extra match ${text.slice(s, e)} near no error`).toBe(true);
    }
  }
}

describe("region parsing vs whole-file parsing (property)", () => {
  it("generated statements", async () => {
    napiRef = await loadNapi();
    fc.assert(
      fc.property(fc.array(generated, { minLength: 1, maxLength: 12 }), fc.constantFrom("\n", "\n\n", "\r\n"), (stmts, sep) => check(stmts.join(sep) + sep)),
      { numRuns: 150 },
    );
  });

  it("real statements with matches spliced between them", async () => {
    napiRef = await loadNapi();
    const real = realStatements();
    expect(real.length).toBeGreaterThan(50);
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: generated }), { minLength: 1, maxLength: 15 }), (stmts) => check(stmts.join("\n") + "\n")),
      { numRuns: 100 },
    );
  });
});
