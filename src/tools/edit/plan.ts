/**
 * ast_edit's pure parts: the step's ops in the forms the engine and the planner take, how the
 * limit cuts a file's matches, one file's rewrite plan (or its overlaps), the edits and preview
 * lines of a plan, and the preview listing. No session, no napi, no file system.
 */
import { ToolError } from "../../errors.js";
import type { TextEdit } from "../../domain/types.js";
import { editBetween } from "../../workspace/change.js";
import { patternCaptures } from "../ast/pattern.js";
import {
  LineIndex,
  planRewrite,
  prepareTemplates,
  templateNames,
  truncateMatches,
  type Overlap,
  type PlannedMatch,
  type RawMatch,
  type Templates,
} from "../ast/rewrite.js";
import { cut, groupByDir } from "../ast/search.js";
import { plural } from "../../util/plural.js";

/** One rewrite op as the recipe gives it. */
export interface EditOp {
  pat: string;
  out: string;
}

/** A step's ops, validated, in the forms the engine (captures) and the planner (templates) take. */
export interface EditOps {
  pats: string[];
  outs: string[];
  /** The `out` templates parsed once for every file. */
  templates: Templates;
  /** Per op: the metavariables its `out` uses → whether each is a multi capture. */
  captures: Array<Record<string, boolean>>;
  /** Per op: every metavariable its pattern captures → multi. */
  allCaptures: Array<Record<string, boolean>>;
  sel: string | undefined;
  /** Max replacements of the step (undefined: no limit). */
  limit: number | undefined;
}

/** Array.isArray without narrowing (a readonly array would narrow to any[]). */
function isList(value: unknown): boolean {
  return Array.isArray(value);
}

/**
 * Why op `i`'s `out` cannot be filled: a metavariable its `pat` does not capture (where the
 * ast-grep CLI would write nothing, tollgate refuses); undefined when every one is captured.
 */
export function uncapturedMessage(op: EditOp, i: number, declared: ReadonlyMap<string, boolean> = patternCaptures(op.pat)): string | undefined {
  const name = templateNames(op.out).find((n) => !declared.has(n));
  return name === undefined ? undefined : `\`ops[${i}].out\` uses $${name}, which \`ops[${i}].pat\` does not capture`;
}

/** Checks the ops and the limit (one clear message each) and prepares them. */
export function editOps(params: { ops: readonly EditOp[]; sel?: string | undefined; limit?: number | undefined }): EditOps {
  const list = params.ops;
  if (!isList(list) || list.length === 0) throw new ToolError("`ops` must include at least one op entry");
  const seen = new Set<string>();
  const caps = list.map((op, i) => {
    if (typeof op?.pat !== "string" || op.pat.length === 0 || op.pat.trim().length === 0) throw new ToolError(`\`ops[${i}].pat\` must be a non-empty pattern`);
    if (typeof op.out !== "string") throw new ToolError(`\`ops[${i}].out\` must be a string`);
    if (seen.has(op.pat)) throw new ToolError(`Duplicate rewrite pattern: ${op.pat}`);
    seen.add(op.pat);
    const declared = patternCaptures(op.pat);
    const unknown = uncapturedMessage(op, i, declared);
    if (unknown !== undefined) throw new ToolError(unknown);
    return declared;
  });
  let limit: number | undefined;
  if (params.limit !== undefined) {
    const l = Math.floor(params.limit);
    if (!Number.isFinite(l) || l < 1) throw new ToolError("limit must be a positive number");
    limit = l;
  }
  return {
    pats: list.map((op) => op.pat),
    outs: list.map((op) => op.out),
    templates: prepareTemplates(list.map((op) => op.out)),
    captures: list.map((op, i) => Object.fromEntries(templateNames(op.out).map((name) => [name, caps[i]!.get(name) ?? false]))),
    allCaptures: caps.map((c) => Object.fromEntries(c)),
    sel: params.sel !== undefined && params.sel.trim() !== "" ? params.sel.trim() : undefined,
    limit,
  };
}

/**
 * What the limit leaves of a file's `found` good matches when `total` were kept before it:
 * `keep` undefined keeps all; `full` says the limit was already used up (the file and every
 * later one count for nothing); `reached` that this file met it.
 */
export function limitCut(limit: number | undefined, total: number, found: number): { full: boolean; keep: number | undefined; reached: boolean } {
  if (limit === undefined) return { full: false, keep: undefined, reached: false };
  if (total >= limit) return { full: true, keep: undefined, reached: true };
  if (total + found > limit) return { full: false, keep: limit - total, reached: true };
  return { full: false, keep: undefined, reached: false };
}

/** A file the step rewrites: its text as read and the planned matches. */
export interface FilePlan {
  rel: string;
  lang: string;
  text: string;
  sha256: string;
  after: string;
  matches: PlannedMatch[];
  /** Matches kept (limit): all when undefined. */
  keep: number | undefined;
}

type FilePlanning = { kind: "unchanged" } | { kind: "overlaps"; lines: string[] } | { kind: "planned"; plan: FilePlan };

