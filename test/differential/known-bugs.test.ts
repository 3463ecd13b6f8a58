/**
 * The engine bugs of known-bugs.ts on their minimal cases: each test compares tollgate with the
 * CLI and is expected to fail (`it.fails`) while the bug is there. When a fix makes tollgate
 * agree, the test fails: remove the entry, and the generative test then fails on any case of it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.js";
import { makeHost } from "../tools/helpers.js";
import { rewriteFile, runPattern } from "./cli.js";
import { rangeKey } from "./compare.js";
import { corpus } from "./corpus.js";
import { KNOWN_BUGS } from "./known-bugs.js";

const cliLang = (lang: string) => corpus().find((l) => l.lang === lang)!.cli;

describe("known engine bugs still differ from the CLI on their minimal cases", () => {
  for (const b of KNOWN_BUGS) {
    it.fails(`${b.id} (${b.lang}): ${b.title}`, async () => {
      const dir = await testdir();
      for (const sub of ["cli", "tg"]) {
        mkdirSync(path.join(dir, sub));
        writeFileSync(path.join(dir, sub, b.file), b.source);
      }
      const cli = runPattern(path.join(dir, "cli"), b.file, cliLang(b.lang), b.pattern, b.out ?? "$$$_KEEP").map((m) => `${rangeKey(m)} ${m.text}`);
            const t = makeHost(path.join(dir, "tg"));
      const grep = await t.call("ast_grep", { pat: [b.pattern], lang: b.lang });
      expect(grep.details.matches.map((m: { line: number; col: number; endLine: number; endCol: number; text: string }) => `${rangeKey(m)} ${m.text}`)).toEqual(cli);
      if (b.out === undefined) return;
      rewriteFile(path.join(dir, "cli"), b.file, cliLang(b.lang), b.pattern, b.out);
      await t.call("ast_edit", { ops: [{ pat: b.pattern, out: b.out }], lang: b.lang });
      if (t.actions.length > 0) await t.actions[0]!.apply("differential");
      expect(readFileSync(path.join(dir, "tg", b.file), "utf8")).toBe(readFileSync(path.join(dir, "cli", b.file), "utf8"));
    });
  }
});
