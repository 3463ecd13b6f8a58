/**
 * The engine against the whole-file parse and against each statement parsed alone,
 * property-based: files made of generated statements (decorators, regexes after `if (…)`,
 * templates, comments, brackets of every kind, syntax errors) and of real top-level statements
 * taken from this repository's own sources and fixtures. On a clean file the answer is the whole
 * parse's; with syntax errors, every match is a real one (a clean whole-parse node, or a node of
 * a statement that parses cleanly alone), and every real match of a clean statement is found or
 * listed (skipped, or a parse issue inside it).
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
const expr = fc.oneof(
  call,
  ident,
  fc.tuple(ident, ident).map(([a, b]) => `${a} !== undefined ? ${b} : null`),
  fc.constant("/x\\/y/g.test(s)"),
  fc.constant("`t ${Effect.map(a, b)}`"),
);

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
    return napiRef
      .parse("TypeScript", text)
      .root()
      .children()
      .map((n) => n.text())
      .filter((t) => t.trim() !== "");
  });
}

let napiRef: Napi;
type Keyed = { key: string; start: number; end: number };
const keyOf = (m: { op: number; start: number; end: number; captures: unknown }) => `${m.op}:${m.start}:${m.end}:${JSON.stringify(m.captures)}`;

/** Each op's matches in a text parsed alone, shifted by `offset`, and whether that parse is clean. */
function reference(text: string, offset: number): { matches: Keyed[]; clean: boolean } {
  const root = napiRef.parse("TypeScript", text).root();
  const clean = root.find({ rule: { any: [{ kind: "ERROR" }, { regex: "^$" }] } }) === null;
  const matches: Keyed[] = [];
  ops.forEach((op, i) => {
    for (const n of root.findAll(op.pat)) {
      const r = n.range();
      const captures = Object.fromEntries(
        Object.entries(op.captures).map(([name, multi]) => {
          const nodes = multi ? n.getMultipleMatches(name) : [n.getMatch(name)].filter((x) => x !== null);
          return [name, nodes.length === 0 ? null : [nodes[0]!.range().start.index + offset, nodes[nodes.length - 1]!.range().end.index + offset]];
        }),
      );
      matches.push({
        key: keyOf({ op: i, start: r.start.index + offset, end: r.end.index + offset, captures }),
        start: r.start.index + offset,
        end: r.end.index + offset,
      });
    }
  });
  return { matches, clean };
}

function check(stmts: readonly string[], sep: string): void {
  const text = stmts.join(sep) + sep;
  const result = matchText(napiRef, "TypeScript", text, { ops, prefilter });
  const good = new Set(result.matches.filter((m) => !m.bad).map(keyOf));
  const whole = reference(text, 0);
  if (whole.clean) {
    expect([...good].sort()).toEqual(whole.matches.map((m) => m.key).sort());
    expect(result.issues).toEqual([]);
    return;
  }
  // The real matches: those of every statement that parses cleanly alone.
  const real = new Map<string, Keyed>();
  let at = 0;
  for (const stmt of stmts) {
    const r = reference(stmt, at);
    if (r.clean) for (const m of r.matches) real.set(m.key, m);
    at += stmt.length + sep.length;
  }
  const wholeKeys = new Set(whole.matches.map((m) => m.key));
  for (const k of good) expect(real.has(k) || wholeKeys.has(k), `match ${k} is no real node`).toBe(true);
  const listed = [...result.matches.filter((m) => m.bad).map((m) => m.start), ...result.issues];
  for (const m of real.values()) {
    if (good.has(m.key)) continue;
    expect(
      listed.some((p) => m.start <= p && p <= m.end),
      `real match ${text.slice(m.start, m.end)} missed silently`,
    ).toBe(true);
  }
}

describe("matches on files with and without syntax errors (property)", () => {
  it("generated statements", async () => {
    napiRef = await loadNapi();
    fc.assert(
      fc.property(fc.array(generated, { minLength: 1, maxLength: 12 }), fc.constantFrom("\n", "\n\n", "\r\n"), (stmts, sep) => check(stmts, sep)),
      { numRuns: 150 },
    );
  });

  it("real statements with matches spliced between them", async () => {
    napiRef = await loadNapi();
    const real = realStatements();
    expect(real.length).toBeGreaterThan(50);
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: generated }), { minLength: 1, maxLength: 15 }),
        (stmts) => check(stmts, "\n"),
      ),
      { numRuns: 100 },
    );
  });
});
