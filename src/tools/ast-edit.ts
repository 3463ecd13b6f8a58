import { Type, type Static } from "@sinclair/typebox";
import { ToolError } from "../errors.js";
import type { AgentToolResult, TextEdit, Tool } from "../session/types.js";
import { textResult } from "../session/types.js";
import { createFileAction } from "../workspace/action.js";
import { applyEdits, editBetween } from "../workspace/change.js";
import type { ToolHost } from "./host.js";
import { badMatches, goodMatches, matchText } from "./ast/engine.js";
import { napiSync } from "./ast/langs.js";
import { patternCaptures, type PrefilterSpec } from "./ast/pattern.js";
import { LineIndex, pairsOf, planRewrite, templateNames, truncateMatches, type Overlap, type PlannedMatch } from "./ast/rewrite.js";
import { cut, displayPath, groupByDir, parseIssuesBlock, plural, runSearch, patternWarningLines, skippedBlock, skippedMatchIssues } from "./ast/search.js";

export const astEditParameters = Type.Object(
  {
    ops: Type.Array(
      Type.Object(
        {
          pat: Type.String({ description: "AST pattern to match" }),
          out: Type.String({ description: "Replacement template" }),
        },
        { additionalProperties: false },
      ),
      { description: "Rewrite ops as [{ pat, out }]" },
    ),
    lang: Type.Optional(Type.String({ description: "Language override" })),
    path: Type.Optional(Type.String({ description: "File, directory, or glob pattern to rewrite (default: cwd)" })),
    glob: Type.Optional(Type.String({ description: "Optional glob filter relative to path" })),
    sel: Type.Optional(Type.String({ description: "Optional selector for contextual pattern mode" })),
    limit: Type.Optional(Type.Number({ description: "Max total replacements" })),
  },
  { additionalProperties: false },
);

export type AstEditParams = Static<typeof astEditParameters>;

export interface AstEditDetails {
  totalReplacements: number;
  filesTouched: number;
  filesSearched: number;
  applied: boolean;
  limitReached: boolean;
  parseErrors: string[];
  /** Files rewritten although their syntax tree has error nodes (away from every match). */
  parseWarnings?: string[];
  skipped?: Array<{ path: string; reason: string }>;
  scopePath: string;
  files: string[];
  fileReplacements: Array<{ path: string; count: number }>;
  changes?: Array<{ path: string; line: number; col: number; endLine: number; endCol: number; matched: string; replacement: string; nested: boolean }>;
}

const PREVIEW_REMINDER = "Preview only: no file has been modified yet. Resolving this pending action with apply writes these changes.";

export function replacementsLabel(n: number, m: number): string {
  return `${plural(n, "replacement")} in ${plural(m, "file")}`;
}

function validate(params: AstEditParams): { limit: number | undefined } {
  if (!Array.isArray(params.ops) || params.ops.length === 0) throw new ToolError("`ops` must include at least one op entry");
  const seen = new Set<string>();
  params.ops.forEach((op, i) => {
    if (typeof op?.pat !== "string" || op.pat.length === 0 || op.pat.trim().length === 0) throw new ToolError(`\`ops[${i}].pat\` must be a non-empty pattern`);
    if (typeof op.out !== "string") throw new ToolError(`\`ops[${i}].out\` must be a string`);
    if (seen.has(op.pat)) throw new ToolError(`Duplicate rewrite pattern: ${op.pat}`);
    seen.add(op.pat);
    const caps = patternCaptures(op.pat);
    for (const name of templateNames(op.out)) {
      if (!caps.has(name)) throw new ToolError(`\`ops[${i}].out\` uses $${name}, which \`ops[${i}].pat\` does not capture`);
    }
  });
  let limit: number | undefined;
  if (params.limit !== undefined) {
    const l = Math.floor(params.limit);
    if (!Number.isFinite(l) || l < 1) throw new ToolError("limit must be a positive number");
    limit = l;
  }
  return { limit };
}

