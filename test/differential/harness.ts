/**
 * One language's generative differential run: real files copied to a temp directory, patterns
 * made from their nodes, every pattern matched by tollgate (ast_grep, in-process through the
 * real tool) and by the CLI over all the files, and rewrites applied by both (ast_edit applied
 * vs `ast-grep -U`) on copies of the pattern's source file.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SgRoot } from "@ast-grep/napi";
import { ensureLanguages, LANGS, loadNapi } from "../../src/tools/ast/langs.js";
import { makeHost } from "../tools/helpers.js";
import { cliErrors, rewriteFile, runPattern, runPatterns, type CliMatch } from "./cli.js";
import { grammarsAgree } from "./grammar.js";
import {
  compareLines,
  compareMatches,
  composeInsideOut,
  insideOut,
  inUsedCapture,
  lineStarts,
  nest,
  rangeKey,
  stringLineStarts,
  Verdict,
  type TgMatch,
} from "./compare.js";
import { usable, type CorpusLang } from "./corpus.js";
import { candidates, makePattern, makeRewrite, neverEmpty, pick, rng, shuffle, type Generated, type RewriteCase, type Source } from "./generate.js";

export interface Budget {
  seed: number;
  /** Patterns per language. */
  patterns: number;
  /** Rewrite cases per language. */
  rewrites: number;
  /** Files per language matched by every pattern. */
  files: number;
}

export interface LanguageRun {
  lang: string;
  files: number;
  /** Files whose parse (napi's) has error nodes: there the syntax-error difference may apply. */
  filesWithErrors: number;
  patterns: Generated[];
  rewrites: RewriteCase[];
  matchesCli: number;
  matchesTollgate: number;
  verdict: Verdict;
}

const hash = (s: string) => Array.from(s).reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);

async function parser(l: CorpusLang): Promise<(text: string) => SgRoot> {
  const napi = await loadNapi();
  ensureLanguages(napi, [LANGS.find((x) => x.id === l.napi)!.id]);
  return (text) => napi.parse(l.napi, text);
}

const hasError = (root: SgRoot) => root.root().find({ rule: { kind: "ERROR" } }) !== null;

/** Copies up to `count` usable files of the language, in the seed's order. */
function copyFiles(l: CorpusLang, r: () => number, count: number, dir: string, parse: (t: string) => SgRoot): Source[] {
  const out: Source[] = [];
  for (const abs of shuffle(r, l.files)) {
    if (out.length >= count) break;
    if (!usable(abs, 40_000)) continue;
    const stem = path.basename(abs).replace(/\.[^.]+$/, "");
    const file = `f${String(out.length).padStart(2, "0")}-${stem.replace(/[^A-Za-z0-9_.-]/g, "_")}${l.ext}`;
    copyFileSync(abs, path.join(dir, file));
    const text = readFileSync(path.join(dir, file), "utf8");
    const root = parse(text);
    if (l.cleanOnly && hasError(root)) {
      rmSync(path.join(dir, file));
      continue;
    }
    out.push({ file, text, root });
  }
  return out;
}

/** Copies of `count` clean files, each with one closing bracket deleted where that makes the parse have an error. */
function damage(r: () => number, clean: Source[], count: number, dir: string, parse: (t: string) => SgRoot): Source[] {
  const out: Source[] = [];
  for (const s of shuffle(r, clean)) {
    if (out.length >= count) break;
    const closers = [...s.text.matchAll(/[)}\]]/g)].map((m) => m.index);
    for (let attempt = 0; attempt < 5 && closers.length > 0; attempt++) {
      const at = pick(r, closers);
      const text = s.text.slice(0, at) + s.text.slice(at + 1);
      const root = parse(text);
      if (!hasError(root)) continue;
      const file = s.file.replace(/^f(\d+)-/, "f$1-damaged-");
      writeFileSync(path.join(dir, file), text);
      out.push({ file, text, root });
      break;
    }
  }
  return out;
}

