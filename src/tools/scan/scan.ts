/**
 * One ast_scan over a file set: which rules apply to which file (language, languageGlobs,
 * files/ignores, severity off, --filter), their matches as findings, and each rule's fixes as
 * edits per file. No staging here (ast-scan.ts does that); pure of the session.
 */
import { discoverFiles } from "../../discovery/index.js";
import { ToolError } from "../../errors.js";
import { messageOf } from "../../util/thrown.js";
import { globMatcher } from "../../policy/glob.js";
import type { FileScope } from "../host.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { ResultCache } from "../../cache/index.js";
import type { EngineJob } from "../ast/engine.js";
import { ensureLanguages, langById, langOfPath, loadNapi } from "../ast/langs.js";
import { buildPrefilter, patternCaptures } from "../ast/pattern.js";
import { processFiles, type AstTuning } from "../ast/pool.js";
import { LineIndex, type RawMatch } from "../ast/rewrite.js";
import { describeSkip } from "../ast/search.js";
import { evaluateMatch, type Evaluated } from "./fix.js";
import { renderFix, renderMessage, type TemplateEnv } from "./template.js";
import { traversalMatcher, type RuleMatcher } from "./matcher.js";
import type { ProjectConfig, ScanRule, Severity } from "./types.js";
import type { Env } from "../../process-host.js";

export interface Position {
  line: number;
  column: number;
}

/** One match of one rule. Lines and columns are 1-based, columns in UTF-16 units. */
export interface Finding {
  rule: string;
  severity: Exclude<Severity, "off">;
  message: string;
  note?: string;
  url?: string;
  path: string;
  start: Position;
  end: Position;
  /** The matched text (first line, cut). */
  text: string;
  /** Id of the pending action holding this finding's fix. */
  fix?: string;
  /** The fix's replacement text and replaced range, when the finding has one. */
  replacement?: { start: Position; end: Position; text: string };
}

/** A rule's fixes in one file: edits against the text whose hash is `sha256`. */
export interface FileFix {
  path: string;
  sha256: string;
  /** The text the hash is of (staging then need not read the file again). */
  text?: string;
  edits: Array<{ start: number; end: number; text: string }>;
}

export interface RuleFixes {
  rule: ScanRule;
  files: FileFix[];
  count: number;
}

export interface ScanOutput {
  findings: Finding[];
  fixes: RuleFixes[];
  filesSearched: number;
  unreadable: Array<{ path: string; reason: string }>;
  /**
   * Matches resting on a syntax error (an ERROR node or a MISSING token outside their
   * captures): neither a finding nor a fix, listed with their position.
   */
  parseIssues: Array<{ rule: string; path: string; start: Position }>;
}

export interface ScanInput {
  workspace: Workspace;
  scope: FileScope;
  gitTimeoutMs?: number | undefined;
  /** The environment git runs with (discovery: GIT_DIR); absent: no git variables set. */
  env?: Env | undefined;
  rules: ScanRule[];
  config?: ProjectConfig | undefined;
  path?: string | undefined;
  glob?: string | undefined;
  signal?: AbortSignal | undefined;
  matcher?: RuleMatcher;
  /** `--cache`: answers kept across runs (a hit does not parse). */
  cache?: ResultCache | undefined;
  /** How the engine may use the machine (threads, forced collections; the host's `ast`). */
  tuning?: AstTuning | undefined;
}

/** A finding's position, its column in characters as the CLI's (LineIndex). */
function posAt(index: LineIndex, offset: number): Position {
  const { line, col } = index.pos(offset);
  return { line, column: col };
}

/**
 * The pattern of a rule the engine runs as a plain pattern op, as ast_edit's are (prefilter,
 * region parsing, the marker walk, parallel parsing): a rule that is a lone `pattern` string, no
 * constraints, transforms or rewriters, and a fix without expansions, so its message and fix
 * read only the pattern's captures. Other rules are matched on napi nodes (matcher.ts).
 */
function plainPattern(rule: ScanRule): string | undefined {
  const keys = Object.keys(rule.rule);
  if (keys.length !== 1 || typeof rule.rule.pattern !== "string") return undefined;
  if (rule.constraints || rule.transform || rule.rewriters?.length) return undefined;
  if (rule.fix?.expandStart || rule.fix?.expandEnd) return undefined;
  return rule.rule.pattern;
}

