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

/** The (tollgate, ast-grep) line pairs of a rewrite failure's excerpt. */
function linePairs(failure: string): Array<[string, string]> {
  return [...failure.matchAll(/tollgate: (".*"|null)\n\s+ast-grep: (".*"|null)/g)].map((m) => [JSON.parse(m[1]!) ?? "", JSON.parse(m[2]!) ?? ""]);
}

/** The pattern of a failure message (its first JSON string after `pattern `). */
function patternOf(failure: string): string {
  const m = /pattern ("(?:[^"\\]|\\.)*")/.exec(failure);
  return m ? (JSON.parse(m[1]!) as string) : "";
}

/**
 * Whether napi's Rust (the lang package) and the CLI's parse a pattern differently: one has an
 * ERROR node and the other not, or the CLI's root kind is none of napi's single-child chain.
 */
function rustParsesDifferently(pattern: string): boolean {
  const require = createRequire(import.meta.url);
  const napi = require("@ast-grep/napi") as typeof import("@ast-grep/napi");
  const expando = (require("@ast-grep/lang-rust") as { expandoChar?: string }).expandoChar ?? "$";
  let root: SgNode;
  try {
    root = napi.parse("rust" as never, pattern.replace(/\$/g, expando)).root();
  } catch {
    return false;
  }
  const cli = cliPatternTree("Rust", pattern);
  const napiError = root.find({ rule: { kind: "ERROR" } }) !== null;
  if (napiError !== cli.error) return true;
  const chain: string[] = [];
  for (let n: SgNode | undefined = root; n; ) {
    chain.push(String(n.kind()));
    const kids: SgNode[] = n.children().filter((c) => c.isNamed());
    n = kids.length === 1 ? kids[0] : undefined;
  }
  return cli.root !== "" && !cli.root.startsWith("MetaVar") && !chain.includes(cli.root);
}

/** The failure is not an extra match of tollgate's (the bugs that lose matches). */
const misses = (failure: string) => !failure.includes(" is not the CLI's");

const lang = (failure: string) => /^(\S+) /.exec(failure)?.[1];

export const KNOWN_BUGS: readonly KnownBug[] = [
  {
    id: "D1",
    lang: "html",
    title: "an element with empty raw text (`<script src=…></script>`) is taken as resting on a syntax error",
    file: "a.html",
    source: '<html>\n<head>\n  <script src="a.js"></script>\n</head>\n</html>\n',
    pattern: "<script $A></script>",
    signature: (f) => lang(f) === "html" && misses(f) && (f.includes("</script>") || patternOf(f).includes("<script")),
  },
  {
    id: "D2",
    lang: "go",
    title: "the template text after a capture that ends in a line break loses the line's indentation",
    file: "a.go",
    source: "package p\n\nfunc f(xs []int) {\n\tfor _, x := range xs {\n\t\tuse(x)\n\t}\n}\n",
    pattern: "for $C := range $A { $B }",
    out: "if true {\n    $B}",
    signature: (f) => {
      const pairs = linePairs(f);
      const shifted = ([tg, cli]: [string, string]) => cli !== tg && cli.endsWith(tg) && /^ +$/.test(cli.slice(0, cli.length - tg.length));
      // The lines the bug leaves unindented, and blank lines (their own allowed difference).
      return lang(f) === "go" && pairs.some((p) => shifted(p) && p[0] !== "") && pairs.every(shifted);
    },
  },
  {
    id: "D3",
    lang: "rust",
    title:
      "@ast-grep/lang-rust (tree-sitter-rust 0.23.2) parses some patterns otherwise than the CLI's Rust grammar: " +
      "`{ $$$A\n done += 1; }` and `$A::Bool` match in tollgate, not in the CLI; `match self { $A\n Arm => … }` the other way round",
    file: "a.rs",
    source: "fn f() {\n    while let Some(item) = q.pop() {\n        work(item);\n        done += 1;\n    }\n}\n",
    pattern: "{\n        $$$A\n        done += 1;\n    }",
    signature: (f) => lang(f) === "rust" && rustParsesDifferently(patternOf(f)),
  },
  {
    id: "D5",
    lang: "ts",
    title: "`if (…) $B $$$A` (metavariables for the consequence and the `else` clause) finds nothing in TypeScript and TSX",
    file: "a.ts",
    source: "function f(s) {\n  if (!s) {\n    return 1;\n  } else {\n    return 2;\n  }\n}\n",
    pattern: "if (!s) $B $$$A",
    signature: (f) => (lang(f) === "ts" || lang(f) === "tsx") && misses(f) && /if \(.*\) \$(\$\$)?[A-Z]+ \$(\$\$)?[A-Z]+/.test(patternOf(f)),
  },
  {
    id: "D6",
    lang: "html",
    title: "`<$A ng-app=$B>` (a metavariable tag name before an attribute) finds nothing",
    file: "a.html",
    source: '<!doctype html>\n<html ng-app="app">\n<body>\n  <p>x</p>\n</body>\n</html>\n',
    pattern: "<$A ng-app=$B>",
    signature: (f) => lang(f) === "html" && misses(f) && /<\$(\$\$)?[A-Z]+ [a-z$]/.test(patternOf(f)),
  },
  {
    id: "D7",
    lang: "css",
    title: "a hex colour in a pattern filters out files that have other colours, which the CLI's matcher matches (`$A: #eaeded;` matches `color: #fff;`)",
    file: "c.css",
    source: ".a {\n    color: #fff;\n}\n",
    pattern: "$A: #eaeded;",
    signature: (f) => lang(f) === "css" && misses(f) && /#[0-9a-fA-F]{3,8}\b/.test(patternOf(f)),
  },
  {
    id: "D8",
    lang: "ts",
    title: "`class VE $B { $$$A }` (a metavariable for the heritage clause) finds nothing in TypeScript and TSX",
    file: "b.ts",
    source: "export default class VE extends Error {\n  readonly errors: string[]\n  readonly ajv: true\n}\n",
    pattern: "class VE $B { $$$A }",
    signature: (f) => (lang(f) === "ts" || lang(f) === "tsx") && misses(f) && /class [\w$]+ \$(\$\$)?[A-Z]+ \{/.test(patternOf(f)),
  },
];

/** The known bug a failure of the generative test is, if any. */
export function knownBug(failure: string): KnownBug | undefined {
  return KNOWN_BUGS.find((b) => b.signature(failure));
}