/** Patterns for the budget: every other one multi-line, two in three with `$$$`, when the code allows. */
function generate(r: () => number, sources: Source[], clean: Set<string>, count: number): Generated[] {
  const pool = sources
    .filter((s) => clean.has(s.file))
    .map((s) => {
      const nodes = candidates(s.root);
      return { s, nodes, multiLine: nodes.filter((n) => n.text().includes("\n")) };
    })
    .filter((x) => x.nodes.length > 0);
  const out: Generated[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < count && pool.length > 0; i++) {
    const wantLines = i % 2 === 0;
    const wantMulti = i % 3 !== 2;
    for (let attempt = 0; attempt < 120; attempt++) {
      const strict = attempt < 80;
      const { s, nodes, multiLine } = pick(r, pool);
      const n = pick(r, wantLines && strict && multiLine.length > 0 ? multiLine : nodes);
      const g = makePattern(r, s, n, strict ? wantMulti : r() < 0.5);
      if (!g || seen.has(g.pattern)) continue;
      if (strict && wantLines && !g.multiLine) continue;
      seen.add(g.pattern);
      out.push(g);
      break;
    }
  }
  return out;
}

function chooseRewrites(
  r: () => number,
  lang: string,
  patterns: Generated[],
  count: number,
  kinds: Map<Generated, string>,
  roots: Map<string, SgRoot>,
): RewriteCase[] {
  // Multi-line and `$$$` patterns first (their rewrites move and re-indent multi-line captures),
  // and those with two metavariables of one kind (they can be swapped or duplicated).
  const pair = (g: Generated) => {
    const kinds = [...g.vars.values()].filter((k) => !k.startsWith("list:"));
    return new Set(kinds).size < kinds.length ? 1 : 0;
  };
  const score = (g: Generated) => Number(g.multiLine) + Number(g.multi) + pair(g);
  const ranked = shuffle(r, patterns).sort((a, b) => score(b) - score(a));
  const out: RewriteCase[] = [];
  for (const g of ranked) {
    if (out.length >= count) break;
    const c = makeRewrite(r, lang, g, kinds.get(g) ?? "", neverEmpty(g, roots.get(g.file)!));
    if (c) out.push(c);
  }
  return out;
}

export async function runLanguage(l: CorpusLang, budget: Budget, root: string): Promise<LanguageRun> {
  const r = rng(budget.seed ^ hash(l.lang));
  const parse = await parser(l);
  const matchDir = path.join(root, "match");
  mkdirSync(matchDir, { recursive: true });
  const copied = copyFiles(l, r, budget.files, matchDir, parse);
  const withErrors = new Set(copied.filter((s) => hasError(s.root)).map((s) => s.file));
  const clean = new Set(copied.map((s) => s.file).filter((f) => !withErrors.has(f)));
  const patterns = generate(r, copied, clean, budget.patterns);
  // Damaged copies of clean files (a closing bracket deleted) are matched too: real code with
  // a syntax error, where the syntax-error difference is the only one allowed.
  const damaged = damage(
    r,
    copied.filter((s) => clean.has(s.file)),
    Math.max(1, Math.floor(budget.files / 4)),
    matchDir,
    parse,
  );
  for (const s of damaged) withErrors.add(s.file);
  const sources = [...copied, ...damaged];
  const kinds = new Map<Generated, string>();
  for (const g of patterns) {
    const s = sources.find((x) => x.file === g.file)!;
    const node = s.root.root().find({ rule: { pattern: g.pattern } });
    kinds.set(g, node ? String(node.kind()) : "");
  }
  const v = new Verdict();
  const run: LanguageRun = {
    lang: l.lang,
    files: sources.length,
    filesWithErrors: withErrors.size,
    patterns,
    rewrites: [],
    matchesCli: 0,
    matchesTollgate: 0,
    verdict: v,
  };
  if (patterns.length === 0) return run;

  const texts = new Map(sources.map((s) => [s.file, s.text]));
  const grep = await makeHost(matchDir).call("ast_grep", { pat: patterns.map((g) => g.pattern), lang: l.lang, limit: 10_000_000 });
  const tgAll = grep.details.matches as Array<TgMatch & { pattern: string }>;
  // The same call with the work forced into the pool's threads (whole files matched in napi's threads).
  const pooled = await makeHost(matchDir, {}, { ast: { threads: 2 } }).call("ast_grep", {
    pat: patterns.map((g) => g.pattern),
    lang: l.lang,
    limit: 10_000_000,
  });
  const tgPooled = pooled.details.matches as Array<TgMatch & { pattern: string }>;
  const cliAll = runPatterns(
    matchDir,
    l.cli,
    patterns.map((g) => g.pattern),
  );
  const errorsOfCli = cliErrors(matchDir, l.cli);
  run.matchesCli = cliAll.length;
  run.matchesTollgate = tgAll.length;
  for (const [i, g] of patterns.entries()) {
    const agree = grammarsAgree(l.lang, g.pattern);
    const cli = cliAll.filter((m) => m.ruleId === `p${i}`);
    const tg = tgAll.filter((m) => m.pattern === g.pattern);
    compareMatches(
      {
        lang: l.lang,
        pattern: g.pattern,
        texts,
        withErrors,
        cli,
        tg,
        parseErrors: grep.details.parseErrors,
        cliErrors: errorsOfCli,
        grammarsAgree: agree,
        how: "searched with the other patterns",
      },
      v,
    );
    const inPool = tgPooled.filter((m) => m.pattern === g.pattern);
    compareMatches(
      {
        lang: l.lang,
        pattern: g.pattern,
        texts,
        withErrors,
        cli,
        tg: inPool,
        parseErrors: pooled.details.parseErrors,
        cliErrors: errorsOfCli,
        grammarsAgree: agree,
        how: "searched with the other patterns in the pool's threads",
      },
      v,
    );
    // Alone, as a step with one pattern runs (prefilters and region parsing see only its tokens).
    const alone = await makeHost(matchDir).call("ast_grep", { pat: [g.pattern], lang: l.lang, limit: 10_000_000 });
    compareMatches(
      {
        lang: l.lang,
        pattern: g.pattern,
        texts,
        withErrors,
        cli,
        tg: alone.details.matches,
        parseErrors: alone.details.parseErrors,
        cliErrors: errorsOfCli,
        grammarsAgree: agree,
        how: "searched alone",
      },
      v,
    );
    const key = sourceKey(texts.get(g.file)!, g);
    if (!cli.some((m) => m.file === g.file && rangeKey(m) === key)) {
      const head = `${l.lang} ${g.file}: pattern ${JSON.stringify(g.pattern)} does not match its own source node (${key}) in the CLI`;
      // Made with napi's grammar: where the CLI's grammar parses the pattern otherwise, it may match other nodes.
      if (agree) v.fail(head);
      else v.judge({ kind: "grammars", agree: false }, () => head);
    }
    if (!tg.some((m) => m.path === g.file && rangeKey(m) === key))
      v.fail(`${l.lang} ${g.file}: pattern ${JSON.stringify(g.pattern)} does not match its own source node (${key}) in tollgate`);
  }

  run.rewrites = chooseRewrites(r, l.lang, patterns, budget.rewrites, kinds, new Map(sources.map((s) => [s.file, s.root])));
  for (const [k, c] of run.rewrites.entries()) await compareRewrite(l, c, path.join(root, `rw${k}`), texts.get(c.file)!, parse, v);
  return run;
}

