/**
 * Languages of the structural tools: napi's built-ins (TypeScript, TSX, JavaScript incl. JSX,
 * CSS, HTML) and dynamic ones from `@ast-grep/lang-*` (JSON, Python, Go, Rust), registered
 * once, lazily. `@ast-grep/napi` itself is imported lazily so `tollgate --version` stays fast.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { messageOf } from "../../util/thrown.js";

export type Napi = typeof import("@ast-grep/napi");

export interface LangInfo {
  /** Canonical id, also the napi language name. */
  id: string;
  /** Display name. */
  name: string;
  aliases: string[];
  extensions: string[];
  /** Package providing a dynamic language (registered through registerDynamicLanguage). */
  dynamicPackage?: string;
  /** Family: languages of one family may be mixed in one run (ts + tsx). */
  family: string;
  /** Comment syntax, used by the prefilter to allow comments between tokens. */
  comments: "c" | "hash" | "none";
  /** Whether `a . b` token runs may be used by the prefilter (no nested comments etc.). */
  tokenRuns: boolean;
  /** Node kinds of string-like literals: a rewrite never re-indents the text lines inside one. */
  stringKinds: string[];
}

export const LANGS: LangInfo[] = [
  {
    id: "TypeScript",
    name: "TypeScript",
    aliases: ["ts", "typescript", "mts", "cts"],
    extensions: [".ts", ".mts", ".cts"],
    family: "ts",
    comments: "c",
    tokenRuns: true,
    stringKinds: ["string", "template_string"],
  },
  { id: "Tsx", name: "TSX", aliases: ["tsx"], extensions: [".tsx"], family: "ts", comments: "c", tokenRuns: true, stringKinds: ["string", "template_string"] },
  {
    id: "JavaScript",
    name: "JavaScript",
    aliases: ["js", "javascript", "jsx", "mjs", "cjs"],
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    family: "js",
    comments: "c",
    tokenRuns: true,
    stringKinds: ["string", "template_string"],
  },
  { id: "Css", name: "CSS", aliases: ["css"], extensions: [".css"], family: "css", comments: "c", tokenRuns: false, stringKinds: ["string_value"] },
  {
    id: "Html",
    name: "HTML",
    aliases: ["html", "htm"],
    extensions: [".html", ".htm"],
    family: "html",
    comments: "none",
    tokenRuns: false,
    stringKinds: ["quoted_attribute_value", "raw_text"],
  },
  {
    id: "json",
    name: "JSON",
    aliases: ["json"],
    extensions: [".json"],
    dynamicPackage: "@ast-grep/lang-json",
    family: "json",
    comments: "none",
    tokenRuns: false,
    stringKinds: ["string"],
  },
  {
    id: "python",
    name: "Python",
    aliases: ["py", "python"],
    extensions: [".py", ".pyi"],
    dynamicPackage: "@ast-grep/lang-python",
    family: "python",
    comments: "hash",
    tokenRuns: false,
    stringKinds: ["string"],
  },
  {
    id: "go",
    name: "Go",
    aliases: ["go", "golang"],
    extensions: [".go"],
    dynamicPackage: "@ast-grep/lang-go",
    family: "go",
    comments: "c",
    tokenRuns: true,
    stringKinds: ["raw_string_literal", "interpreted_string_literal"],
  },
  {
    id: "rust",
    name: "Rust",
    aliases: ["rs", "rust"],
    extensions: [".rs"],
    dynamicPackage: "@ast-grep/lang-rust",
    family: "rust",
    comments: "c",
    tokenRuns: false,
    stringKinds: ["string_literal", "raw_string_literal"],
  },
];

const BY_ALIAS: ReadonlyMap<string, LangInfo> = new Map(
  LANGS.flatMap((lang) => [...lang.aliases, lang.id.toLowerCase()].map((alias) => [alias, lang] as const)),
);
const BY_EXT: ReadonlyMap<string, LangInfo> = new Map(LANGS.flatMap((lang) => lang.extensions.map((ext) => [ext, lang] as const)));

