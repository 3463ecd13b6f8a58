// Writes docs/ast-grep-differences.md from the list of allowed differences in
// src/tools/ast/differences.ts (the list the differential tests decide with).
// `--check`: exits 1 when the page is not the generated text.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createJiti } from "jiti";

const root = path.resolve(import.meta.dirname, "..");
const page = path.join(root, "docs", "ast-grep-differences.md");
const { differencesPage } = await createJiti(import.meta.url).import(path.join(root, "src/tools/ast/differences.ts"));
const text = differencesPage();
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(page, "utf8");
  } catch {}
  if (current !== text) {
    console.error("docs/ast-grep-differences.md is not the generated page: run npm run docs:differences");
    process.exit(1);
  }
} else {
  writeFileSync(page, text);
  console.log("wrote docs/ast-grep-differences.md");
}