/** A match's metavariables from the engine's capture ranges (`declared`: the pattern's, name → multi). */
class CaptureEnv implements TemplateEnv {
  constructor(
    readonly text: string,
    readonly captures: RawMatch["captures"],
    readonly declared: ReadonlyMap<string, boolean>,
  ) {}
  // As the CLI: `$A` reads a single capture only, `$$$A` a multi capture only.
  single(name: string): [number, number] | undefined {
    return this.declared.get(name) === false ? (this.captures[name] ?? undefined) : undefined;
  }
  multi(name: string): [number, number] | undefined {
    return this.declared.get(name) === true ? (this.captures[name] ?? undefined) : undefined;
  }
  transformed(): string | undefined {
    return undefined;
  }
  isTransform(): boolean {
    return false;
  }
}

/** Message and fix of one engine match of a plain-pattern rule. */
function evaluateRaw(rule: ScanRule, declared: ReadonlyMap<string, boolean>, m: RawMatch, text: string): Evaluated {
  const env = new CaptureEnv(text, m.captures, declared);
  const out: Evaluated = { start: m.start, end: m.end, message: renderMessage(rule.message, env) };
  if (rule.fix) out.fix = { start: m.start, end: m.end, text: renderFix(rule.fix.parts, env, m.start) };
  return out;
}

/** What one file gave one rule: evaluated matches, and the matches skipped on syntax errors. */
interface RuleHits {
  good: Evaluated[];
  bad: Array<{ start: number; end: number }>;
}

interface FileHits {
  text: string;
  sha256: string;
  byRule: Map<ScanRule, RuleHits>;
}

/** Each rule's matches in one text (one parse for all): evaluated, and those resting on a syntax error. */
function matchRules(matcher: RuleMatcher, text: string, lang: string, rules: readonly ScanRule[]): RuleHits[] {
  const out: RuleHits[] = rules.map(() => ({ good: [], bad: [] }));
  for (const { rule, nodes } of matcher.matchFile(text, lang, rules).matches) {
    const h = out[rules.indexOf(rule)]!;
    for (const { node, bad } of nodes) {
      if (bad) {
        const r = node.range();
        h.bad.push({ start: r.start.index, end: r.end.index });
      } else h.good.push(evaluateMatch(rule, node, text));
    }
  }
  return out;
}

/**
 * What the scan has found so far, per file and rule; both paths (engine and napi nodes) add to
 * it, and their offsets must be into one text.
 */
class ScanHits {
  readonly unreadable: ScanOutput["unreadable"] = [];
  readonly searched = new Set<string>();
  readonly #files = new Map<string, FileHits>();

  of(rel: string, text: string, sha256: string, rule: ScanRule): RuleHits {
    let file = this.#files.get(rel);
    if (!file) this.#files.set(rel, (file = { text, sha256, byRule: new Map() }));
    let h = file.byRule.get(rule);
    if (!h) file.byRule.set(rule, (h = { good: [], bad: [] }));
    return h;
  }
  file(rel: string): FileHits | undefined {
    return this.#files.get(rel);
  }
  /** Hands a file's hits over once (the text is then released with them). */
  take(rel: string): FileHits | undefined {
    const fh = this.#files.get(rel);
    this.#files.delete(rel);
    return fh;
  }
  unreadableFile(rel: string, reason: string): void {
    if (!this.unreadable.some((u) => u.path === rel)) this.unreadable.push({ path: rel, reason });
  }
}

interface ScanFile {
  rel: string;
  abs: string;
  size: number;
  lang: string;
}

interface PlainRule {
  pat: string;
  declared: Map<string, boolean>;
}

/** One scan's fixed parts: the rules, which applies to which file, and what is found so far. */
interface ScanCtx {
  input: ScanInput;
  rules: readonly ScanRule[];
  matcher: RuleMatcher;
  plain: ReadonlyMap<ScanRule, PlainRule>;
  applies: (r: ScanRule, rel: string, lang: string) => boolean;
  /** The rule's files/ignores only (the language is checked apart). */
  inFiles: (r: ScanRule, rel: string) => boolean;
  hits: ScanHits;
}

/** A path's language: languageGlobs first (over the path or its base name), then the extension. */
export function languageOf(config: ProjectConfig | undefined): (rel: string) => string | undefined {
  const langGlobs = Object.entries(config?.languageGlobs ?? {}).map(([lang, globs]) => ({ lang, match: globMatcher(globs) }));
  return (rel) => {
    const base = rel.split("/").pop()!;
    for (const g of langGlobs) if (g.match(rel) || g.match(base)) return g.lang;
    return langOfPath(rel)?.id;
  };
}

/** Each rule's `files`/`ignores` as one test of a path. */
function ruleFileFilters(rules: readonly ScanRule[]): (r: ScanRule, rel: string) => boolean {
  const filters = new Map<ScanRule, (rel: string) => boolean>();
  for (const r of rules) {
    const inc = r.files?.length ? globMatcher(r.files) : undefined;
    const exc = r.ignores?.length ? globMatcher(r.ignores) : undefined;
    filters.set(r, (rel) => (!inc || inc(rel)) && !(exc && exc(rel)));
  }
  return (r, rel) => filters.get(r)!(rel);
}

