/**
 * Whether tollgate's grammar of a language and the CLI's parse a pattern alike. Go and Rust come
 * to napi from @ast-grep/lang-go and @ast-grep/lang-rust, built from other tree-sitter grammar
 * versions than the ones compiled into the CLI; the other languages share the CLI's grammars.
 */
import { createRequire } from "node:module";
import type { SgNode } from "@ast-grep/napi";
import { ensureLanguages } from "../../src/tools/ast/langs.js";
import { cliPatternTree } from "./cli.js";

const PACKAGED: Record<string, string> = { rust: "Rust", go: "Go" };

/**
 * False when the two parses of the pattern differ: their ERROR nodes hold different text, or the
 * CLI's root kind is none of the single-child chain of napi's parse.
 */
export function grammarsAgree(lang: string, pattern: string): boolean {
  const cliLang = PACKAGED[lang];
  if (cliLang === undefined) return true;
  const require = createRequire(import.meta.url);
  const napi = require("@ast-grep/napi") as typeof import("@ast-grep/napi");
  const expando = (require(`@ast-grep/lang-${lang}`) as { expandoChar?: string }).expandoChar ?? "$";
  ensureLanguages(napi, [lang]);
  let root: SgNode;
  try {
    root = napi.parse(lang, pattern.replace(/\$/g, expando)).root();
  } catch {
    return true;
  }
  const cli = cliPatternTree(cliLang, pattern);
  const napiErrors = root.findAll({ rule: { kind: "ERROR" } }).map((e) => e.text().split(expando).join("$").replace(/\s+/g, ""));
  if (napiErrors.sort().join("\n") !== [...cli.errors].sort().join("\n")) return false;
  const chain: string[] = [];
  for (let n: SgNode | undefined = root; n;) {
    chain.push(String(n.kind()));
    const kids: SgNode[] = n.children().filter((c) => c.isNamed());
    n = kids.length === 1 ? kids[0] : undefined;
  }
  return cli.root === "" || cli.root.startsWith("MetaVar") || chain.includes(cli.root);
}
