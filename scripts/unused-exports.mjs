#!/usr/bin/env node
// Lists the names src/ modules export that no other file uses: not src/, test/ (through the
// type checker, so `(await import("./x.js")).name` and type-only uses count), nor the
// scripts' and benchmarks' imports of src/ or dist/. Such a name can be a module-local one.
// `--check` exits 1 when any is listed.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export function unusedExports(root) {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const checker = program.getTypeChecker();
  const src = path.join(root, "src") + path.sep;
  const inSrc = (file) => path.resolve(file).startsWith(src);
  const used = new Set();
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || source.fileName.includes(`${path.sep}node_modules${path.sep}`)) continue;
    markUses(source, checker, inSrc, used);
  }
  for (const file of scriptFiles(root)) markScriptUses(root, file, used);
  const out = [];
  for (const source of program.getSourceFiles()) {
    if (!inSrc(source.fileName) || source.isDeclarationFile) continue;
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = resolved(exported, checker);
      const declared = target.declarations?.[0]?.getSourceFile().fileName ?? source.fileName;
      if (path.resolve(declared) !== path.resolve(source.fileName)) continue; // a re-export: judged where declared
      if (!used.has(keyOf(declared, target.name))) {
        const decl = target.declarations?.[0];
        const line = decl ? decl.getSourceFile().getLineAndCharacterOfPosition(decl.getStart()).line + 1 : 1;
        out.push({ file: path.relative(root, source.fileName), line, name: exported.name });
      }
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

const keyOf = (file, name) => `${path.resolve(file)}\0${name}`;

function resolved(symbol, checker) {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** Every identifier in `source` that names a src/ declaration of another file marks it used. */
function markUses(source, checker, inSrc, used) {
  const mark = (symbol) => {
    const target = resolved(symbol, checker);
    for (const decl of target.declarations ?? []) {
      const file = decl.getSourceFile().fileName;
      if (inSrc(file) && path.resolve(file) !== path.resolve(source.fileName)) used.add(keyOf(file, target.name));
    }
  };
  const visit = (node) => {
    if (ts.isIdentifier(node)) {
      const symbol = checker.getSymbolAtLocation(node);
      if (symbol) mark(symbol);
    } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      // `const { name } = await import("./x.js")`: the name is a property of the module's type.
      const key = node.propertyName ?? node.name;
      const type = patternType(node.parent, checker);
      const property = type && ts.isIdentifier(key) ? type.getProperty(key.text) : undefined;
      if (property) mark(property);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** The type a binding pattern takes apart; through array patterns (`const [{ a }, { b }] = await Promise.all(…)`). */
function patternType(pattern, checker) {
  const parent = pattern.parent;
  if (ts.isVariableDeclaration(parent)) return parent.initializer ? checker.getTypeAtLocation(parent.initializer) : undefined;
  if (ts.isBindingElement(parent) && ts.isArrayBindingPattern(parent.parent)) {
    const outer = patternType(parent.parent, checker);
    const element = outer?.getProperty(String(parent.parent.elements.indexOf(parent)));
    return element ? checker.getTypeOfSymbol(element) : undefined;
  }
  return checker.getTypeAtLocation(pattern);
}

/** The names a script or benchmark takes from a module of src/ (or its build in dist/). */
function markScriptUses(root, file, used) {
  const text = readFileSync(file, "utf8");
  const pattern = /(?:import|const)\s*\{([^}]*)\}\s*(?:from|=\s*await\s+[^;]*?import\()\s*[^"'`;]*?["'`]([^"'`]+)["'`]/g;
  // `await import(path.join(ROOT, "dist", "x", "y.js"))`: the segments joined.
  const joined = /const\s*\{([^}]*)\}\s*=\s*await\s+import\(\s*path\.join\(\s*\w+\s*,\s*((?:"[^"]+"\s*,?\s*)+)\)/g;
  const found = [
    ...[...text.matchAll(pattern)].map((m) => [m[1], m[2]]),
    ...[...text.matchAll(joined)].map((m) => [m[1], [...m[2].matchAll(/"([^"]+)"/g)].map((x) => x[1]).join("/")]),
  ];
  for (const [names, spec] of found) {
    const abs = /^(src|dist)\//.test(spec) ? path.join(root, spec) : path.resolve(path.dirname(file), spec);
    const rel = path
      .relative(root, abs)
      .replace(/^dist\//, "src/")
      .replace(/\.js$/, ".ts");
    for (const name of names.split(",")) {
      const local = name
        .trim()
        .split(/\s+as\s+|\s*:\s*/)[0]
        ?.replace(/^type\s+/, "");
      if (local) used.add(keyOf(path.join(root, rel), local));
    }
  }
}

function* scriptFiles(root) {
  for (const dir of ["scripts", "bench", "bin"]) {
    const walk = function* (d) {
      let entries;
      try {
        entries = readdirSync(d, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const full = path.join(d, e.name);
        if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules") yield* walk(full);
        else if (/\.(m|c)?js$/.test(e.name)) yield full;
      }
    };
    yield* walk(path.join(root, dir));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = unusedExports(process.cwd());
  for (const f of found) console.log(`${f.file}:${f.line} ${f.name}`);
  console.error(`${found.length} export(s) used only in their own file`);
  if (process.argv.includes("--check") && found.length > 0) process.exitCode = 1;
}