function plainRules(rules: readonly ScanRule[]): Map<ScanRule, PlainRule> {
  const plain = new Map<ScanRule, PlainRule>();
  for (const r of rules) {
    const pat = plainPattern(r);
    if (pat !== undefined) plain.set(r, { pat, declared: patternCaptures(pat) });
  }
  return plain;
}

/** The engine job of one language's plain-pattern rules: one op per rule, in `own`'s order. */
function engineJob(ctx: ScanCtx, own: readonly ScanRule[], lang: string): EngineJob {
  const pats = own.map((r) => ctx.plain.get(r)!.pat);
  const captures = own.map((r) => Object.fromEntries(ctx.plain.get(r)!.declared));
  return {
    ops: pats.map((pat, i) => ({ pat, captures: captures[i]!, all: captures[i]! })),
    prefilter: { [lang]: buildPrefilter(pats, langById(lang), false) },
    maxFileBytes: ctx.input.workspace.maxFileBytes,
  };
}

/** Plain-pattern rules: the ast engine, one job per language. */
async function scanPlain(ctx: ScanCtx, files: readonly ScanFile[]): Promise<void> {
  const { input, hits } = ctx;
  const maxFileBytes = input.workspace.maxFileBytes;
  for (const lang of [...new Set([...ctx.plain.keys()].map((r) => r.lang))].sort()) {
    const own = [...ctx.plain.keys()].filter((r) => r.lang === lang);
    const candidates = files.filter((f) => f.lang === lang && own.some((r) => ctx.inFiles(r, f.rel)));
    if (candidates.length === 0) continue;
    const sizes = new Map(candidates.map((f) => [f.rel, f.size]));
    const results = await processFiles(
      candidates.map((f) => ({ rel: f.rel, abs: f.abs, lang })),
      engineJob(ctx, own, lang),
      { ...input.tuning, signal: input.signal, sizes, cache: input.cache },
    );
    for (const res of results) {
      if (res.status === "skipped") {
        hits.unreadable.push({ path: res.rel, reason: `Cannot read ${res.rel}: ${describeSkip(res.reason, maxFileBytes, res.message)}` });
        continue;
      }
      hits.searched.add(res.rel);
      if (res.status !== "matched") continue;
      for (const m of res.matches) {
        const rule = own[m.op]!;
        if (!ctx.applies(rule, res.rel, lang)) continue;
        const h = hits.of(res.rel, res.text, res.sha256, rule);
        if (m.bad) h.bad.push({ start: m.start, end: m.end });
        else h.good.push(evaluateRaw(rule, ctx.plain.get(rule)!.declared, m, res.text));
      }
    }
  }
}

/** One result-cache view per set of applicable rules (which set depends on the path: files/ignores). */
function scanCacheViews(ctx: ScanCtx): (applicable: ScanRule[]) => ReturnType<ResultCache["scan"]> {
  const views = new Map<string, ReturnType<ResultCache["scan"]>>();
  const { cache } = ctx.input;
  return (applicable) => {
    if (!cache) return undefined;
    const key = applicable.map((r) => ctx.rules.indexOf(r)).join(",");
    if (!views.has(key)) views.set(key, cache.scan(applicable));
    return views.get(key);
  };
}

/** Every other rule: matched and evaluated on napi nodes of a whole parse, file by file. */
async function scanNodes(ctx: ScanCtx, files: readonly ScanFile[]): Promise<void> {
  const { input, hits } = ctx;
  const scanCache = scanCacheViews(ctx);
  for (const file of files) {
    if (input.signal?.aborted) break;
    const applicable = ctx.rules.filter((r) => !ctx.plain.has(r) && ctx.applies(r, file.rel, file.lang));
    if (applicable.length === 0) continue;
    let read;
    try {
      read = await input.workspace.read(file.rel);
    } catch (err) {
      hits.unreadableFile(file.rel, messageOf(err));
      continue;
    }
    // Both paths' offsets must be into one text: a file changed between their reads is refused.
    const earlier = hits.file(file.rel);
    if (earlier && earlier.sha256 !== read.sha256) throw new ToolError(`${file.rel} changed while it was being scanned; run again`);
    hits.searched.add(file.rel);
    // The result cache answers for a file whose content and applicable rules it has seen.
    const cache = scanCache(applicable);
    const cached = cache?.get(file.lang, read);
    const answer = cached ?? matchRules(ctx.matcher, read.text, file.lang, applicable);
    if (cache && !cached) cache.put(file.lang, read, answer);
    for (const [i, { good, bad }] of answer.entries()) {
      if (good.length === 0 && bad.length === 0) continue;
      const h = hits.of(file.rel, read.text, read.sha256, applicable[i]!);
      h.good.push(...good);
      h.bad.push(...bad);
    }
  }
}

