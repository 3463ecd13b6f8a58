/**
 * The generative rule differential: ast-grep rules made from real nodes (test/differential/
 * rules.ts) over cleanly parsing real files, all of a language's rules in one ast_scan call (the
 * real tool, in process, its single traversal evaluating them together) and in one `ast-grep
 * scan --inline-rules` call of the @ast-grep/cli dev dependency. Every rule's findings must be
 * the CLI's: the same files, ranges and first lines; a rule the CLI refuses must be refused by
 * ast_scan too. Languages whose napi grammar is another tree-sitter version than the CLI's (Go,
 * Rust) are left out: there kinds and shapes may differ by design. `TOLLGATE_DIFF_RULES` and
 * `TOLLGATE_DIFF_SEED` set the number of rules per language and the seed.
 */
import { copyFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { ensureLanguages, LANGS, loadNapi } from "../../src/tools/ast/langs.js";
import { testdir } from "../helpers/testdir.js";
import { makeHost } from "../tools/helpers.js";
import { scanRules, type CliMatch } from "./cli.js";
import { rangeKey } from "./compare.js";
import { corpus, usable, type CorpusLang } from "./corpus.js";
import { rng, shuffle, type Source } from "./generate.js";
import { makeRules } from "./rules.js";

const env = (name: string, fallback: number) => {
  const v = process.env[name];
  return v === undefined || v === "" ? fallback : Number(v);
};
const RULES = env("TOLLGATE_DIFF_RULES", 40);
const SEED = env("TOLLGATE_DIFF_SEED", 20260);
const FILES = 12;
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
const firstLine = (text: string) => text.split("\n", 1)[0]!;
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
