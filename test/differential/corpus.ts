/**
 * The real code the generative differential test draws from, per language: installed packages
 * in node_modules (TypeScript, TSX, JavaScript, JSON, HTML; CSS from the purecss dev
 * dependency), Python's standard library, and the Go and Rust fixtures beside this file.
 * Lists are sorted, so a seed picks the same files on every machine with the same install.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../helpers/testdir.js";

export interface CorpusLang {
  /** tollgate's `lang`. */
  lang: string;
  /** napi's language name (dynamic ones as langs.ts registers them). */
  napi: string;
  /** The CLI's language name in a rule. */
  cli: string;
  /** Extension the copies are given (the CLI picks files by extension). */
  ext: string;
  /** Absolute paths, sorted. */
  files: string[];
  /** Only files that parse without errors in this language are used (TypeScript files taken as TSX). */
  cleanOnly?: boolean;
  /** Why the language has no files here, when it has none. */
  missing?: string;
}

export const PYTHON_STDLIB = "/usr/lib/python3.11";
const NODE_MODULES = path.join(REPO_ROOT, "node_modules");
const FIXTURES = path.join(import.meta.dirname, "fixtures");

/** Every file under `dir` (not following links), relative paths sorted. */
function walk(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) walk(abs, keep, out);
    else if (e.isFile() && keep(e.name)) out.push(abs);
  }
  return out;
}

const ends =
  (...exts: string[]) =>
  (name: string) =>
    exts.some((e) => name.endsWith(e));

/** Files a pattern can be made from: not tiny, not huge, no minified lines. */
export function usable(file: string, maxBytes: number): boolean {
  const size = statSync(file).size;
  if (size < 120 || size > maxBytes) return false;
  const text = readFileSync(file, "utf8");
  if (text.includes("\u0000") || text.includes("\uFFFD")) return false;
  return text.split("\n").every((l) => l.length <= 160);
}

export function corpus(): CorpusLang[] {
  const modules = walk(NODE_MODULES, ends(".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".html", ".css"));
  const of = (...exts: string[]) => modules.filter((f) => exts.some((e) => f.endsWith(e)));
  const css = walk(path.join(NODE_MODULES, "purecss"), (n) => n.endsWith(".css") && !n.endsWith("-min.css"));
  const python = existsSync(PYTHON_STDLIB)
    ? walk(PYTHON_STDLIB, ends(".py")).filter((f) => !f.includes("/site-packages/") && !f.includes("/dist-packages/"))
    : [];
  const fixtures = (ext: string) => walk(FIXTURES, ends(ext));
  return [
    { lang: "ts", napi: "TypeScript", cli: "TypeScript", ext: ".ts", files: of(".ts").filter((f) => !f.endsWith(".d.ts")) },
    // Few packages ship .tsx: TypeScript files that parse cleanly as TSX make up the rest.
    { lang: "tsx", napi: "Tsx", cli: "Tsx", ext: ".tsx", files: [...of(".tsx"), ...of(".ts").filter((f) => !f.endsWith(".d.ts"))], cleanOnly: true },
    { lang: "js", napi: "JavaScript", cli: "JavaScript", ext: ".js", files: of(".js", ".mjs", ".cjs") },
    { lang: "json", napi: "json", cli: "Json", ext: ".json", files: of(".json").filter((f) => !f.endsWith("package-lock.json")) },
    {
      lang: "css",
      napi: "Css",
      cli: "Css",
      ext: ".css",
      files: css,
      ...(css.length === 0 ? { missing: "node_modules/purecss is not installed (npm ci installs the dev dependency)" } : {}),
    },
    { lang: "html", napi: "Html", cli: "Html", ext: ".html", files: of(".html") },
    {
      lang: "python",
      napi: "python",
      cli: "Python",
      ext: ".py",
      files: python,
      ...(python.length === 0 ? { missing: `${PYTHON_STDLIB} is absent (Debian's python3 package installs Python's standard library there)` } : {}),
    },
    { lang: "go", napi: "go", cli: "Go", ext: ".go", files: fixtures(".go") },
    { lang: "rust", napi: "rust", cli: "Rust", ext: ".rs", files: fixtures(".rs") },
  ];
}
