/**
 * Engine bugs the differential tests found that are not fixed yet: each with a minimal case
 * (checked by known-bugs.test.ts with `it.fails`, so a fix makes that test fail until the entry
 * is removed) and a narrow signature of the generated cases it makes fail, which the
 * generative test reports under the bug's id instead of failing on them. Any other difference
 * fails as usual.
 */
import { createRequire } from "node:module";
import type { SgNode } from "@ast-grep/napi";
import { cliPatternTree } from "./cli.js";

export interface KnownBug {
  id: string;
  lang: string;
  title: string;
  /** A file, a pattern and a rewrite on which tollgate and the CLI differ because of the bug. */
  file: string;
  source: string;
  pattern: string;
  out?: string;
  /** Whether a failure message of the generative test is this bug's. */
  signature(failure: string): boolean;
}

/** The pattern of a failure message (its first JSON string after `pattern `). */
function patternOf(failure: string): string {
  const m = /pattern ("(?:[^"\\]|\\.)*")/.exec(failure);
  return m ? (JSON.parse(m[1]!) as string) : "";
}

/**
 * Whether napi's grammar of a language (its lang package) and the CLI's parse a pattern
 * differently: their ERROR nodes hold different text, or the CLI's root kind is none of napi's
 * single-child chain.
 */
function parsesDifferently(lang: "rust" | "go", pattern: string): boolean {
  const require = createRequire(import.meta.url);
  const napi = require("@ast-grep/napi") as typeof import("@ast-grep/napi");
  const expando = (require(`@ast-grep/lang-${lang}`) as { expandoChar?: string }).expandoChar ?? "$";
  let root: SgNode;
  try {
    root = napi.parse(lang as never, pattern.replace(/\$/g, expando)).root();
  } catch {
    return false;
  }
  const cli = cliPatternTree(lang === "rust" ? "Rust" : "Go", pattern);
  const napiErrors = root.findAll({ rule: { kind: "ERROR" } }).map((e) => e.text().split(expando).join("$").replace(/\s+/g, ""));
  if (napiErrors.sort().join("\n") !== [...cli.errors].sort().join("\n")) return true;
  const chain: string[] = [];
  for (let n: SgNode | undefined = root; n; ) {
    chain.push(String(n.kind()));
    const kids: SgNode[] = n.children().filter((c) => c.isNamed());
    n = kids.length === 1 ? kids[0] : undefined;
  }
  return cli.root !== "" && !cli.root.startsWith("MetaVar") && !chain.includes(cli.root);
}

const lang = (failure: string) => /^(\S+) /.exec(failure)?.[1];

export const KNOWN_BUGS: readonly KnownBug[] = [
  {
    id: "D3",
    lang: "rust",
    title:
      "@ast-grep/lang-rust (tree-sitter-rust 0.23.2) parses some patterns otherwise than the CLI's Rust grammar: " +
      "`{ $$$A\n done += 1; }` and `$A::Bool` match in tollgate, not in the CLI; `match self { $A\n Arm => … }` the other way round",
    file: "a.rs",
    source: "fn f() {\n    while let Some(item) = q.pop() {\n        work(item);\n        done += 1;\n    }\n}\n",
    pattern: "{\n        $$$A\n        done += 1;\n    }",
    signature: (f) => lang(f) === "rust" && parsesDifferently("rust", patternOf(f)),
  },
  {
    id: "D9",
    lang: "go",
    title: "@ast-grep/lang-go (tree-sitter-go 0.25.0) parses some patterns otherwise than the CLI's Go grammar: `$$$A    sync.$B` matches the field `mu    sync.RWMutex` in tollgate, not in the CLI",
    file: "a.go",
    source: "package p\n\ntype S struct {\n\tmu    sync.RWMutex\n}\n",
    pattern: "$$$A    sync.$B",
    signature: (f) => lang(f) === "go" && parsesDifferently("go", patternOf(f)),
  },
];

/** The known bug a failure of the generative test is, if any. */
export function knownBug(failure: string): KnownBug | undefined {
  return KNOWN_BUGS.find((b) => b.signature(failure));
}
