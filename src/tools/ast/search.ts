/**
 * The shared front of ast_grep and ast_edit: language resolution and inference, pattern
 * validation, file discovery, and the parallel per-file scan.
 */
import type { ToolUpdateCallback } from "../../domain/types.js";
import path from "node:path";
import { ToolError } from "../../errors.js";
import { discoverFiles, type Discovery } from "../../discovery/index.js";
import type { FileScope } from "../host.js";
import type { EngineFile, EngineJob, FileResult, ParseIssue, SkipReason } from "./engine.js";
import { matcherOf } from "./engine.js";
import { ensureLanguages, expandoChar, langById, langOfPath, loadNapi, resolveLang, type LangInfo, type Napi } from "./langs.js";
import { buildPrefilter, patternCaptures, type PrefilterSpec } from "./pattern.js";
import { fixedString } from "./fixed-string.js";
import { streamFiles, type AstTuning, type PoolOptions } from "./pool.js";
import { LineIndex, type RawMatch } from "./rewrite.js";
import { messageOf } from "../../util/thrown.js";
import type { Env } from "../../process-host.js";

interface SearchInput {
  toolName: "ast_grep" | "ast_edit";
  root: string;
  pats: string[];
  /** Captures each op needs (name → multi). */
  captures: Array<Record<string, boolean>>;
  /** Every capture of each op's pattern (defaults to `captures`). */
  allCaptures?: Array<Record<string, boolean>>;
  lang?: string | undefined;
  path?: string | undefined;
  glob?: string | undefined;
  sel?: string | undefined;
  scope?: FileScope | undefined;
  gitTimeoutMs?: number | undefined;
  /** The environment git runs with (discovery: GIT_DIR); absent: no git variables set. */
  env?: Env | undefined;
  maxFileBytes: number;
  signal?: AbortSignal | undefined;
  /** Progress for live displays (the tool's onUpdate). */
  onUpdate?: ToolUpdateCallback | undefined;
  /** Where pattern i sits among the step's parameters (`ops[i].pat`), for error messages. */
  patWhere?: ((i: number) => string) | undefined;
  /**
   * Receives each searched file's result as it is ready (completion order; `index` is its place
   * in `files`, discovery order). `results` then stays empty: the caller keeps what it needs.
   */
  onResult?: ((result: FileResult, index: number, files: readonly EngineFile[]) => void) | undefined;
  /** `--cache`: answers kept across runs (a hit does not parse). */
  cache?: PoolOptions["cache"];
  /** How the engine may use the machine (the world's; absent: automatic). */
  tuning?: AstTuning | undefined;
  /** Called once the files and languages are known, before the first result. */
  onStart?: ((s: Pick<SearchOutcome, "discovery" | "langOf" | "prefilter">) => void) | undefined;
}

export interface SearchOutcome {
  napi: Napi;
  discovery: Discovery;
  /** Language id per candidate file. */
  langOf: Map<string, string>;
  langs: string[];
  /** Every file's result in discovery order (empty when `onResult` took them). */
  results: FileResult[];
  skipped: Array<{ path: string; reason: SkipReason; message?: string }>;
  filesSearched: number;
  /** The prefilter per language (also drives region parsing; the rebase reuses it). */
  prefilter: Record<string, PrefilterSpec>;
  /** Languages left out of a mixed-language search because a pattern is invalid in them. */
  patternIssues: string[];
  /** Patterns accepted with an ERROR node in them, by op (the CLI warns when such a pattern matched nothing). */
  patternWarnings: Array<{ op: number; text: string }>;
}

const SKIP_TEXT: Record<SkipReason, string> = {
  binary: "binary file",
  "non-utf8": "not valid UTF-8",
  "too-large": "too large",
  unreadable: "unreadable",
};

export function describeSkip(reason: SkipReason, maxFileBytes: number, message?: string): string {
  if (reason === "too-large") return `larger than ${maxFileBytes} bytes`;
  if (reason === "unreadable" && message) return `unreadable (${message})`;
  return SKIP_TEXT[reason];
}

const CHECKED_LANGS = new Set(["TypeScript", "Tsx", "JavaScript", "python", "go", "rust"]);

/**
 * Checks a pattern as the ast-grep CLI does: what its core refuses (several nodes,
 * no node, an unknown selector kind) is a ToolError with the core's reason and the pattern's
 * place among the step's parameters (`where`, e.g. `ops[1].pat`). A pattern that parses with
 * an ERROR node is accepted, as the CLI accepts it (`import { $$$I } from $S`: `$S` is no
 * string literal), and returns the CLI's warning.
 */