/** The `line:col-line:col` range of a pattern's source node. */
function sourceKey(text: string, g: Generated): string {
  const starts = lineStarts(text);
  const pos = (o: number) => {
    let line = starts.length - 1;
    while (starts[line]! > o) line--;
    return { line: line + 1, col: o - starts[line]! + 1 };
  };
  const a = pos(g.start);
  const b = pos(g.end);
  return rangeKey({ line: a.line, col: a.col, endLine: b.line, endCol: b.col });
}

const templateNames = (out: string) => new Set([...out.matchAll(/\$(?:\$\$)?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!));

function excerpt(a: string, b: string): string {
  const x = a.split("\n");
  const y = b.split("\n");
  const rows: string[] = [];
  for (let i = 0; i < Math.max(x.length, y.length) && rows.length < 12; i++) {
    if (x[i] === y[i]) continue;
    rows.push(`  line ${i + 1}:\n    tollgate: ${JSON.stringify(x[i] ?? null)}\n    ast-grep: ${JSON.stringify(y[i] ?? null)}`);
  }
  return rows.join("\n");
}

async function compareRewrite(l: CorpusLang, c: RewriteCase, dir: string, source: string, parse: (t: string) => SgRoot, v: Verdict): Promise<void> {
  const cliDir = path.join(dir, "cli");
  const tgDir = path.join(dir, "tg");
  const scratchDir = path.join(dir, "scratch");
  for (const d of [cliDir, tgDir, scratchDir]) {
    mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, c.file), source);
  }
  const head = () => `${l.lang} ${c.file}: pattern ${JSON.stringify(c.pattern)} -> ${JSON.stringify(c.out)} (${c.how})`;
  const cliMatches = runPattern(cliDir, c.file, l.cli, c.pattern, c.out);
  rewriteFile(cliDir, c.file, l.cli, c.pattern, c.out);
  const cliOut = readFileSync(path.join(cliDir, c.file), "utf8");
  const t = makeHost(tgDir);
  let details: { parseErrors?: string[] };
  try {
    details = (await t.call("ast_edit", { ops: [{ pat: c.pattern, out: c.out }], lang: l.lang })).details;
    if (t.actions.length > 0) await t.actions[0]!.apply("differential");
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!grammarsAgree(l.lang, c.pattern)) v.judge({ kind: "grammars", agree: false }, head);
    else judgeRefusal(c, message, cliMatches, v, head);
    return;
  }
  const tgOut = readFileSync(path.join(tgDir, c.file), "utf8");
  if (tgOut === cliOut) return;
  if (!grammarsAgree(l.lang, c.pattern)) {
    v.judge({ kind: "grammars", agree: false }, head);
    return;
  }
  const skipped = new Set((details.parseErrors ?? []).map((e) => Number(/:(\d+):\d+: parse error \(the match rests/.exec(e)?.[1])).filter((n) => n > 0));
  const langInfo = LANGS.find((x) => x.id === l.napi)!;
  const facts = { crlf: source.includes("\r\n"), stringLines: stringLineStarts(parse(tgOut).root(), tgOut, langInfo.stringKinds), skippedLines: skipped };
  if (compareLines(source, tgOut, cliOut, facts, v, head).explained) return;
  const used = templateNames(c.out);
  const nested = nest(cliMatches, used);
  if ("levels" in nested && nested.levels.some((x) => x.depth > 0)) {
    const emulated = insideOut(source, nested.levels, (text) => {
      writeFileSync(path.join(scratchDir, c.file), text);
      return runPattern(scratchDir, c.file, l.cli, c.pattern, c.out);
    });
    const agrees = (base: string | undefined) => base !== undefined && (base === tgOut || compareLines(source, tgOut, base, facts, v, head).explained);
    // Applied inside-out by the CLI (parsing each level's text again), or, where an inner result
    // parses otherwise, the CLI's own replacements composed inside-out.
    const composed = agrees(emulated) ? undefined : composeInsideOut(source, nested.levels);
    if (agrees(emulated) || agrees(composed)) {
      v.judge({ kind: "nested-rewrite", nestedInCapture: nested.levels.filter((x) => x.depth > 0).length }, head);
      return;
    }
    v.fail(
      `${head()}: the rewritten file differs from the CLI's, also applied inside-out${emulated === undefined ? " (not found again with its captures where they were: an inner rewrite changes how the CLI parses the enclosing match; compared with the CLI's replacements composed inside-out)" : ""}\n${excerpt(tgOut, emulated ?? composed ?? cliOut)}`,
    );
    return;
  }
  v.fail(`${head()}: the rewritten file differs from the CLI's\n${excerpt(tgOut, cliOut)}`);
}

