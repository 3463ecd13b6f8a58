/**
 * The generative rule differential: ast-grep rules made from real nodes (test/differential/
 * rules.ts) over cleanly parsing real files, all of a language's rules in one ast_scan call (the
 * real tool, in process, its single traversal evaluating them together) and in one `ast-grep
 * scan --inline-rules` call of the @ast-grep/cli dev dependency. Every rule's findings must be
 * the CLI's: the same files, ranges and first lines; a rule the CLI refuses must be refused by
 * ast_scan too. The fix differential applies rules with fixes (templates, rewriters, expandEnd)
 * through the real CLI with an auto-apply policy and with `ast-grep scan --update-all`, and the
 * template ones also as the ops of one ast_edit step: the trees must be the CLI's. The selector
 * differential matches contextual patterns (a node's parent with the node turned into a pattern,
 * `sel` its kind) with ast_grep and with `ast-grep run --selector`. Languages whose
 * napi grammar is another tree-sitter version than the CLI's (Go, Rust) are left out: there kinds
 * and shapes may differ by design. `TOLLGATE_DIFF_RULES`, `TOLLGATE_DIFF_FIXES`,
 * `TOLLGATE_DIFF_SELECTORS` and `TOLLGATE_DIFF_SEED` set the cases per language and the seed.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { preprocessPattern } from "../../src/tools/ast/fixed-string.js";
import { ensureLanguages, expandoChar, LANGS, loadNapi } from "../../src/tools/ast/langs.js";
import { testdir, tollgate } from "../helpers/testdir.js";
import { makeHost } from "../tools/helpers.js";
import { runCli, runContextual, scanRules, type CliMatch } from "./cli.js";
import { compareLines, rangeKey, stringLineStarts, Verdict } from "./compare.js";
import { corpus, usable, type CorpusLang } from "./corpus.js";
import { candidates, makePattern, makeRewrite, neverEmpty, pick, rng, shuffle, type RewriteCase, type Source } from "./generate.js";
import { makeRules } from "./rules.js";

const env = (name: string, fallback: number) => {
  const v = process.env[name];
  return v === undefined || v === "" ? fallback : Number(v);
};
const RULES = env("TOLLGATE_DIFF_RULES", 30);
const SEED = env("TOLLGATE_DIFF_SEED", 20260);
const FILES = 12;
const FIX_RULES = env("TOLLGATE_DIFF_FIXES", 6);
const SELECTORS = env("TOLLGATE_DIFF_SELECTORS", 6);
const SAME_GRAMMAR = new Set(["ts", "tsx", "js", "json", "css", "html", "python"]);
const LANGUAGES = corpus().filter((l) => SAME_GRAMMAR.has(l.lang));
const hash = (s: string) => Array.from(s).reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);

interface Finding {
  rule: string;
  path: string;
  start: { line: number; column: number };
  end: { line: number; column: number };
  text: string;
}

/** Up to FILES usable files of the language that napi parses without an error, copied into `dir`. */
async function copyClean(l: CorpusLang, r: () => number, dir: string): Promise<Source[]> {
  const napi = await loadNapi();
  ensureLanguages(napi, [LANGS.find((x) => x.id === l.napi)!.id]);
  const out: Source[] = [];
  for (const abs of shuffle(r, l.files)) {
    if (out.length >= FILES) break;
    if (!usable(abs, 30_000)) continue;
    const text = readFileSync(abs, "utf8");
    const root = napi.parse(l.napi, text);
    if (root.root().find({ rule: { kind: "ERROR" } }) !== null) continue;
    const file = `f${String(out.length).padStart(2, "0")}${l.ext}`;
    copyFileSync(abs, path.join(dir, file));
    out.push({ file, text, root });
  }
  return out;
}

