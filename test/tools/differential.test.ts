/**
 * The differential test: every case of fixtures/differential/cases.json runs through
 * tollgate (ast_grep, and ast_edit applied) and through the @ast-grep/cli dev dependency, and
 * the matches (line, column, text) and rewritten files are compared. The only differences
 * allowed are entries of src/tools/ast/differences.ts (docs/ast-grep-differences.md is generated
 * from it), each checked for what it is; a case names the ones it exercises.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIFFERENCES } from "../../src/tools/ast/differences.js";
import { astGrepCli } from "../helpers/ast-grep-cli.js";
import { testdir } from "../helpers/testdir.js";
import { makeHost } from "./helpers.js";

interface Case {
  file: string;
  lang: string;
  pat: string;
  out?: string;
  sel?: string;
  crlf?: boolean;
  allow?: string[];
  /** The CLI refuses the pattern: tollgate must refuse it too, with the CLI's reason. */
  refused?: boolean;
}

const FIXTURES = path.join(import.meta.dirname, "fixtures", "differential");
const CASES: Case[] = JSON.parse(readFileSync(path.join(FIXTURES, "cases.json"), "utf8"));
const SG = astGrepCli();

/** What each allowed difference permits. */
const ALLOWED = ["nested-matches", "string-literal-lines", "blank-lines", "template-line-endings", "syntax-errors"] as const;

