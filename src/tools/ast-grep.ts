import { Type, type Static } from "@sinclair/typebox";
import { ToolError } from "../errors.js";
import type { AgentToolResult, Tool, ToolUpdateCallback } from "../domain/types.js";
import type { Discovery } from "../discovery/index.js";
import { textResult } from "../domain/types.js";
import { searchContext, type ToolHost } from "./host.js";
import { astCheck } from "./preflight.js";
import { badMatches, goodMatches } from "./ast/engine.js";
import { LineIndex } from "./ast/rewrite.js";
import {
  allCaptures,
  cut,
  scopeDisplay,
  groupByDir,
  mergedIssues,
  parseIssuesBlock,
  runSearch,
  patternWarningLines,
  skippedBlock,
  syntaxIssueLines,
  type SearchOutcome,
} from "./ast/search.js";

const astGrepParameters = Type.Object(
  {
    pat: Type.Array(Type.String(), { description: "AST patterns to match" }),
    lang: Type.Optional(Type.String({ description: "Language override" })),
    path: Type.Optional(Type.String({ description: "File, directory, or glob pattern to search (default: cwd)" })),
    glob: Type.Optional(Type.String({ description: "Optional glob filter relative to path" })),
    sel: Type.Optional(Type.String({ description: "Optional selector for contextual pattern mode" })),
    limit: Type.Optional(Type.Number({ description: "Max matches (default: 50)" })),
    offset: Type.Optional(Type.Number({ description: "Matches to skip (default: 0)" })),
    context: Type.Optional(Type.Number({ description: "Accepted for compatibility; unused" })),
  },
  { additionalProperties: false },
);

type AstGrepParams = Static<typeof astGrepParameters>;

export interface AstGrepMatch {
  path: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  text: string;
  pattern: string;
  meta: Record<string, string>;
}

interface AstGrepDetails {
  matchCount: number;
  totalMatches: number;
  fileCount: number;
  filesSearched: number;
  limitReached: boolean;
  parseErrors?: string[];
  skipped?: Array<{ path: string; reason: string }>;
  scopePath: string;
  files: string[];
  fileMatches: Array<{ path: string; count: number }>;
  matches: AstGrepMatch[];
}

const MAX_MATCH_LINES = 10;

export function createAstGrepTool(host: ToolHost): Tool<typeof astGrepParameters, AstGrepDetails> {
  return {
    name: "ast_grep",
    label: "AST Grep",
    description: "Structural search with ast-grep patterns (read-only). Lists matches with their metavariables.",
    parameters: astGrepParameters,
    check: astCheck(host.cwd, (p: AstGrepParams) => p.pat.flatMap((pat, i) => (pat.trim() !== "" ? [{ pat, at: ["pat", i] }] : []))),
    execute: (_toolCallId, params, onUpdate, _ctx, signal) => executeAstGrep(host, params, onUpdate, signal),
  };
}

/** The patterns and the page asked for, checked. */
function searchRequest(params: AstGrepParams) {
  const pats = [...new Set((Array.isArray(params.pat) ? params.pat : []).map((p) => (typeof p === "string" ? p.trim() : "")).filter((p) => p.length > 0))];
  if (pats.length === 0) throw new ToolError("`pat` must include at least one non-empty pattern");
  const limit = params.limit === undefined ? 50 : Math.floor(params.limit);
  if (!Number.isFinite(limit) || limit < 1) throw new ToolError("Limit must be a positive number");
  const offset = params.offset === undefined ? 0 : Math.floor(params.offset);
  if (!Number.isFinite(offset) || offset < 0) throw new ToolError("Offset must be a non-negative number");
  if (params.context !== undefined && (!Number.isFinite(params.context) || params.context < 0)) throw new ToolError("Context must be a non-negative number");
  const sel = params.sel !== undefined && params.sel.trim() !== "" ? params.sel.trim() : undefined;
  return { pats, limit, offset, sel };
}