export function validatePattern(napi: Napi, lang: string, pat: string, sel: string | undefined, where?: string): string | undefined {
  const name = langById(lang).name;
  try {
    napi
      .parse(lang as never, "")
      .root()
      .findAll(matcherOf(pat, sel) as never);
  } catch (err) {
    // napi reports a rule error as a chain (`rule` is not configured correctly / |->…): the
    // last link is the core's reason, the one the CLI's `--debug-query` shows.
    const lines = messageOf(err)
      .split("\n")
      .map((l) => l.replace(/^\s*\|->/, "").trim())
      .filter(Boolean);
    const msg = lines[lines.length - 1] ?? "invalid pattern";
    throw new ToolError(`Invalid pattern for ${name}: ${pat}: ${msg}${where ? ` (${where})` : ""}`);
  }
  // Only where a metavariable is itself valid syntax (an identifier) can an ERROR node in the
  // parsed pattern be told apart from the metavariables; in CSS, HTML and JSON `$A` never is.
  if (sel || !CHECKED_LANGS.has(lang)) return undefined;
  const expando = expandoChar(lang);
  const source = expando === "$" ? pat : pat.replace(/\$(?=\$*[A-Z_])/g, expando);
  const error = napi
    .parse(lang as never, source)
    .root()
    .find({ rule: { kind: "ERROR" } });
  if (!error) return undefined;
  return `Pattern ${JSON.stringify(pat)} (${name}${where ? `, ${where}` : ""}) contains an ERROR node and may cause unexpected results (the ast-grep CLI's warning)`;
}

/**
 * The prefilter with each pattern's fixed string as the text its files must hold (the CLI's
 * `run` check; a contextual pattern's is its selected node's).
 */
function withFixedStrings(napi: Napi, lang: string, pats: readonly string[], spec: PrefilterSpec, sel: string | undefined): PrefilterSpec {
  const files = pats.map((pat) => fixedString(napi, lang, pat, sel));
  if (spec === null && files.every((f) => f === "")) return null;
  return (spec ?? pats.map(() => ({ words: [], runs: [] }))).map((req, i) => (files[i] === "" ? req : { ...req, file: files[i]! }));
}

export async function runSearch(input: SearchInput): Promise<SearchOutcome> {
  const explicitLang: LangInfo | undefined = input.lang !== undefined && input.lang.trim() !== "" ? resolveLang(input.lang) : undefined;
  const discovery = await discoverFiles({
    root: input.root,
    path: input.path,
    glob: input.glob,
    scope: input.scope,
    gitTimeoutMs: input.gitTimeoutMs,
    env: input.env,
    ...(explicitLang ? { accept: (rel: string) => explicitLang.extensions.includes(path.posix.extname(rel).toLowerCase()) } : {}),
  });
  const langOf = languagesOf(input, discovery, explicitLang);
  const napi = await loadNapi();
  const initial = [...new Set(langOf.values())].sort();
  ensureLanguages(napi, initial.length > 0 ? initial : explicitLang ? [explicitLang.id] : []);
  const { langs, patternIssues, warnings } = checkPatterns(input, napi, langOf, initial, explicitLang);

  const prefilter: Record<string, PrefilterSpec> = {};
  for (const lang of langs)
    prefilter[lang] = withFixedStrings(napi, lang, input.pats, buildPrefilter(input.pats, langById(lang), Boolean(input.sel)), input.sel);
  const job: EngineJob = {
    ops: input.pats.map((pat, i) => ({ pat, captures: input.captures[i] ?? {}, all: input.allCaptures?.[i] ?? input.captures[i] ?? {} })),
    ...(input.sel ? { sel: input.sel } : {}),
    prefilter,
    maxFileBytes: input.maxFileBytes,
  };
  const files: EngineFile[] = discovery.files.filter((f) => langOf.has(f.rel)).map((f) => ({ rel: f.rel, abs: f.abs, lang: langOf.get(f.rel)! }));
  input.onStart?.({ discovery, langOf, prefilter });
  const { results, skipped, filesSearched } = await searchFiles(input, discovery, files, job);
  return {
    napi,
    discovery,
    langOf,
    langs,
    results,
    skipped,
    filesSearched,
    prefilter,
    patternIssues,
    patternWarnings: [...warnings].map(([text, op]) => ({ op, text })),
  };
}