const SUPPORTED_ALIASES = [...new Set(LANGS.flatMap((l) => l.aliases))].sort();

export function langById(id: string): LangInfo {
  const lang = LANGS.find((l) => l.id === id);
  if (!lang) throw new Error(`internal: unknown language id ${id}`);
  return lang;
}

/** Resolves a user's `lang` (alias, case-insensitive); throws a ToolError naming the supported ones otherwise. */
export function resolveLang(name: string): LangInfo {
  const lang = BY_ALIAS.get(name.trim().toLowerCase());
  if (!lang) throw new ToolError(`Unsupported language '${name.trim()}'. Supported: ${SUPPORTED_ALIASES.join(", ")}`);
  return lang;
}

export function langOfPath(rel: string): LangInfo | undefined {
  return BY_EXT.get(path.posix.extname(rel).toLowerCase());
}

/**
 * napi's registration of dynamic languages is native state of the process (it is made exactly
 * once per thread), so the fact that it was made is kept beside it, not by any one run.
 */
const registration = { done: false };

/**
 * @ast-grep/napi, loaded on first use. require(), not import(): napi's entry is CommonJS, and
 * importing it makes Node scan its source for export names first (cjs-module-lexer, ~10 ms of
 * every run); Node's module cache keeps the one instance.
 */
export async function loadNapi(): Promise<Napi> {
  return napiSync();
}

/** The module, for synchronous use (apply time). */
export function napiSync(): Napi {
  return createRequire(import.meta.url)("@ast-grep/napi") as Napi;
}

/** Registrations of the dynamic languages (libraryPath etc.), resolved from the lang packages. */
function dynamicRegistration(ids: readonly string[]): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  const out: Record<string, unknown> = {};
  for (const id of ids) {
    const lang = langById(id);
    if (!lang.dynamicPackage) continue;
    let mod: { libraryPath: string; extensions: string[]; languageSymbol?: string; expandoChar?: string; metaVarChar?: string };
    try {
      mod = require(lang.dynamicPackage) as typeof mod;
      // Touch the lazy getter now so a missing parser is reported here, clearly.
      // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- the read is the check
      mod.libraryPath;
    } catch (err) {
      throw new ToolError(`Language ${lang.name} is unavailable: cannot load ${lang.dynamicPackage} (${messageOf(err)})`);
    }
    out[id] = {
      libraryPath: mod.libraryPath,
      extensions: mod.extensions,
      ...(mod.languageSymbol ? { languageSymbol: mod.languageSymbol } : {}),
      ...(mod.expandoChar ? { expandoChar: mod.expandoChar } : {}),
      ...(mod.metaVarChar ? { metaVarChar: mod.metaVarChar } : {}),
    };
  }
  return out;
}

/**
 * Registers the dynamic languages in this thread, once: on the first use of any of them, all
 * are registered in one call (napi's registration is meant to be made exactly once).
 */
export function ensureLanguages(napi: Napi, ids: readonly string[], state: { done: boolean } = registration): void {
  if (state.done || !ids.some((id) => langById(id).dynamicPackage)) return;
  napi.registerDynamicLanguage(dynamicRegistration(LANGS.filter((l) => l.dynamicPackage).map((l) => l.id)) as never);
  state.done = true;
}

/** The expando characters of napi's built-in languages other than `$` (ast-grep's language crate). */
const BUILTIN_EXPANDO: Readonly<Record<string, string>> = { Css: "_", Html: "z" };

/** The expando character napi substitutes for `$` in patterns of a language (µ for some). */
export function expandoChar(id: string): string {
  const lang = langById(id);
  if (!lang.dynamicPackage) return BUILTIN_EXPANDO[lang.id] ?? "$";
  try {
    const require = createRequire(import.meta.url);
    return (require(lang.dynamicPackage) as { expandoChar?: string }).expandoChar ?? "$";
  } catch {
    return "$";
  }
}
