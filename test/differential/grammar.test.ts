/**
 * The grammar-versions difference on minimal cases: where the packaged Go and Rust grammars parse
 * a pattern otherwise than the CLI's, the two tools' matches differ, and grammarsAgree() says so;
 * a pattern both grammars parse alike matches alike.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.js";
import { makeHost } from "../tools/helpers.js";
import { runPattern } from "./cli.js";
import { rangeKey } from "./compare.js";
import { grammarsAgree } from "./grammar.js";

const CASES = [
  {
    lang: "rust",
    cli: "Rust",
    file: "a.rs",
    source: "fn f() {\n    while let Some(item) = q.pop() {\n        work(item);\n        done += 1;\n    }\n}\n",
    differs: "{\n        $$$A\n        done += 1;\n    }",
    alike: "work($A)",
  },
  {
    lang: "go",
    cli: "Go",
    file: "a.go",
    source: "package p\n\ntype S struct {\n\tmu    sync.RWMutex\n}\n\nfunc f() { use(1) }\n",
    differs: "$$$A    sync.$B",
    alike: "use($A)",
  },
];

async function both(c: (typeof CASES)[number], pattern: string): Promise<{ cli: string[]; tg: string[] }> {
  const dir = await testdir();
  for (const sub of ["cli", "tg"]) {
    mkdirSync(path.join(dir, sub));
    writeFileSync(path.join(dir, sub, c.file), c.source);
  }
  const cli = runPattern(path.join(dir, "cli"), c.file, c.cli, pattern, "$$$_KEEP").map((m) => `${rangeKey(m)} ${m.text}`);
  const grep = await makeHost(path.join(dir, "tg")).call("ast_grep", { pat: [pattern], lang: c.lang });
  const tg = (grep.details.matches as Array<{ line: number; col: number; endLine: number; endCol: number; text: string }>).map(
    (m) => `${rangeKey(m)} ${m.text}`,
  );
  return { cli, tg };
}

describe("grammar versions: packaged Go and Rust grammars against the CLI's", () => {
  for (const c of CASES) {
    it(`${c.lang}: a pattern the grammars parse otherwise is told apart, and only it matches otherwise`, async () => {
      expect(grammarsAgree(c.lang, c.differs)).toBe(false);
      const differs = await both(c, c.differs);
      expect(differs.tg).not.toEqual(differs.cli);
      expect(grammarsAgree(c.lang, c.alike)).toBe(true);
      const alike = await both(c, c.alike);
      expect(alike.tg).toEqual(alike.cli);
      expect(alike.tg.length).toBeGreaterThan(0);
    });
  }
  it("languages whose grammars napi shares with the CLI always agree", () => {
    expect(grammarsAgree("TypeScript", "{ $$$A")).toBe(true);
  });
});