function sg(args: string[], cwd: string) {
  const r = spawnSync(SG, args, { cwd, encoding: "utf8" });
  if (r.status !== 0 && r.status !== 1) throw new Error(`ast-grep ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const name = (c: Case) =>
  `${c.refused ? "refused: " : ""}${c.lang} ${c.file}: ${JSON.stringify(c.pat)}${c.sel ? ` sel ${c.sel}` : ""}${c.out !== undefined ? ` -> ${JSON.stringify(c.out)}` : ""}${c.crlf ? " (CRLF)" : ""}`;

describe("differential: tollgate vs the ast-grep CLI", () => {
  it("allows only differences listed in src/tools/ast/differences.ts (the list the users' page is generated from)", () => {
    const listed = new Set(DIFFERENCES.map((d) => d.id));
    for (const a of ALLOWED) expect(listed, a).toContain(a);
    for (const c of CASES) for (const a of c.allow ?? []) expect(ALLOWED as readonly string[]).toContain(a);
  });

  it.each(CASES.map((c) => [name(c), c] as const))("%s", async (_n, c) => {
    const allow = new Set(c.allow ?? []);
    // Stored as <name>.txt so no tool of this repository (tsc, linters) reads them as code.
    let source = readFileSync(path.join(FIXTURES, `${c.file}.txt`), "utf8");
    if (c.crlf) source = source.replace(/\r?\n/g, "\r\n");
    const dir = await testdir();
    for (const sub of ["cli", "tg"]) {
      mkdirSync(path.join(dir, sub));
      writeFileSync(path.join(dir, sub, c.file), source);
    }
    const cliDir = path.join(dir, "cli");
    const tgDir = path.join(dir, "tg");
    const selArgs = c.sel ? ["--selector", c.sel] : [];

    if (c.refused) {
      const r = spawnSync(SG, ["run", "-p", c.pat, "-l", c.lang, ...selArgs, c.file], { cwd: cliDir, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(8);
      const reason = /╰▻ (.+)/.exec(r.stderr)?.[1]?.trim();
      expect(reason).toBeTruthy();
      await expect(makeHost(tgDir).call("ast_grep", { pat: [c.pat], lang: c.lang, ...(c.sel ? { sel: c.sel } : {}) })).rejects.toThrow(reason!);
      return;
    }

    // Matches.
    const cli = sg(["run", "-p", c.pat, "-l", c.lang, ...selArgs, "--json=stream", c.file], cliDir)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { text: string; range: { start: { line: number; column: number } } })
      .map((m) => `${m.range.start.line + 1}:${m.range.start.column + 1}:${m.text}`);
    // Both ways of matching: in this thread (a small run's) and, with threads forced, the pool's
    // (whole files matched in napi's own threads, native.ts; regions parsed off this thread).
    for (const threads of [undefined, 2]) {
      const t = makeHost(tgDir, {}, threads === undefined ? {} : { ast: { threads } });
      const grep = await t.call("ast_grep", { pat: [c.pat], lang: c.lang, limit: 100000, ...(c.sel ? { sel: c.sel } : {}) });
      const tg = (grep.details.matches as Array<{ line: number; col: number; text: string }>).map((m) => `${m.line}:${m.col}:${m.text}`);
      if (allow.has("syntax-errors")) {
        // Every CLI match is found, or skipped and listed with its position as resting on a
        // syntax error; an extra match must be a node of the file (a real match the CLI's
        // parse lost to error recovery).
        const skipped = new Set((grep.details.parseErrors ?? []).map((e: string) => /:(\d+:\d+): parse error \(the match rests/.exec(e)?.[1]).filter(Boolean));
        for (const m of cli) if (!tg.includes(m)) expect(skipped, `${m} neither found nor listed`).toContain(m.split(":").slice(0, 2).join(":"));
        for (const m of tg) if (!cli.includes(m)) expect(source.replace(/\r\n/g, "\n")).toContain(m.split(":").slice(2).join(":"));
        expect(skipped.size, "the case has a match resting on a syntax error").toBeGreaterThan(0);
      } else {
        expect(tg, `threads ${threads ?? "none"}`).toEqual(cli);
      }
    }
    if (c.out === undefined) return;

    // Rewrites.
    const update = () => sg(["run", "-p", c.pat, "-r", c.out!, "-l", c.lang, ...selArgs, "-U", c.file], cliDir);
    update();
    if (allow.has("nested-matches")) {
      // The CLI leaves a match nested in another's capture; tollgate rewrites it in the same
      // pass. Re-running the CLI until nothing changes gives the nested rewrites too.
      for (let i = 0; i < 5; i++) {
        const before = readFileSync(path.join(cliDir, c.file), "utf8");
        update();
        if (readFileSync(path.join(cliDir, c.file), "utf8") === before) break;
      }
    }
    for (const threads of [undefined, 2]) {
      writeFileSync(path.join(tgDir, c.file), source);
      const t = makeHost(tgDir, {}, threads === undefined ? {} : { ast: { threads } });
      const edit = await t.call("ast_edit", { ops: [{ pat: c.pat, out: c.out }], lang: c.lang, ...(c.sel ? { sel: c.sel } : {}) });
      if (t.actions.length > 0) await t.actions[0]!.apply("differential");
      let want = readFileSync(path.join(cliDir, c.file), "utf8");
      let got = readFileSync(path.join(tgDir, c.file), "utf8");
      expect(got === source, "tollgate rewrote something").toBe(want === source && edit.details.totalReplacements === 0);
      if (allow.has("template-line-endings")) {
        // A CRLF file keeps CRLF in the template's line breaks; the CLI inserts them as LF.
        expect(got.replace(/\r\n/g, "")).not.toContain("\n");
        want = want.replace(/\r\n/g, "\n");
        got = got.replace(/\r\n/g, "\n");
      }
      const w = want.split("\n");
      const g = got.split("\n");
      if (!allow.has("blank-lines") && !allow.has("string-literal-lines") && !allow.has("syntax-errors")) {
        expect(got, `threads ${threads ?? "none"}`).toBe(want);
        continue;
      }
      expect(g.length).toBe(w.length);
      const original = source.split(/\r?\n/);
      const skippedLines = new Set((edit.details.parseErrors ?? []).map((e: string) => Number(/:(\d+):\d+: parse error \(the match rests/.exec(e)?.[1])));
      let differing = 0;
      g.forEach((line, i) => {
        const cliLine = w[i]!;
        if (line === cliLine) return;
        differing++;
        if (allow.has("blank-lines") && /^\r?$/.test(line) && /^ +\r?$/.test(cliLine)) return; // no trailing whitespace
        // A line inside a string literal keeps its text (the CLI shifted it, changing the value).
        const [long, short] = cliLine.length >= line.length ? [cliLine, line] : [line, cliLine];
        if (allow.has("string-literal-lines") && long.endsWith(short) && /^ +$/.test(long.slice(0, long.length - short.length))) return;
        // The CLI rewrote a match tollgate skipped (it rests on a syntax error): that line is the original's.
        if (allow.has("syntax-errors") && skippedLines.has(i + 1) && line === original[i]) return;
        expect.fail(`line ${i + 1} differs beyond the allowed differences:\n  tollgate: ${JSON.stringify(line)}\n  ast-grep: ${JSON.stringify(cliLine)}`);
      });
      expect(differing, "the allowed difference occurs in this case").toBeGreaterThan(0);
    }
  });
});