/** Each discovered file's language: the step's `lang`, else inferred per file (one family for ast_edit). */
function languagesOf(input: SearchInput, discovery: Discovery, explicitLang: LangInfo | undefined): Map<string, string> {
  const langOf = new Map<string, string>();
  if (explicitLang) {
    for (const f of discovery.files) langOf.set(f.rel, explicitLang.id);
  } else {
    const unknown: string[] = [];
    for (const f of discovery.files) {
      const lang = langOfPath(f.rel);
      if (lang) langOf.set(f.rel, lang.id);
      else unknown.push(f.rel);
    }
    // The run's file scope (positional files from pre-commit, --shard) may leave a step no
    // code file at all: that is nothing to do, not a recipe error (a commit touching only
    // README.md, a shard that drew no file of this step).
    const restricted = input.scope?.files !== undefined || input.scope?.changed?.files != null || input.scope?.shard !== undefined;
    if (langOf.size === 0 && !restricted) {
      if (discovery.files.length === 0) throw new ToolError(`\`lang\` is required for ${input.toolName} when no files match path/glob`);
      if (discovery.singleFile || discovery.source === "explicit") {
        throw new ToolError(
          `\`lang\` is required for ${input.toolName} when language cannot be inferred from all files: ${unknown.slice(0, 10).join(", ")}${unknown.length > 10 ? ", …" : ""}`,
        );
      }
      throw new ToolError(`\`lang\` is required for ${input.toolName} when no files match path/glob`);
    }
    // JSON files (package.json, tsconfig.json, a report) sit beside the code in nearly every
    // project: they make the inference ambiguous only when nothing but data is there.
    const isJson = (id: string) => langById(id).family === "json";
    if ([...langOf.values()].some(isJson) && [...langOf.values()].some((id) => !isJson(id))) {
      for (const [rel, id] of langOf) if (isJson(id)) langOf.delete(rel);
    }
    const families = new Map<string, Set<string>>();
    for (const id of langOf.values()) {
      const info = langById(id);
      const set = families.get(info.family) ?? new Set<string>();
      set.add(info.name);
      families.set(info.family, set);
    }
    // ast_edit rewrites with one language; ast_grep, like the ast-grep CLI, reads every file
    // in its own language.
    if (families.size > 1 && input.toolName === "ast_edit") {
      const names = [...families.values()].flatMap((s) => [...s]).sort();
      throw new ToolError(`\`lang\` is required for ${input.toolName} when path/glob resolves to multiple languages: ${names.join(", ")}`);
    }
  }
  return langOf;
}

/**
 * Every pattern checked in every language; with mixed languages (ast_grep) a pattern invalid in
 * one of them leaves that language's files out (listed), invalid in all of them is the error.
 */
function checkPatterns(input: SearchInput, napi: Napi, langOf: Map<string, string>, initial: string[], explicitLang: LangInfo | undefined) {
  let langs = initial;
  const patternIssues: string[] = [];
  const warnings = new Map<string, number>();
  const check = (lang: string, pat: string, i: number) => {
    const w = validatePattern(napi, lang, pat, input.sel, input.patWhere?.(i));
    if (w) warnings.set(w, i);
  };
  if (langs.length > 1 && input.toolName === "ast_grep") {
    // Mixed languages (ast_grep): a pattern that is not valid in one of them leaves that
    // language's files out, listed as a parse issue; invalid in all of them is the error.
    let first: unknown;
    const dropped = new Set<string>();
    for (const lang of langs) {
      for (const [i, pat] of input.pats.entries()) {
        try {
          check(lang, pat, i);
        } catch (err) {
          first ??= err;
          dropped.add(lang);
          patternIssues.push(messageOf(err));
          break;
        }
      }
    }
    if (dropped.size === langs.length) throw first;
    for (const [rel, id] of langOf) if (dropped.has(id)) langOf.delete(rel);
    langs = langs.filter((id) => !dropped.has(id));
  } else {
    for (const lang of langs.length > 0 ? langs : explicitLang ? [explicitLang.id] : []) {
      for (const [i, pat] of input.pats.entries()) check(lang, pat, i);
    }
  }

  return { langs, patternIssues, warnings };
}

/** The engine over the files: results in file order (or to the sink), skips listed in file order. */
async function searchFiles(input: SearchInput, discovery: Discovery, files: EngineFile[], job: EngineJob) {
  const sizes = new Map(discovery.files.map((f) => [f.rel, f.size]));
  // Discovery's own skips (FIFOs, devices, names not UTF-8) are listed with the engine's.
  const skipped: SearchOutcome["skipped"] = discovery.skipped.map((s) => ({ path: s.rel, reason: "unreadable" as const, message: s.message }));
  const engineSkips: Array<SearchOutcome["skipped"][number] & { index: number }> = [];
  let filesSearched = 0;
  const results: FileResult[] = input.onResult ? [] : new Array<FileResult>(files.length);
  const sink = input.onResult;
  await streamFiles(
    files,
    job,
    (r, index) => {
      if (r.status === "skipped") engineSkips.push({ index, path: r.rel, reason: r.reason, ...(r.message ? { message: r.message } : {}) });
      else filesSearched++;
      if (sink) sink(r, index, files);
      else results[index] = r;
    },
    { ...input.tuning, signal: input.signal, sizes, progress: progressReporter(input.onUpdate), cache: input.cache },
  );
  engineSkips.sort((a, b) => a.index - b.index);
  for (const { index: _index, ...s } of engineSkips) skipped.push(s);
  return { results, skipped, filesSearched };
}