// A finding's text is its match's first line.
const firstLine = (text: string) => text.split(/\r?\n/, 1)[0]!;
const cliKey = (m: CliMatch) => `${m.file}:${rangeKey(m)} ${JSON.stringify(firstLine(m.text))}`;
const tgKey = (f: Finding) =>
  `${f.path}:${rangeKey({ line: f.start.line, col: f.start.column, endLine: f.end.line, endCol: f.end.column })} ${JSON.stringify(firstLine(f.text))}`;
const grouped = <T>(xs: readonly T[], id: (x: T) => string, key: (x: T) => string) => {
  const out = new Map<string, string[]>();
  for (const x of xs) out.set(id(x), [...(out.get(id(x)) ?? []), key(x)]);
  for (const v of out.values()) v.sort();
  return out;
};

describe(`generative rule differential: ast_scan vs ast-grep scan (seed ${SEED}, ${RULES} rules per language)`, () => {
  for (const l of LANGUAGES) {
    const test = l.files.length === 0 ? it.skip : it;
    test(`${l.lang}: ${l.missing ?? "rules drawn from real nodes find what the CLI finds"}`, { timeout: 60_000 + RULES * 1_000 }, async () => {
      const r = rng(SEED ^ hash(`rules:${l.lang}`));
      const dir = await testdir();
      const sources = await copyClean(l, r, dir);
      const rules = makeRules(r, sources, RULES);
      const doc = (id: string, body: Record<string, unknown>) => ({ id, language: l.cli, severity: "hint", ...body });
      const cli = scanRules(
        dir,
        rules.map((g) => ({ id: g.id, yaml: stringify(doc(g.id, g.body)) })),
      );
      const refused = cli.refused;
      const failures: string[] = [];
      for (const [id, why] of refused) {
        const g = rules.find((x) => x.id === id)!;
        const refusal = await makeHost(dir)
          .call("ast_scan", { rules: [doc(id, g.body)] })
          .then(
            () => undefined,
            (err: unknown) => err,
          );
        if (refusal === undefined)
          failures.push(`${l.lang} ${id} ${JSON.stringify(g.body)}: the CLI refuses it (${why.split("\n").slice(0, 3).join(" / ")}), ast_scan takes it`);
      }
      const kept = rules.filter((g) => !refused.has(g.id));
      const { details } = await makeHost(dir).call("ast_scan", { rules: kept.map((g) => doc(g.id, g.body)) });
      const tgBy = grouped(details.findings as Finding[], (f) => f.rule, tgKey);
      const cliBy = grouped(cli.matches, (m) => m.ruleId ?? "", cliKey);
      for (const g of kept) {
        const want = cliBy.get(g.id) ?? [];
        const got = tgBy.get(g.id) ?? [];
        if (JSON.stringify(want) === JSON.stringify(got)) continue;
        const missing = want.filter((k) => !got.includes(k));
        const extra = got.filter((k) => !want.includes(k));
        failures.push(
          `${l.lang} ${g.id} ${JSON.stringify(g.body)} (from ${g.file}): CLI ${want.length}, tollgate ${got.length}\n  only the CLI: ${missing.slice(0, 4).join("\n    ")}\n  only tollgate: ${extra.slice(0, 4).join("\n    ")}`,
        );
      }
      const matched = kept.filter((g) => (cliBy.get(g.id) ?? []).length > 0).length;
      const features = new Map<string, number>();
      for (const g of kept) for (const f of new Set(g.features)) features.set(f, (features.get(f) ?? 0) + 1);
      console.log(
        `${l.lang}: ${sources.length} files, ${rules.length} rules (${refused.size} refused by both, ${matched} matching), findings CLI ${cli.matches.length} / tollgate ${(details.findings as Finding[]).length}, features ${JSON.stringify(Object.fromEntries(features))}, unexplained ${failures.length}`,
      );
      expect(rules.length, "rules made").toBeGreaterThanOrEqual(Math.ceil(RULES * 0.8));
      expect(matched, "rules that find something").toBeGreaterThanOrEqual(Math.ceil(kept.length / 2));
      expect(failures, failures.join("\n\n")).toEqual([]);
    });
  }
});

