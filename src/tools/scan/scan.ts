/**
 * One ast_scan over a file set: which rules apply to which file (language, languageGlobs,
 * files/ignores, severity off, --filter), their matches as findings, and each rule's fixes as
 * edits per file. No staging here (ast-scan.ts does that); pure of the session.
 */
import { discoverFiles } from "../../discovery/index.js";
import { globMatcher } from "../../workspace/glob.js";
import { lineStarts, lastAtOrBefore } from "../../workspace/text.js";
import type { FileScope } from "../host.js";
import type { Workspace } from "../../workspace/workspace.js";
import { ensureLanguages, langOfPath, loadNapi } from "../ast/langs.js";
import { evaluateMatch } from "./fix.js";
import { traversalMatcher, type RuleMatcher } from "./matcher.js";
import type { ProjectConfig, ScanRule, Severity } from "./types.js";

export interface Position {
  line: number;
  column: number;
}

/** One match of one rule (SPEC 3.2). Lines and columns are 1-based, columns in UTF-16 units. */
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

/** A rule's fixes in one file: edits against the text whose hash is `sha256` (no text kept). */
export interface FileFix {
  path: string;
  sha256: string;
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
}

export interface ScanInput {
  workspace: Workspace;
  scope: FileScope;
  rules: ScanRule[];
  config?: ProjectConfig | undefined;
  path?: string | undefined;
  glob?: string | undefined;
  signal?: AbortSignal | undefined;
  matcher?: RuleMatcher;
}

function posAt(starts: number[], offset: number): Position {
  const line = lastAtOrBefore(starts, offset);
  return { line: line + 1, column: offset - starts[line]! + 1 };
}

/** Runs the rules over the files; rules are already filtered (severity off, --filter). */
export async function runScan(input: ScanInput): Promise<ScanOutput> {
  const { workspace, rules } = input;
  const napi = await loadNapi();
  ensureLanguages(napi, [...new Set(rules.map((r) => r.lang))]);
  const matcher = input.matcher ?? traversalMatcher(napi);
  const langGlobs = Object.entries(input.config?.languageGlobs ?? {}).map(([lang, globs]) => ({ lang, match: globMatcher(globs) }));
  const langOf = (rel: string): string | undefined => {
    const base = rel.split("/").pop()!;
    for (const g of langGlobs) if (g.match(rel) || g.match(base)) return g.lang;
    return langOfPath(rel)?.id;
  };
  const wanted = new Set(rules.map((r) => r.lang));
  const discovery = await discoverFiles({
    root: workspace.root,
    path: input.path,
    glob: input.glob,
    scope: input.scope,
    accept: (rel) => {
      const l = langOf(rel);
      return l !== undefined && wanted.has(l);
    },
  });
  const fileFilters = new Map<ScanRule, (rel: string) => boolean>();
  for (const r of rules) {
    const inc = r.files?.length ? globMatcher(r.files) : undefined;
    const exc = r.ignores?.length ? globMatcher(r.ignores) : undefined;
    fileFilters.set(r, (rel) => (!inc || inc(rel)) && !(exc && exc(rel)));
  }
  const findings: Finding[] = [];
  const fixes = new Map<ScanRule, RuleFixes>();
  const unreadable: ScanOutput["unreadable"] = [];
  let searched = 0;
  for (const file of discovery.files) {
    if (input.signal?.aborted) break;
    const lang = langOf(file.rel)!;
    const applicable = rules.filter((r) => r.lang === lang && fileFilters.get(r)!(file.rel));
    if (applicable.length === 0) continue;
    let read;
    try {
      read = await workspace.read(file.rel);
    } catch (err) {
      unreadable.push({ path: file.rel, reason: (err as Error).message });
      continue;
    }
    searched++;
    const { text } = read;
    const { matches } = matcher.matchFile(text, lang, applicable);
    let starts: number[] | undefined;
    for (const { rule, nodes } of matches) {
      starts ??= lineStarts(text);
      const edits: FileFix["edits"] = [];
      let lastEnd = -1;
      for (const node of nodes) {
        const ev = evaluateMatch(rule, node, text);
        const firstLine = text.slice(ev.start, ev.end).split(/\r?\n/)[0]!;
        const finding: Finding = {
          rule: rule.id,
          severity: rule.severity as Finding["severity"],
          message: ev.message,
          ...(rule.note !== undefined ? { note: rule.note } : {}),
          ...(rule.url !== undefined ? { url: rule.url } : {}),
          path: file.rel,
          start: posAt(starts, ev.start),
          end: posAt(starts, ev.end),
          text: firstLine.length > 200 ? `${firstLine.slice(0, 200)}…` : firstLine,
        };
        // Within a rule, a fix overlapping an earlier one is left out, as `--update-all` does.
        if (ev.fix && ev.fix.start >= lastEnd && text.slice(ev.fix.start, ev.fix.end) !== ev.fix.text) {
          edits.push(ev.fix);
          lastEnd = ev.fix.end;
          finding.replacement = { start: posAt(starts, ev.fix.start), end: posAt(starts, ev.fix.end), text: ev.fix.text };
        }
        findings.push(finding);
      }
      if (edits.length > 0) {
        const entry = fixes.get(rule) ?? { rule, files: [], count: 0 };
        entry.files.push({ path: file.rel, sha256: read.sha256, edits });
        entry.count += edits.length;
        fixes.set(rule, entry);
      }
    }
  }
  return {
    findings,
    fixes: rules.flatMap((r) => (fixes.has(r) ? [fixes.get(r)!] : [])),
    filesSearched: searched,
    unreadable,
  };
}