/** Capture names of a pattern (name → multi), for ast_grep's meta display. */
export function allCaptures(pat: string): Record<string, boolean> {
  return Object.fromEntries(patternCaptures(pat));
}

/** Display path: relative to the scope's base directory (basename for a single file). */
export function scopeDisplay(rel: string, discovery: Discovery): string {
  if (discovery.singleFile) return path.posix.basename(rel);
  const base = discovery.baseDir;
  return base === "." ? rel : rel.startsWith(`${base}/`) ? rel.slice(base.length + 1) : rel;
}

/** Groups display paths by directory, first-seen order. */
export function groupByDir<T extends { display: string }>(items: readonly T[]): Array<{ dir: string; items: T[] }> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const dir = path.posix.dirname(item.display);
    const list = groups.get(dir) ?? [];
    list.push(item);
    groups.set(dir, list);
  }
  return [...groups.entries()].map(([dir, list]) => ({ dir, items: list }));
}

export function cut(text: string, max = 120): string {
  const first = text.split(/\r?\n/, 1)[0] ?? "";
  return first.length > max ? `${first.slice(0, max)}…` : first;
}

/** The CLI's warning lines for patterns with an ERROR node that matched nothing (`matched`: op → count). */
export function patternWarningLines(warnings: SearchOutcome["patternWarnings"], matched: (op: number) => number): string[] {
  return warnings.filter((w) => matched(w.op) === 0).flatMap((w) => ["", `Warning: ${w.text}.`]);
}

/** `Parse issues:` lines for matches skipped because they rest on a syntax error. */
function skippedMatchIssues(display: string, text: string, bad: readonly RawMatch[]): string[] {
  const index = new LineIndex(text);
  return [...bad]
    .sort((a, b) => a.start - b.start)
    .map((m) => {
      const { line, col } = index.pos(m.start);
      return `${display}:${line}:${col}: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)`;
    });
}

/**
 * A matched file's `Parse issues:` lines in order of position: its skipped matches and the
 * places where a syntax error may hide a match.
 */
export function mergedIssues(display: string, text: string, bad: readonly RawMatch[], issues: readonly ParseIssue[] | undefined): string[] {
  if (bad.length === 0) return syntaxIssueLines(display, issues);
  const index = new LineIndex(text);
  const skipped = [...bad].sort((a, b) => a.start - b.start).map((m) => ({ ...index.pos(m.start), line0: skippedMatchIssues(display, text, [m])[0]! }));
  const places = (issues ?? []).map((p) => ({ ...p, line0: syntaxIssueLines(display, [p])[0]! }));
  return [...skipped, ...places].sort((a, b) => a.line - b.line || a.col - b.col).map((x) => x.line0);
}

/** `Parse issues:` lines for the places where a syntax error may hide a match (FileResult.issues). */
export function syntaxIssueLines(display: string, issues: readonly ParseIssue[] | undefined): string[] {
  return (issues ?? []).map((p) => `${display}:${p.line}:${p.col}: parse error (a syntax error holds the pattern's tokens here; a match may be missing)`);
}

/** The `Parse issues:` block (deduplicated, at most 20 lines). */
export function parseIssuesBlock(issues: readonly string[]): string[] {
  const unique = [...new Set(issues)];
  if (unique.length === 0) return [];
  const head = unique.length > 20 ? `Parse issues (20 / ${unique.length}):` : "Parse issues:";
  return [head, ...unique.slice(0, 20).map((i) => `- ${i}`)];
}

export function skippedBlock(skipped: SearchOutcome["skipped"], maxFileBytes: number): string[] {
  if (skipped.length === 0) return [];
  const head = skipped.length > 20 ? `Skipped files (20 / ${skipped.length}):` : "Skipped files:";
  return [head, ...skipped.slice(0, 20).map((s) => `- ${s.path}: ${describeSkip(s.reason, maxFileBytes, s.message)}`)];
}

/** Turns per-file progress into at most ten onUpdate calls a second (and one at the end). */
function progressReporter(onUpdate: ToolUpdateCallback | undefined): ((done: number, total: number, matches: number) => void) | undefined {
  if (!onUpdate) return undefined;
  let last = 0;
  return (done, total, matches) => {
    const now = Date.now();
    if (done < total && now - last < 100) return;
    last = now;
    onUpdate({ content: [{ type: "text", text: `${done}/${total} files scanned, ${matches} ${matches === 1 ? "match" : "matches"}` }] });
  };
}
