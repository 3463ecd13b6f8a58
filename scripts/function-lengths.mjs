#!/usr/bin/env node
// Lists the functions, methods and arrows in src/ by length in lines (first to last line of the
// node, inclusive), longest first. `--max N` exits 1 when any is longer than N.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export function functionLengths(root) {
  const out = [];
  for (const file of sourceFiles(path.join(root, "src"))) {
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        out.push({ file: path.relative(root, file), line: start + 1, lines: end - start + 1, name: nameOf(node, source) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

function nameOf(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText(source);
  return "(anonymous)";
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(c|m)?ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield full;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const maxIndex = process.argv.indexOf("--max");
  const max = maxIndex > 0 ? Number(process.argv[maxIndex + 1]) : undefined;
  const all = functionLengths(process.cwd());
  const shown = max === undefined ? all.slice(0, 40) : all.filter((f) => f.lines > max);
  for (const f of shown) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  if (max !== undefined) {
    console.log(shown.length === 0 ? `no function over ${max} lines` : `${shown.length} functions over ${max} lines`);
    process.exitCode = shown.length === 0 ? 0 : 1;
  }
}
