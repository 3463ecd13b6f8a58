import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/testdir.js";

// Library code gets the process it runs in from the world (process-host.ts: RunWorld.process,
// ToolHost.process) and keeps no state of its own between calls; both are read here from the
// TypeScript syntax tree of every module in src/.

const SRC = path.join(REPO_ROOT, "src");

/** Where `process` may be used, and why. */
const PROCESS_ALLOWED: Array<[RegExp, string]> = [
  [/^cli\//, "the CLI: it makes the process host and hands it to the run"],
  [/^process-host\.ts$/, "the host itself: the one adapter over Node's process, the library's default"],
  [/^tools\/jscodeshift\/jscodeshift-worker\.ts$/, "a worker's entry: a process of its own"],
];

/** Module-level `let`s that are allowed, and why. */
const LET_ALLOWED: Array<[string, string]> = [
  ["tools/jscodeshift/jscodeshift-worker.ts", "a worker's entry: a process of its own, its state is the process's"],
];

const MUTATORS = new Set(["add", "set", "delete", "clear", "push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [abs] : [];
  });
}

function parse(rel: string, text: string): ts.SourceFile {
  return ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true);
}

function where(source: ts.SourceFile, node: ts.Node): string {
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  return `${source.fileName}:${line + 1}`;
}

/** Every use of the `process` global: `process` as a value, not a property or a binding's name. */
export function processUses(source: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === "process" && isValueUse(node)) out.push(where(source, node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function isValueUse(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) || ts.isMethodDeclaration(p)) && p.name === id) return false;
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p)) && p.name === id) return false;
  if (ts.isBindingElement(p) && p.propertyName === id) return false;
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) return false;
  if (ts.isTypeReferenceNode(p) || ts.isQualifiedName(p)) return false;
  return true;
}

/**
 * Module-level mutable state: a top-level `let` or `var`, and a top-level `const` holding a
 * collection (a Map, Set, array or object) that the module changes (`.set`, `.push`, an
 * assignment to one of its members…). What is only read — a lookup table — is not state, nor is
 * a WeakMap or WeakSet (a side table of its keys, which lives and dies with them). A collection
 * handed to a function that changes it is not seen.
 */
export function moduleState(source: ts.SourceFile): Array<{ at: string; name: string; why: string }> {
  const out: Array<{ at: string; name: string; why: string }> = [];
  const collections = new Map<string, ts.Node>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const decl of list.declarations) {
      if (!ts.isIdentifier(decl.name)) continue;
      if (!isConst) out.push({ at: where(source, decl), name: decl.name.text, why: "a module-level let/var" });
      else if (decl.initializer && isCollection(decl.initializer)) collections.set(decl.name.text, decl);
    }
  }
  const visit = (node: ts.Node): void => {
    const target = mutated(node);
    if (target && collections.has(target)) out.push({ at: where(source, node), name: target, why: "a module-level collection changed" });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function isCollection(expr: ts.Expression): boolean {
  let init = expr;
  while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init) || ts.isTypeAssertionExpression(init))
    init = init.expression;
  if (ts.isArrayLiteralExpression(init) || ts.isObjectLiteralExpression(init)) return true;
  return ts.isNewExpression(init) && ts.isIdentifier(init.expression) && /^(Map|Set|Array)$/.test(init.expression.text);
}

/** The name of the identifier `node` changes the contents of, if it does. */
function mutated(node: ts.Node): string | undefined {
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && MUTATORS.has(node.expression.name.text)) {
    return rootName(node.expression.expression, false);
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
    return rootName(node.left, true);
  }
  if (
    (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
    [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(node.operator)
  ) {
    return rootName(node.operand, true);
  }
  if (ts.isDeleteExpression(node)) return rootName(node.expression, true);
  return undefined;
}

/** `a` of `a`, `a.b`, `a[0].c`; with `member`, only when a member of `a` is what is written. */
function rootName(expr: ts.Expression, member: boolean): string | undefined {
  if (ts.isIdentifier(expr)) return member ? undefined : expr.text;
  if (ts.isPropertyAccessExpression(expr) || ts.isElementAccessExpression(expr)) {
    let e: ts.Expression = expr.expression;
    while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) e = e.expression;
    return ts.isIdentifier(e) ? e.text : undefined;
  }
  return undefined;
}

function modules(): Array<{ rel: string; source: ts.SourceFile }> {
  return sourceFiles(SRC).map((abs) => {
    const rel = path.relative(SRC, abs).split(path.sep).join("/");
    return { rel, source: parse(rel, readFileSync(abs, "utf8")) };
  });
}

describe("the process and module state", () => {
  it("the checks find what they look for (the checker itself)", () => {
    const uses = processUses(
      parse(
        "x.ts",
        `// process.env in a comment\nconst a = "process.pid";\nconst host = { process: 1 };\nhost.process;\nfunction f(o: { process?: number }) { return o.process; }\nprocess.env.X;\nconst p = process;\nprocess["pid"];`,
      ),
    );
    expect(uses).toEqual(["x.ts:6", "x.ts:7", "x.ts:8"]);
    const state = moduleState(
      parse(
        "y.ts",
        `let n = 0;\nconst TABLE = new Set(["a"]);\nconst seen = new Set<string>();\nconst side = new WeakMap<object, number>();\nconst list: number[] = [];\nconst byName = {} as Record<string, number>;\n` +
          `export function f() { TABLE.has("a"); seen.add("x"); side.set({}, 1); list.push(1); byName.k = 2; const local = new Map(); local.set(1, 2); }`,
      ),
    );
    expect(state.map((s) => s.name)).toEqual(["n", "seen", "list", "byName"]);
  });

  it("`process` appears only in the CLI, the process host and the worker entry", () => {
    const found = modules().flatMap(({ rel, source }) => (PROCESS_ALLOWED.some(([re]) => re.test(rel)) ? [] : processUses(source)));
    expect(found).toEqual([]);
  });

  it("no module of the library keeps state of its own (a let, or a collection it changes)", () => {
    const all = modules();
    expect(all.length).toBeGreaterThan(50);
    const found = all.flatMap(({ rel, source }) =>
      LET_ALLOWED.some(([file]) => file === rel) ? [] : moduleState(source).map((s) => `${s.at} ${s.name}: ${s.why}`),
    );
    expect(found).toEqual([]);
  });

  it("the exceptions still hold what they are there for (a stale one is removed, not kept)", () => {
    const all = modules();
    for (const [file] of LET_ALLOWED) {
      const mod = all.find((m) => m.rel === file);
      expect(mod !== undefined && moduleState(mod.source).length > 0, file).toBe(true);
    }
    for (const [re] of PROCESS_ALLOWED)
      expect(
        all.some((m) => re.test(m.rel) && processUses(m.source).length > 0),
        String(re),
      ).toBe(true);
  });
});