/** The first line of a match's text, cut at 200 characters. */
function matchedText(text: string, start: number, end: number): string {
  const firstLine = text.slice(start, end).split(/\r?\n/)[0]!;
  return firstLine.length > 200 ? `${firstLine.slice(0, 200)}…` : firstLine;
}

/**
 * One rule's findings and fix edits in one file, in document order. Within a rule, a fix
 * overlapping an earlier one is left out, as `--update-all` does; a fix that changes nothing
 * is no edit.
 */
export function ruleFindings(
  rule: ScanRule,
  path: string,
  text: string,
  index: LineIndex,
  good: Evaluated[],
): { findings: Finding[]; edits: FileFix["edits"] } {
  const findings: Finding[] = [];
  const edits: FileFix["edits"] = [];
  let lastEnd = -1;
  for (const ev of good.sort((a, b) => a.start - b.start || b.end - a.end)) {
    const finding: Finding = {
      rule: rule.id,
      severity: rule.severity as Finding["severity"],
      message: ev.message,
      ...(rule.note !== undefined ? { note: rule.note } : {}),
      ...(rule.url !== undefined ? { url: rule.url } : {}),
      path,
      start: posAt(index, ev.start),
      end: posAt(index, ev.end),
      text: matchedText(text, ev.start, ev.end),
    };
    if (ev.fix && ev.fix.start >= lastEnd && text.slice(ev.fix.start, ev.fix.end) !== ev.fix.text) {
      edits.push(ev.fix);
      lastEnd = ev.fix.end;
      finding.replacement = { start: posAt(index, ev.fix.start), end: posAt(index, ev.fix.end), text: ev.fix.text };
    }
    findings.push(finding);
  }
  return { findings, edits };
}

/** Findings and fixes in file order, then rule order, then document order. */
function collectOutput(ctx: ScanCtx, files: readonly ScanFile[]): ScanOutput {
  const findings: Finding[] = [];
  const parseIssues: ScanOutput["parseIssues"] = [];
  const fixes = new Map<ScanRule, RuleFixes>();
  for (const file of files) {
    const fh = ctx.hits.take(file.rel);
    if (!fh) continue;
    const index = new LineIndex(fh.text);
    for (const rule of ctx.rules) {
      const h = fh.byRule.get(rule);
      if (!h) continue;
      for (const b of h.bad) parseIssues.push({ rule: rule.id, path: file.rel, start: posAt(index, b.start) });
      const found = ruleFindings(rule, file.rel, fh.text, index, h.good);
      findings.push(...found.findings);
      if (found.edits.length === 0) continue;
      const entry = fixes.get(rule) ?? { rule, files: [], count: 0 };
      entry.files.push({ path: file.rel, sha256: fh.sha256, text: fh.text, edits: found.edits });
      entry.count += found.edits.length;
      fixes.set(rule, entry);
    }
  }
  return {
    findings,
    fixes: ctx.rules.flatMap((r) => (fixes.has(r) ? [fixes.get(r)!] : [])),
    filesSearched: ctx.hits.searched.size,
    unreadable: ctx.hits.unreadable,
    parseIssues,
  };
}

/** Runs the rules over the files; rules are already filtered (severity off, --filter). */
export async function runScan(input: ScanInput): Promise<ScanOutput> {
  const { rules } = input;
  const napi = await loadNapi();
  ensureLanguages(napi, [...new Set(rules.map((r) => r.lang))]);
  const langOf = languageOf(input.config);
  const wanted = new Set(rules.map((r) => r.lang));
  const discovery = await discoverFiles({
    root: input.workspace.root,
    path: input.path,
    glob: input.glob,
    scope: input.scope,
    gitTimeoutMs: input.gitTimeoutMs,
    env: input.env,
    accept: (rel) => {
      const l = langOf(rel);
      return l !== undefined && wanted.has(l);
    },
  });
  const inFiles = ruleFileFilters(rules);
  const ctx: ScanCtx = {
    input,
    rules,
    matcher: input.matcher ?? traversalMatcher(napi),
    plain: plainRules(rules),
    applies: (r, rel, lang) => r.lang === lang && inFiles(r, rel),
    inFiles,
    hits: new ScanHits(),
  };
  const files = discovery.files.map((f) => ({ ...f, lang: langOf(f.rel)! }));
  await scanPlain(ctx, files);
  await scanNodes(ctx, files);
  return collectOutput(ctx, files);
}