function judgeRefusal(c: RewriteCase, message: string, cli: CliMatch[], v: Verdict, head: () => string): void {
  const used = templateNames(c.out);
  const re = new RegExp(`${c.file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+):(\\d+)-(\\d+):(\\d+)`, "g");
  // Each listed pair names the inner range, then the outer one (patterns in between may span lines).
  const found = [...message.split("\n").slice(1).join("\n").matchAll(re)].map((m) => `${m[1]}:${m[2]}-${m[3]}:${m[4]}`);
  const ranges = Array.from({ length: Math.floor(found.length / 2) }, (_, i) => [found[2 * i], found[2 * i + 1]] as const);
  const byKey = (k: string | undefined) => cli.find((m) => rangeKey(m) === k);
  const confirmed = ranges.every(([b, a]) => {
    const inner = byKey(b);
    const outer = byKey(a);
    if (!inner || !outer) return false;
    const crosses = inner.start < outer.end && outer.start < inner.end && (inner.end > outer.end || inner.start < outer.start);
    const same = inner.start === outer.start && inner.end === outer.end;
    return crosses || same || !inUsedCapture(outer, inner, used);
  });
  v.judge(
    { kind: "refused", overlapError: message.startsWith("Overlapping replacements detected"), pairsConfirmed: confirmed, pairs: ranges.length },
    () =>
      `${head()}: tollgate refused the rewrite the CLI applied (${cli.length} matches)\n  tollgate: ${message.split("\n").slice(0, 4).join("\n            ")}`,
  );
}