/** Every file of `dir`: name → text. */
const treeOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f !== ".tollgate")
      .map((f) => [f, readFileSync(path.join(dir, f), "utf8")]),
  );

/** The first lines where two texts differ, for a failure message. */
function firstDifference(a: string, b: string): string {
  const x = a.split("\n");
  const y = b.split("\n");
  const i = x.findIndex((l, k) => l !== y[k]);
  const at = i === -1 ? x.length : i;
  return `line ${at + 1}:\n    ast_scan: ${JSON.stringify(x.slice(at, at + 3).join("\n"))}\n    ast-grep: ${JSON.stringify(y.slice(at, at + 3).join("\n"))}`;
}

interface FixRule {
  id: string;
  language: string;
  severity: string;
  rule: { pattern: string };
  fix: string | { template: string; expandEnd: { regex: string } };
  transform?: Record<string, unknown>;
  rewriters?: Array<Record<string, unknown>>;
}

/**
 * A rewrite case as a rule's fix, drawn three ways: the rewrite's template; a capture rewritten by
 * a rewriter (every node of a kind found in it at the source, wrapped in a call) and lifted out;
 * or, where a comma follows the source match, the template with `expandEnd` taking the commas.
 * Rewriters and expansions are tollgate's own code (napi evaluates rules and transforms).
 */
function dress(r: () => number, s: Source, c: RewriteCase): { fields: Pick<FixRule, "fix" | "transform" | "rewriters">; feature: string } {
  const roll = r();
  if (roll < 0.35) {
    const names = [...c.vars.keys()].filter((n) => n !== "_");
    const match = s.root.root().find({ rule: { pattern: c.pattern } });
    const name = names.length > 0 ? pick(r, names) : undefined;
    if (name && match) {
      const list = c.vars.get(name)!.startsWith("list:");
      const captured = list ? match.getMultipleMatches(name) : [match.getMatch(name)].filter((x) => x !== null);
      const inner = captured.flatMap((x) => [x, ...x.findAll({ rule: { regex: "." } })]).filter((x) => x.isNamed());
      if (inner.length > 0) {
        const kind = String(pick(r, inner).kind());
        const joinBy = list && r() < 0.5 ? { joinBy: ", " } : {};
        return {
          fields: {
            rewriters: [{ id: "rw", rule: { kind, pattern: "$N" }, fix: "q($N)" }],
            transform: { R: { rewrite: { source: list ? `$$$${name}` : `$${name}`, rewriters: ["rw"], ...joinBy } } },
            fix: "$R",
          },
          feature: list && "joinBy" in joinBy ? "rewriter+joinBy" : "rewriter",
        };
      }
    }
  }
  if (roll < 0.7 && /^\s*,/.test(s.text.slice(c.end))) return { fields: { fix: { template: c.out, expandEnd: { regex: "," } } }, feature: "expandEnd" };
  return { fields: { fix: c.out }, feature: "template" };
}

/** The files of `gotDir` that differ from `wantDir`'s beyond the allowed line differences, described. */
async function compareTrees(l: CorpusLang, base: string, wantDir: string, gotDir: string, verdict: Verdict, who: string): Promise<string[]> {
  const want = treeOf(wantDir);
  const got = treeOf(gotDir);
  const napi = await loadNapi();
  const info = LANGS.find((x) => x.id === l.napi)!;
  const failures: string[] = [];
  for (const f of Object.keys(want)) {
    if (want[f] === got[f]) continue;
    // Line differences the allowed differences explain (blank lines of a re-indented capture, …).
    const source = readFileSync(path.join(base, f), "utf8");
    const out = got[f] ?? "";
    const facts = {
      crlf: source.includes("\r\n"),
      stringLines: stringLineStarts(napi.parse(l.napi, out).root(), out, info.stringKinds),
      skippedLines: new Set<number>(),
    };
    const head = () => `${l.lang} ${f} (${who})`;
    if (!compareLines(source, out, want[f]!, facts, verdict, head).explained) failures.push(`${head()}: ${firstDifference(out, want[f]!)}`);
  }
  return failures;
}