async function executeAstGrep(
  host: ToolHost,
  params: AstGrepParams,
  onUpdate: ToolUpdateCallback | undefined,
  signal: AbortSignal | undefined,
): Promise<AgentToolResult<AstGrepDetails>> {
  const { pats, limit, offset, sel } = searchRequest(params);
  const captures = pats.map((p) => allCaptures(p));
  const search = await runSearch({
    onUpdate,
    ...searchContext(host),
    toolName: "ast_grep",
    pats,
    captures,
    lang: params.lang,
    path: params.path,
    glob: params.glob,
    sel,
    signal,
    patWhere: (i) => `pat[${i}]`,
  });
  const { discovery } = search;
  const { all, parseErrors } = collectMatches(search, pats);
  const shown = all.slice(offset, offset + limit);
  const limitReached = all.length > offset + limit;
  const fileMatches: Array<{ path: string; count: number }> = [];
  for (const m of shown) {
    const last = fileMatches[fileMatches.length - 1];
    if (last && last.path === m.path) last.count++;
    else fileMatches.push({ path: m.path, count: 1 });
  }
  const details: AstGrepDetails = {
    // matchCount and fileCount count every match (before offset/limit);
    // files/fileMatches/matches describe the page shown.
    matchCount: all.length,
    totalMatches: all.length,
    fileCount: new Set(all.map((m) => m.path)).size,
    filesSearched: search.filesSearched,
    limitReached,
    ...(parseErrors.length > 0 ? { parseErrors } : {}),
    ...(search.skipped.length > 0 ? { skipped: search.skipped.map((s) => ({ path: s.path, reason: s.reason })) } : {}),
    scopePath: discovery.scopePath,
    // Display paths (relative to the scope directory); `matches` are workspace-relative.
    files: fileMatches.map((f) => scopeDisplay(f.path, discovery)),
    fileMatches: fileMatches.map((f) => ({ path: scopeDisplay(f.path, discovery), count: f.count })),
    matches: shown.map(({ fileText: _t, start: _s, end: _e, ...rest }) => rest),
  };
  const skippedLines = [
    ...patternWarningLines(search.patternWarnings, (op) => all.filter((m) => m.pattern === pats[op]).length),
    ...(search.skipped.length > 0 ? ["", ...skippedBlock(search.skipped, host.workspace.maxFileBytes)] : []),
  ];
  if (shown.length === 0) {
    // The no-match texts (also for an offset past the last match: details.matchCount has the
    // total); the parse-issue block follows the message on the next line.
    const head =
      parseErrors.length > 0
        ? "No matches found. Parse issues mean the query may be mis-scoped; narrow `path`/`glob` or set `lang` before concluding absence."
        : "No matches found";
    return textResult([head, ...parseIssuesBlock(parseErrors), ...skippedLines].join("\n"), details);
  }
  const trailer = [
    ...(limitReached ? ["", "Result limit reached; narrow path pattern or increase limit."] : []),
    ...(parseErrors.length > 0 ? ["", ...parseIssuesBlock(parseErrors)] : []),
    ...skippedLines,
  ];
  const lines = renderMatches(shown, fileMatches, discovery);
  lines.push(...trailer);
  return textResult(lines.join("\n"), details);
}

/** Every match in file order with its position and metavariables; the files' parse issues. */
function collectMatches(search: SearchOutcome, pats: readonly string[]) {
  const { discovery } = search;
  const parseErrors: string[] = [...search.patternIssues];
  const all: Array<AstGrepMatch & { fileText: string; start: number; end: number }> = [];
  for (const r of search.results) {
    if (r.status === "skipped") continue;
    if (r.status === "searched") {
      parseErrors.push(...syntaxIssueLines(scopeDisplay(r.rel, discovery), r.issues));
      continue;
    }
    const bad = badMatches(r.matches);
    parseErrors.push(...mergedIssues(scopeDisplay(r.rel, discovery), r.text, bad, r.issues));
    const index = new LineIndex(r.text);
    const sorted = goodMatches(r.matches).sort((a, b) => a.start - b.start || b.end - a.end || a.op - b.op);
    for (const m of sorted) {
      const a = index.pos(m.start);
      const b = index.pos(m.end);
      const meta: Record<string, string> = {};
      for (const name of Object.keys(m.captures).sort()) {
        const cap = m.captures[name];
        meta[name] = cap ? r.text.slice(cap[0], cap[1]) : "";
      }
      all.push({
        path: r.rel,
        line: a.line,
        col: a.col,
        endLine: b.line,
        endCol: b.col,
        text: r.text.slice(m.start, m.end),
        pattern: pats[m.op]!,
        meta,
        fileText: r.text,
        start: m.start,
        end: m.end,
      });
    }
  }
  return { all, parseErrors };
}

/** The page of matches as text: grouped by directory and file, each with its lines and meta. */
function renderMatches(shown: readonly AstGrepMatch[], fileMatches: ReadonlyArray<{ path: string; count: number }>, discovery: Discovery): string[] {
  const lines: string[] = [];
  const emit = (ms: readonly AstGrepMatch[]) => {
    for (const m of ms) {
      const textLines = m.text.split(/\r?\n/);
      // Line numbers are padded to the widest one shown for this match.
      const width = String(m.line + Math.min(textLines.length, MAX_MATCH_LINES + 1) - 1).length;
      const num = (n: number) => String(n).padStart(width);
      textLines.slice(0, MAX_MATCH_LINES).forEach((t, i) => lines.push(`${num(m.line + i)}${i === 0 ? ":" : "-"}${cut(t)}`));
      if (textLines.length > MAX_MATCH_LINES) lines.push(`${num(m.line + MAX_MATCH_LINES)}-…`);
      const names = Object.keys(m.meta);
      if (names.length > 0) lines.push(`  meta: ${names.map((n) => `${n}=${cut(m.meta[n]!, 80)}`).join(", ")}`);
    }
  };
  const items = fileMatches.map((f) => ({ display: scopeDisplay(f.path, discovery), path: f.path }));
  if (discovery.singleFile) emit(shown);
  else {
    for (const group of groupByDir(items)) {
      if (group.dir === ".") {
        for (const item of group.items) {
          if (lines.length > 0) lines.push("");
          lines.push(`# ${item.display}`);
          emit(shown.filter((m) => m.path === item.path));
        }
      } else {
        if (lines.length > 0) lines.push("");
        lines.push(`# ${group.dir}`);
        for (const item of group.items) {
          lines.push(`## └─ ${item.display.slice(group.dir.length + 1)}`);
          emit(shown.filter((m) => m.path === item.path));
        }
      }
    }
  }
  return lines;
}