/** One file's rewrite: its good matches (cut to `keep`) planned over its text. */
export function planFile(
  file: { rel: string; lang: string; text: string; sha256: string },
  good: readonly RawMatch[],
  keep: number | undefined,
  ops: Pick<EditOps, "pats" | "templates">,
): FilePlanning {
  const raw = keep === undefined ? good : truncateMatches(good, keep);
  const planned = planRewrite(file.text, raw, ops.templates);
  if (!planned.ok) return { kind: "overlaps", lines: overlapLines(file.rel, file.text, planned.overlaps, ops.pats) };
  if (planned.after === file.text) return { kind: "unchanged" };
  return {
    kind: "planned",
    plan: { rel: file.rel, lang: file.lang, text: file.text, sha256: file.sha256, after: planned.after, matches: planned.matches, keep },
  };
}

function rangeText(file: string, index: LineIndex, start: number, end: number): string {
  const a = index.pos(start);
  const b = index.pos(end);
  return `${file}:${a.line}:${a.col}-${b.line}:${b.col}`;
}

/** One line per overlap, both ranges with their patterns. */
function overlapLines(file: string, text: string, overlaps: readonly Overlap[], pats: readonly string[]): string[] {
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

/** Whether sorted edits turn `text` into `after`, compared piece by piece (no text is built). */
function reproduces(text: string, edits: readonly TextEdit[], after: string): boolean {
  let pos = 0;
  let at = 0;
  for (const e of edits) {
    if (!(e.start >= pos && e.end >= e.start && e.end <= text.length)) return false;
    const kept = e.start - pos;
    if (!after.startsWith(text.slice(pos, e.start), at) || !after.startsWith(e.text, at + kept)) return false;
    at += kept + e.text.length;
    pos = e.end;
  }
  return after.length - at === text.length - pos && after.startsWith(text.slice(pos), at);
}

/** The top-level replacements as edits (nested ones are inside them), or the one edit between the texts. */
export function editsOf(plan: Pick<FilePlan, "text" | "after" | "matches">): TextEdit[] {
  const edits = plan.matches.filter((m) => m.depth === 0).map((m) => ({ start: m.start, end: m.end, text: m.replacement }));
  return reproduces(plan.text, edits, plan.after) ? edits : editBetween(plan.text, plan.after);
}

/** Texts in details are clipped (the full change is in the action's diff). */
function clip(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export interface ChangeDetail {
  path: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  matched: string;
  replacement: string;
  nested: boolean;
}

/** One file's change details, positions from its text. */
export function changeDetails(plan: Pick<FilePlan, "rel" | "text" | "matches">): ChangeDetail[] {
  const index = new LineIndex(plan.text);
  return plan.matches.map((m): ChangeDetail => {
    const a = index.pos(m.start);
    const b = index.pos(m.end);
    return {
      path: plan.rel,
      line: a.line,
      col: a.col,
      endLine: b.line,
      endCol: b.col,
      matched: clip(m.matched),
      replacement: clip(m.replacement),
      nested: m.depth > 0,
    };
  });
}

/**
 * A file's `-`/`+` preview lines from its change details: the first line of each text, cut
 * (cutting a clipped text gives what cutting the whole one gives, so the details suffice).
 */
export function previewLines(changes: ReadonlyArray<Omit<ChangeDetail, "path">>): string[] {
  const width = String(Math.max(...changes.map((c) => c.line))).length;
  return changes.flatMap((c) => {
    const ref = `${String(c.line).padStart(width)}:${c.col}`;
    return [`-${ref} ${cut(c.matched)}`, `+${ref} ${cut(c.replacement)}`];
  });
}

/** One file of the preview listing. */
export interface ListedFile {
  display: string;
  count: number;
  lines: readonly string[];
  changes: readonly ChangeDetail[];
}

/**
 * The preview listing: each file's lines under a heading with its count, files grouped by
 * directory (`# dir`, then `## └─ name`); a one-file scope lists its lines alone. The change
 * details come in the listing's order.
 */
export function previewListing(files: readonly ListedFile[], singleFile: boolean): { lines: string[]; changes: ChangeDetail[] } {
  const lines: string[] = [];
  const changes: ChangeDetail[] = [];
  const emit = (f: ListedFile, heading?: string) => {
    if (heading !== undefined) lines.push(heading);
    lines.push(...f.lines);
    changes.push(...f.changes);
  };
  if (singleFile) {
    for (const f of files) emit(f);
    return { lines, changes };
  }
  for (const group of groupByDir(files)) {
    if (group.dir === ".") {
      for (const f of group.items) {
        if (lines.length > 0) lines.push("");
        emit(f, `# ${f.display} (${plural(f.count, "replacement")})`);
      }
      continue;
    }
    if (lines.length > 0) lines.push("");
    lines.push(`# ${group.dir}`);
    for (const f of group.items) emit(f, `## └─ ${f.display.slice(group.dir.length + 1)} (${plural(f.count, "replacement")})`);
  }
  return { lines, changes };
}