/** Texts in details are clipped (the full change is in the action's diff). */
function clip(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function rangeText(file: string, index: LineIndex, start: number, end: number): string {
  const a = index.pos(start);
  const b = index.pos(end);
  return `${file}:${a.line}:${a.col}-${b.line}:${b.col}`;
}

function overlapMessage(file: string, text: string, overlaps: readonly Overlap[], pats: readonly string[]): string[] {
  const index = new LineIndex(text);
  return overlaps.map((o) => {
    const why = o.reason === "partial" ? "overlaps" : o.reason === "same-node" ? "matches the same node as" : "lies inside, but not inside a metavariable used by `out` of,";
    return `- ${rangeText(file, index, o.b.start, o.b.end)} (${pats[o.b.op]}) ${why} ${rangeText(file, index, o.a.start, o.a.end)} (${pats[o.a.op]})`;
  });
}

interface FilePlan {
  rel: string;
  lang: string;
  text: string;
  sha256: string;
  after: string;
  matches: PlannedMatch[];
  /** Matches kept (limit): all when undefined. */
  keep: number | undefined;
}

/**
 * Re-runs the rewrite on a file's current text. Returns the new text when the ordered
 * (matched, replacement) pairs equal the preview's, undefined otherwise (→ stale).
 */
function makeRebase(
  plan: FilePlan,
  pats: string[],
  outs: string[],
  captures: Array<Record<string, boolean>>,
  all: Array<Record<string, boolean>>,
  sel: string | undefined,
  prefilter: Record<string, PrefilterSpec>,
): (current: string) => string | undefined {
  const expected = pairsOf(plan.matches);
  return (current) => {
    try {
      const napi = napiSync();
      const found = matchText(napi, plan.lang, current, { ops: pats.map((pat, i) => ({ pat, captures: captures[i] ?? {}, all: all[i] ?? {} })), sel, prefilter });
      const matches = goodMatches(found.matches);
      const kept = plan.keep === undefined ? matches : truncateMatches(matches, plan.keep);
      const result = planRewrite(current, kept, outs);
      if (!result.ok) return undefined;
      return pairsOf(result.matches) === expected ? result.after : undefined;
    } catch {
      return undefined;
    }
  };
}

/** The top-level replacements as edits (nested ones are inside them), or the one edit between the texts. */
function editsOf(plan: FilePlan): TextEdit[] {
  const edits = plan.matches.filter((m) => m.depth === 0).map((m) => ({ start: m.start, end: m.end, text: m.replacement }));
  return applyEdits(plan.text, edits) === plan.after ? edits : editBetween(plan.text, plan.after);
}

export function createAstEditTool(host: ToolHost): Tool<typeof astEditParameters, AstEditDetails> {
  return {
    name: "ast_edit",
    label: "AST Edit",
    description:
      "Structural rewrite with ast-grep patterns: every match of `pat` is replaced by `out` (metavariables like $A and $$$ARGS substituted). Preview only: stages one pending action; nothing is written until it is resolved with apply.",
    parameters: astEditParameters,
    deferrable: true,
    async execute(_toolCallId, params, onUpdate, _ctx, signal): Promise<AgentToolResult<AstEditDetails>> {
      const { limit } = validate(params);
      const pats = params.ops.map((op) => op.pat);
      const outs = params.ops.map((op) => op.out);
      const captures = params.ops.map((op) => {
        const caps = patternCaptures(op.pat);
        return Object.fromEntries(templateNames(op.out).map((name) => [name, caps.get(name) ?? false]));
      });
      const allCaptures = params.ops.map((op) => Object.fromEntries(patternCaptures(op.pat)));
      const sel = params.sel !== undefined && params.sel.trim() !== "" ? params.sel.trim() : undefined;
      const search = await runSearch({
        onUpdate,
        toolName: "ast_edit",
        root: host.workspace.root,
        pats,
        captures,
        allCaptures,
        lang: params.lang,
        path: params.path,
        glob: params.glob,
        sel,
        scope: host.scope,
        maxFileBytes: host.workspace.maxFileBytes,
        signal,
        patWhere: (i) => `ops[${i}].pat`,
      });
      const { discovery } = search;

      const parseErrors: string[] = [];
      const parseWarnings: string[] = [];
      const overlapLines: string[] = [];
      const plans: FilePlan[] = [];
      let total = 0;
      let limitReached = false;
      for (const r of search.results) {
        if (r.status === "searched" && r.parseError) parseErrors.push(`${displayPath(r.rel, discovery)}: parse error (syntax tree contains error nodes)`);
        if (r.status !== "matched") continue;
        if (limit !== undefined && total >= limit) {
          limitReached = true;
          break;
        }
        const bad = badMatches(r.matches);
        if (bad.length > 0) parseErrors.push(...skippedMatchIssues(displayPath(r.rel, discovery), r.text, bad));
        let raw = goodMatches(r.matches);
        if (raw.length === 0) continue;
        let keep: number | undefined;
        if (limit !== undefined && total + raw.length > limit) {
          keep = limit - total;
          raw = truncateMatches(raw, keep);
          limitReached = true;
        }
        const plan = planRewrite(r.text, raw, outs);
        if (!plan.ok) {
          overlapLines.push(...overlapMessage(r.rel, r.text, plan.overlaps, pats));
          continue;
        }
        if (plan.after === r.text) continue;
        if (r.errors.length > 0) parseWarnings.push(`${displayPath(r.rel, discovery)}: syntax tree contains error nodes; the matched code parsed cleanly and was rewritten`);
        plans.push({ rel: r.rel, lang: search.langOf.get(r.rel)!, text: r.text, sha256: r.sha256, after: plan.after, matches: plan.matches, keep });
        total += plan.matches.length;
      }
      if (overlapLines.length > 0) {
        throw new ToolError(
          ["Overlapping replacements detected; refine pattern to avoid ambiguous edits. Nothing was staged.", ...overlapLines.slice(0, 50), ...(overlapLines.length > 50 ? [`… and ${overlapLines.length - 50} more`] : [])].join("\n"),
        );
      }

      // Paths in `files`, `fileReplacements` and the parse issues are the seed's display paths
      // (relative to the scope directory, the basename for a one-file scope); `changes` and the
      // report's outcome files are workspace-relative.
      const fileReplacements = plans.map((p) => ({ path: displayPath(p.rel, discovery), count: p.matches.length }));
      const details: AstEditDetails = {
        totalReplacements: total,
        filesTouched: plans.length,
        filesSearched: search.filesSearched,
        applied: false,
        limitReached,
        parseErrors: [...new Set(parseErrors)],
        ...(parseWarnings.length > 0 ? { parseWarnings } : {}),
        ...(search.skipped.length > 0 ? { skipped: search.skipped.map((s) => ({ path: s.path, reason: s.reason })) } : {}),
        scopePath: discovery.scopePath,
        files: fileReplacements.map((f) => f.path),
        fileReplacements,
      };
      const notes = [
        ...patternWarningLines(search.patternWarnings, (op) => plans.reduce((n, p) => n + p.matches.filter((m) => m.op === op).length, 0)),
        ...(parseWarnings.length > 0
          ? ["", `Note: ${plural(parseWarnings.length, "file")} with syntax-tree error nodes (often syntax newer than the bundled grammar) rewritten where the matched code itself parsed cleanly (details.parseWarnings).`]
          : []),
        ...(search.skipped.length > 0 ? ["", ...skippedBlock(search.skipped, host.workspace.maxFileBytes)] : []),
      ];
      if (total === 0) {
        // The seed's text: `No replacements made`, then the parse-issue block on the next line.
        return textResult(["No replacements made", ...parseIssuesBlock(parseErrors), ...notes].join("\n"), details);
      }
      const trailer = [
        ...(limitReached ? ["", "Limit reached; narrow path or increase limit."] : []),
        ...(parseErrors.length > 0 ? ["", ...parseIssuesBlock(parseErrors)] : []),
        ...notes,
      ];

      const lines: string[] = [];
      const changeDetails: NonNullable<AstEditDetails["changes"]> = [];
      const items = plans.map((p) => ({ display: displayPath(p.rel, discovery), plan: p }));
      const emitFile = (plan: FilePlan) => {
        const index = new LineIndex(plan.text);
        const positions = plan.matches.map((m) => ({ m, a: index.pos(m.start), b: index.pos(m.end) }));
        const width = String(Math.max(...positions.map((p) => p.a.line))).length;
        for (const { m, a, b } of positions) {
          const ref = `${String(a.line).padStart(width)}:${a.col}`;
          lines.push(`-${ref} ${cut(m.matched)}`);
          lines.push(`+${ref} ${cut(m.replacement)}`);
          changeDetails.push({ path: plan.rel, line: a.line, col: a.col, endLine: b.line, endCol: b.col, matched: clip(m.matched), replacement: clip(m.replacement), nested: m.depth > 0 });
        }
      };
      if (discovery.singleFile) {
        for (const item of items) emitFile(item.plan);
      } else {
        for (const group of groupByDir(items)) {
          if (group.dir === ".") {
            for (const item of group.items) {
              if (lines.length > 0) lines.push("");
              lines.push(`# ${item.display} (${plural(item.plan.matches.length, "replacement")})`);
              emitFile(item.plan);
            }
          } else {
            if (lines.length > 0) lines.push("");
            lines.push(`# ${group.dir}`);
            for (const item of group.items) {
              lines.push(`## └─ ${item.display.slice(group.dir.length + 1)} (${plural(item.plan.matches.length, "replacement")})`);
              emitFile(item.plan);
            }
          }
        }
      }
      lines.push(...trailer, "", PREVIEW_REMINDER);
      const actionDetails = { ...details };
      details.changes = changeDetails;

      // Staged as edits against the previewed text: the action keeps no whole texts.
      const changes = await host.workspace.stageEdits(
        plans.map((p) => {
          const rebase = makeRebase(p, pats, outs, captures, allCaptures, sel, search.prefilter);
          return {
            path: p.rel,
            beforeSha256: p.sha256,
            text: p.text,
            edits: editsOf(p),
            rebase: (current: string) => {
              const after = rebase(current);
              return after === undefined ? undefined : editBetween(current, after);
            },
          };
        }),
      );
      const label = `AST Edit: ${replacementsLabel(total, plans.length)}`;
      const appliedText = `Applied ${replacementsLabel(total, plans.length)}.`;
      host.push(
        createFileAction(host.workspace, {
          label,
          sourceToolName: "ast_edit",
          changes,
          details: actionDetails,
          replacements: total,
          appliedText: () => appliedText,
        }),
      );
      return textResult(lines.join("\n"), details);
    },
  };
}
