import { Type, type Static } from "@sinclair/typebox";
import { ToolError } from "../errors.js";
import type { AgentToolResult, FileChange, TextEdit, Tool } from "../domain/types.js";
import type { Discovery } from "../discovery/index.js";
import type { FileResult } from "./ast/engine.js";
import { textResult } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import { applyEdits, editBetween } from "../workspace/change.js";
import { searchContext, type ToolHost } from "./host.js";
import { astCheck } from "./preflight.js";
import { badMatches, goodMatches, matchText } from "./ast/engine.js";
import { napiSync } from "./ast/langs.js";
import { patternCaptures, type PrefilterSpec } from "./ast/pattern.js";
import { LineIndex, pairsOf, planRewrite, templateNames, truncateMatches, type Overlap, type PlannedMatch } from "./ast/rewrite.js";
import { cut, scopeDisplay, groupByDir, mergedIssues, parseIssuesBlock, runSearch, patternWarningLines, skippedBlock, syntaxIssueLines } from "./ast/search.js";
import { plural } from "../util/plural.js";

const astEditParameters = Type.Object(
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

type AstEditParams = Static<typeof astEditParameters>;

interface AstEditDetails {
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

function replacementsLabel(n: number, m: number): string {
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
    const why =
      o.reason === "partial"
        ? "overlaps"
        : o.reason === "same-node"
          ? "matches the same node as"
          : "lies inside, but not inside a metavariable used by `out` of,";
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
 * Copies a value's strings. A substring of a file's text (a match, a capture in a replacement,
 * a preview line) is a slice that keeps the whole text alive; what outlives the file's turn
 * (edits in a pending action, preview lines, details) is detached so each text is freed when
 * its file is done.
 */
function detach<T>(value: T): T {
  return structuredClone(value);
}

/**
 * Re-runs the rewrite on a file's current text. Returns the new text when the ordered
 * (matched, replacement) pairs equal the preview's, undefined otherwise (→ stale). Keeps the
 * pairs, not the previewed texts.
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
  const { lang, keep } = plan;
  return (current) => {
    try {
      const napi = napiSync();
      const found = matchText(napi, lang, current, { ops: pats.map((pat, i) => ({ pat, captures: captures[i] ?? {}, all: all[i] ?? {} })), sel, prefilter });
      const matches = goodMatches(found.matches);
      const kept = keep === undefined ? matches : truncateMatches(matches, keep);
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

/** A rebase that returns the edits from the current text to the rewritten one. */
function editRebase(rebase: (current: string) => string | undefined): (current: string) => TextEdit[] | undefined {
  return (current) => {
    const after = rebase(current);
    return after === undefined ? undefined : editBetween(current, after);
  };
}

function ignore(): void {}

/** What is kept of a rewritten file once its turn is over: no text of it. */
interface FileOutcome {
  index: number;
  rel: string;
  count: number;
  /** Matches per op. */
  perOp: number[];
  /** The preview's `-`/`+` lines of the file. */
  lines: string[];
  changes: NonNullable<AstEditDetails["changes"]>;
  change: Promise<FileChange[]>;
}

/** The preview lines and change details of one file (positions from its text). */
function previewOf(plan: FilePlan): Pick<FileOutcome, "lines" | "changes"> {
  const index = new LineIndex(plan.text);
  const positions = plan.matches.map((m) => ({ m, a: index.pos(m.start), b: index.pos(m.end) }));
  const width = String(Math.max(...positions.map((p) => p.a.line))).length;
  const lines: string[] = [];
  const changes: FileOutcome["changes"] = [];
  for (const { m, a, b } of positions) {
    const ref = `${String(a.line).padStart(width)}:${a.col}`;
    lines.push(`-${ref} ${cut(m.matched)}`);
    lines.push(`+${ref} ${cut(m.replacement)}`);
    changes.push({
      path: plan.rel,
      line: a.line,
      col: a.col,
      endLine: b.line,
      endCol: b.col,
      matched: clip(m.matched),
      replacement: clip(m.replacement),
      nested: m.depth > 0,
    });
  }
  return { lines, changes };
}

export function createAstEditTool(host: ToolHost): Tool<typeof astEditParameters, AstEditDetails> {
  return {
    name: "ast_edit",
    label: "AST Edit",
    description:
      "Structural rewrite with ast-grep patterns: every match of `pat` is replaced by `out` (metavariables like $A and $$$ARGS substituted). Preview only: stages one pending action; nothing is written until it is resolved with apply.",
    parameters: astEditParameters,
    deferrable: true,
    check: astCheck(host.cwd, (p: AstEditParams) => p.ops.flatMap((op, i) => (op.pat.trim() !== "" ? [{ pat: op.pat, at: ["ops", i, "pat"] }] : []))),
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
      const parseErrors = new Map<number, string[]>();
      const parseWarnings = new Map<number, string>();
      const overlapLines = new Map<number, string[]>();
      const outcomes: FileOutcome[] = [];
      let total = 0;
      let limitReached = false;
      // With a limit, files count in discovery order: the first files' replacements are kept.
      // Without one, each file is planned, staged and let go as its result arrives (its text is
      // freed then), whatever the order.
      let cutoff = Number.POSITIVE_INFINITY;
      let prefilter: Record<string, PrefilterSpec> = {};
      let discovery: Discovery | undefined;
      let langOf: Map<string, string> | undefined;
      const handle = (r: FileResult, index: number) => {
        if (index >= cutoff) return;
        // No closure is made in this function: one would keep `r` (the file's text) alive.
        const shown = scopeDisplay(r.rel, discovery!);
        if (r.status === "searched" && r.issues) parseErrors.set(index, syntaxIssueLines(shown, r.issues));
        if (r.status !== "matched") return;
        if (limit !== undefined && total >= limit) {
          limitReached = true;
          cutoff = index;
          return;
        }
        const bad = badMatches(r.matches);
        if (bad.length > 0 || r.issues) parseErrors.set(index, detach(mergedIssues(shown, r.text, bad, r.issues)));
        let raw = goodMatches(r.matches);
        if (raw.length === 0) return;
        let keep: number | undefined;
        if (limit !== undefined && total + raw.length > limit) {
          keep = limit - total;
          raw = truncateMatches(raw, keep);
          limitReached = true;
        }
        const planned = planRewrite(r.text, raw, outs);
        if (!planned.ok) {
          overlapLines.set(index, detach(overlapMessage(r.rel, r.text, planned.overlaps, pats)));
          return;
        }
        if (planned.after === r.text) return;
        if (r.syntaxErrors) parseWarnings.set(index, `${shown}: syntax tree contains error nodes; the matched code parsed cleanly and was rewritten`);
        const plan: FilePlan = { rel: r.rel, lang: langOf!.get(r.rel)!, text: r.text, sha256: r.sha256, after: planned.after, matches: planned.matches, keep };
        total += plan.matches.length;
        const perOp: number[] = new Array<number>(pats.length).fill(0);
        for (const m of plan.matches) perOp[m.op]!++;
        // Staging with the text in hand computes the diff (spilled) now; the change keeps edits.
        const change = host.workspace.stageEdits([
          {
            path: plan.rel,
            beforeSha256: plan.sha256,
            text: plan.text,
            edits: detach(editsOf(plan)),
            rebase: editRebase(makeRebase(plan, pats, outs, captures, allCaptures, sel, prefilter)),
          },
        ]);
        // A file whose staging fails fails the step (below); none is left unhandled meanwhile.
        change.catch(ignore);
        outcomes.push({ index, rel: plan.rel, count: plan.matches.length, perOp, ...detach(previewOf(plan)), change });
      };
      // Results arriving before their turn (limit only) wait here.
      const waiting = new Map<number, FileResult>();
      let nextIndex = 0;
      const search = await runSearch({
        onUpdate,
        ...searchContext(host),
        toolName: "ast_edit",
        pats,
        captures,
        allCaptures,
        lang: params.lang,
        path: params.path,
        glob: params.glob,
        sel,
        signal,
        patWhere: (i) => `ops[${i}].pat`,
        onStart: (s) => {
          discovery = s.discovery;
          langOf = s.langOf;
          prefilter = s.prefilter;
        },
        onResult: (r, index) => {
          if (limit === undefined) {
            handle(r, index);
            return;
          }
          waiting.set(index, r);
          while (waiting.has(nextIndex)) {
            const next = waiting.get(nextIndex)!;
            waiting.delete(nextIndex);
            handle(next, nextIndex++);
          }
        },
      });
      if (overlapLines.size > 0) {
        const all = [...overlapLines].sort((x, y) => x[0] - y[0]).flatMap(([, l]) => l);
        throw new ToolError(
          [
            "Overlapping replacements detected; refine pattern to avoid ambiguous edits. Nothing was staged.",
            ...all.slice(0, 50),
            ...(all.length > 50 ? [`… and ${all.length - 50} more`] : []),
          ].join("\n"),
        );
      }
      outcomes.sort((x, y) => x.index - y.index);
      const changes = (await Promise.all(outcomes.map((o) => o.change))).flat();
      const byIndex = <T>(m: Map<number, T>): T[] =>
        [...m]
          .filter(([i]) => i < cutoff)
          .sort((x, y) => x[0] - y[0])
          .map(([, v]) => v);
      const parseErrorList = byIndex(parseErrors).flat();
      const parseWarningList = byIndex(parseWarnings);
      const d = search.discovery;

      // Paths in `files`, `fileReplacements` and the parse issues are display paths
      // (relative to the scope directory, the basename for a one-file scope); `changes` and the
      // report's outcome files are workspace-relative.
      const fileReplacements = outcomes.map((o) => ({ path: scopeDisplay(o.rel, d), count: o.count }));
      const details: AstEditDetails = {
        totalReplacements: total,
        filesTouched: outcomes.length,
        filesSearched: search.filesSearched,
        applied: false,
        limitReached,
        parseErrors: [...new Set(parseErrorList)],
        ...(parseWarningList.length > 0 ? { parseWarnings: parseWarningList } : {}),
        ...(search.skipped.length > 0 ? { skipped: search.skipped.map((s) => ({ path: s.path, reason: s.reason })) } : {}),
        scopePath: d.scopePath,
        files: fileReplacements.map((f) => f.path),
        fileReplacements,
      };
      const notes = [
        ...patternWarningLines(search.patternWarnings, (op) => outcomes.reduce((n, o) => n + o.perOp[op]!, 0)),
        ...(parseWarningList.length > 0
          ? [
              "",
              `Note: ${plural(parseWarningList.length, "file")} with syntax-tree error nodes (often syntax newer than the bundled grammar) rewritten where the matched code itself parsed cleanly (details.parseWarnings).`,
            ]
          : []),
        ...(search.skipped.length > 0 ? ["", ...skippedBlock(search.skipped, host.workspace.maxFileBytes)] : []),
      ];
      if (total === 0) {
        // `No replacements made`, then the parse-issue block on the next line.
        return textResult(["No replacements made", ...parseIssuesBlock(parseErrorList), ...notes].join("\n"), details);
      }
      const trailer = [
        ...(limitReached ? ["", "Limit reached; narrow path or increase limit."] : []),
        ...(parseErrorList.length > 0 ? ["", ...parseIssuesBlock(parseErrorList)] : []),
        ...notes,
      ];

      const lines: string[] = [];
      const changeDetails: NonNullable<AstEditDetails["changes"]> = [];
      const items = outcomes.map((o) => ({ display: scopeDisplay(o.rel, d), outcome: o }));
      const emitFile = (o: FileOutcome) => {
        lines.push(...o.lines);
        changeDetails.push(...o.changes);
      };
      if (d.singleFile) {
        for (const item of items) emitFile(item.outcome);
      } else {
        for (const group of groupByDir(items)) {
          if (group.dir === ".") {
            for (const item of group.items) {
              if (lines.length > 0) lines.push("");
              lines.push(`# ${item.display} (${plural(item.outcome.count, "replacement")})`);
              emitFile(item.outcome);
            }
          } else {
            if (lines.length > 0) lines.push("");
            lines.push(`# ${group.dir}`);
            for (const item of group.items) {
              lines.push(`## └─ ${item.display.slice(group.dir.length + 1)} (${plural(item.outcome.count, "replacement")})`);
              emitFile(item.outcome);
            }
          }
        }
      }
      lines.push(...trailer, "", PREVIEW_REMINDER);
      const actionDetails = { ...details };
      details.changes = changeDetails;

      const label = `AST Edit: ${replacementsLabel(total, outcomes.length)}`;
      const appliedText = `Applied ${replacementsLabel(total, outcomes.length)}.`;
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