describe(`generative fix differential: ast_scan applied vs ast-grep scan --update-all (seed ${SEED})`, () => {
  for (const l of LANGUAGES) {
    const test = l.files.length === 0 ? it.skip : it;
    test(`${l.lang}: ${l.missing ?? "rules with fixes drawn from real nodes rewrite the files as the CLI does"}`, { timeout: 120_000 }, async () => {
      const r = rng(SEED ^ hash(`fixes:${l.lang}`));
      const base = await testdir();
      const sources = await copyClean(l, r, base);
      const rules: FixRule[] = [];
      const seen = new Set<string>();
      const features = new Map<string, string>();
      for (let attempt = 0; attempt < 600 && rules.length < FIX_RULES * 3; attempt++) {
        const s = pick(r, sources);
        const nodes = candidates(s.root);
        if (nodes.length === 0) continue;
        const n = pick(r, nodes);
        const g = makePattern(r, s, n, r() < 0.6);
        if (!g || seen.has(g.pattern)) continue;
        const c = makeRewrite(r, l.lang, g, String(n.kind()), neverEmpty(g, s.root));
        if (!c) continue;
        seen.add(g.pattern);
        const id = `f${rules.length}`;
        const dressed = dress(r, s, c);
        features.set(id, dressed.feature);
        rules.push({ id, language: l.cli, severity: "hint", rule: { pattern: c.pattern }, ...dressed.fields });
      }
      // Fixes of different rules that overlap are staged apart (the later one resolved is
      // stale): only rules whose matches overlap no other kept rule's are compared.
      const drawn = scanRules(
        base,
        rules.map((x) => ({ id: x.id, yaml: stringify(x) })),
      );
      const found = drawn.matches;
      const spans = (id: string) => found.filter((m) => m.ruleId === id);
      // An expanded fix reaches past its match over the commas after it.
      const reach = (m: CliMatch) => {
        const rule = rules.find((x) => x.id === m.ruleId);
        if (typeof rule?.fix !== "object") return m.end;
        const text = readFileSync(path.join(base, m.file), "utf8");
        return m.end + (/^(?:\s*,)*/.exec(text.slice(m.end))?.[0].length ?? 0);
      };
      const overlap = (a: CliMatch, b: CliMatch) => a.file === b.file && a.start < reach(b) && b.start < reach(a);
      const kept: typeof rules = [];
      // Rules the CLI refuses are the refusal test's subject (the rule differential above).
      for (const x of rules) {
        if (kept.length >= FIX_RULES || drawn.refused.has(x.id)) continue;
        if (!kept.some((k) => spans(k.id).some((a) => spans(x.id).some((b) => overlap(a, b))))) kept.push(x);
      }
      rules.splice(0, rules.length, ...kept);
      const failures: string[] = [];
      const verdict = new Verdict();
      const cliDir = path.join(base, "cli");
      const tgDir = path.join(base, "tg");
      for (const d of [cliDir, tgDir]) {
        mkdirSync(d);
        for (const s of sources) copyFileSync(path.join(base, s.file), path.join(d, s.file));
      }
      const cli = runCli(["scan", "--inline-rules", rules.map((x) => stringify(x)).join("\n---\n"), "--update-all", "."], cliDir);
      const refused = cli.status !== 0 && cli.status !== 1;
      writeFileSync(path.join(base, "rules.yml"), rules.map((x) => stringify(x)).join("---\n"));
      writeFileSync(path.join(base, "recipe.yaml"), "version: 1\nsteps:\n  - id: fix\n    tool: ast_scan\n    with: { rules: [rules.yml] }\n");
      // The real CLI with an auto-apply policy, as a job applying a rule set runs it.
      const tg = await tollgate(["run", path.join(base, "recipe.yaml"), "--cwd", tgDir, "--mode", "auto-apply", "--format", "json"], { cwd: base });
      const tgRefused = tg.code === 2;
      if (refused !== tgRefused)
        failures.push(
          `${l.lang}: the CLI ${refused ? "refuses" : "takes"} the rule set, ast_scan ${tgRefused ? "refuses" : "takes"} it (${(refused ? cli.stderr : tg.stderr).slice(0, 400)})`,
        );
      else if (!refused) {
        if (tg.code !== 0) failures.push(`${l.lang}: tollgate run exited ${tg.code}: ${tg.stderr.slice(0, 400)}`);
        failures.push(...(await compareTrees(l, base, cliDir, tgDir, verdict, "ast_scan")));
      }
      // The same template fixes as the ops of one ast_edit step, against `scan -U` with those
      // rules alone: ast_edit rewrites a match nested in another's capture too (a documented
      // improvement), so rules with nested or overlapping matches of their own are left out.
      const selfOverlap = (id: string) => spans(id).some((a, i) => spans(id).some((b, j) => i < j && overlap(a, b)));
      const plain = rules.filter((x) => typeof x.fix === "string" && x.transform === undefined && !selfOverlap(x.id));
      if (!refused && plain.length > 0) {
        const plainCli = path.join(base, "cli-plain");
        const editDir = path.join(base, "edit");
        for (const d of [plainCli, editDir]) {
          mkdirSync(d);
          for (const s of sources) copyFileSync(path.join(base, s.file), path.join(d, s.file));
        }
        runCli(["scan", "--inline-rules", plain.map((x) => stringify(x)).join("\n---\n"), "--update-all", "."], plainCli);
        const ops = plain.map((x) => ({ pat: x.rule.pattern, out: x.fix as string }));
        writeFileSync(path.join(base, "edit.yaml"), stringify({ version: 1, steps: [{ id: "edit", tool: "ast_edit", with: { ops, lang: l.lang } }] }));
        const edit = await tollgate(["run", path.join(base, "edit.yaml"), "--cwd", editDir, "--mode", "auto-apply", "--format", "json"], { cwd: base });
        if (edit.code !== 0) failures.push(`${l.lang}: ast_edit with ${ops.length} ops exited ${edit.code}: ${edit.stderr.slice(0, 400)}`);
        else failures.push(...(await compareTrees(l, base, plainCli, editDir, verdict, `ast_edit (${ops.length} ops)`)));
      }
      const changed = Object.entries(treeOf(cliDir)).filter(([f, text]) => text !== readFileSync(path.join(base, f), "utf8")).length;
      const used = new Map<string, number>();
      for (const x of rules) used.set(features.get(x.id)!, (used.get(features.get(x.id)!) ?? 0) + 1);
      console.log(
        `${l.lang}: ${sources.length} files, ${rules.length} rules with fixes ${JSON.stringify(Object.fromEntries(used))}${refused ? " (refused by both)" : ""} (${plain.length} also as ast_edit ops), ${changed} files rewritten by the CLI, explained ${JSON.stringify(Object.fromEntries(verdict.explained))}, unexplained ${failures.length}`,
      );
      expect(rules.length, "rules made").toBeGreaterThanOrEqual(1);
      expect(changed, "files the CLI rewrote").toBeGreaterThanOrEqual(1);
      expect(failures, `${failures.join("\n\n")}\n\nrules:\n${rules.map((x) => JSON.stringify(x)).join("\n")}`).toEqual([]);
    });
  }
});

/** Whether a pattern's context parses with an ERROR node (its metavariables read as the language's expando character). */
function hasErrorIn(napi: Awaited<ReturnType<typeof loadNapi>>, napiLang: string, context: string): boolean {
  const text = preprocessPattern(context, expandoChar(napiLang));
  return (
    napi
      .parse(napiLang, text)
      .root()
      .find({ rule: { kind: "ERROR" } }) !== null
  );
}

describe(`generative selector differential: ast_grep with sel vs ast-grep run --selector (seed ${SEED})`, () => {
  for (const l of LANGUAGES) {
    const test = l.files.length === 0 ? it.skip : it;
    test(`${l.lang}: ${l.missing ?? "contextual patterns drawn from real nodes match as the CLI's do"}`, { timeout: 120_000 }, async () => {
      const r = rng(SEED ^ hash(`selectors:${l.lang}`));
      const dir = await testdir();
      const sources = await copyClean(l, r, dir);
      const napi = await loadNapi();
      const failures: string[] = [];
      let made = 0;
      let matched = 0;
      let recovered = 0;
      const seen = new Set<string>();
      for (let attempt = 0; attempt < 400 && made < SELECTORS; attempt++) {
        const s = pick(r, sources);
        const nodes = candidates(s.root).filter((n) => n.parent()?.parent() !== null);
        if (nodes.length === 0) continue;
        const n = pick(r, nodes);
        const g = makePattern(r, s, n, r() < 0.5);
        if (!g) continue;
        // The context: the node's parent (or grandparent) with the node's text turned into the pattern.
        const up = r() < 0.5 ? n.parent()! : (n.parent()!.parent() ?? n.parent()!);
        const [ps, pe] = [up.range().start.index, up.range().end.index];
        const context = s.text.slice(ps, g.start) + g.pattern + s.text.slice(g.end, pe);
        const sel = String(n.kind());
        if (seen.has(`${context}\0${sel}`) || context.length > 2000) continue;
        seen.add(`${context}\0${sel}`);
        made++;
        const cli = runContextual(dir, l.cli, context, sel);
        const got = await makeHost(dir)
          .call("ast_grep", { pat: [context], sel, lang: l.lang, limit: 1_000_000 })
          .then(
            (x) => x.details.matches as Array<{ path: string; line: number; col: number; endLine: number; endCol: number; text: string }>,
            () => null,
          );
        const head = `${l.lang} ${JSON.stringify(context.slice(0, 200))} / ${sel}`;
        // A context that does not parse cleanly is recovered by napi (UTF-16) and the CLI (UTF-8)
        // each in its own way, so the two can select different nodes (the CLI warns of such a
        // pattern, and so does tollgate): a difference there is counted, not failed.
        const differ = (why: string) => {
          if (hasErrorIn(napi, l.napi, context)) recovered++;
          else failures.push(why);
        };
        if ((cli === null) !== (got === null)) {
          differ(`${head}: the CLI ${cli === null ? "refuses" : "takes"} it, ast_grep ${got === null ? "refuses" : "takes"} it`);
          continue;
        }
        if (cli === null || got === null) continue;
        if (cli.length > 0) matched++;
        const want = cli.map((m) => `${m.file}:${rangeKey(m)}`).sort();
        const have = got.map((m) => `${m.path}:${rangeKey(m)}`).sort();
        if (JSON.stringify(want) !== JSON.stringify(have))
          differ(
            `${head}: CLI ${want.length}, tollgate ${have.length}\n  only the CLI: ${want
              .filter((k) => !have.includes(k))
              .slice(0, 4)
              .join(" ")}\n  only tollgate: ${have
              .filter((k) => !want.includes(k))
              .slice(0, 4)
              .join(" ")}`,
          );
      }
      console.log(
        `${l.lang}: ${sources.length} files, ${made} contextual patterns (${matched} matching), ${recovered} differing where the context does not parse cleanly, unexplained ${failures.length}`,
      );
      expect(made, "patterns made").toBeGreaterThanOrEqual(Math.min(4, Math.ceil(SELECTORS / 2)));
      expect(failures, failures.join("\n\n")).toEqual([]);
    });
  }
});
