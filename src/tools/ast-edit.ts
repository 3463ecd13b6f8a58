import { Type, type Static } from "@sinclair/typebox";
import { ToolError } from "../errors.js";
import type { AgentToolResult, CheckIssue, FileChange, StagingMemo, TextEdit, Tool } from "../domain/types.js";
import type { FileResult } from "./ast/engine.js";
import type { EditAnswer, FileCache } from "../cache/index.js";
import { sha256 } from "../util/hash.js";
import { textResult } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import { editBetween } from "../workspace/change.js";
import { searchContext, type ToolHost } from "./host.js";
import { astCheck } from "./preflight.js";
import { badMatches, goodMatches, matchText } from "./ast/engine.js";
import { napiSync } from "./ast/langs.js";
import type { PrefilterSpec } from "./ast/pattern.js";
import { pairsOf, planRewrite, truncateMatches } from "./ast/rewrite.js";
import {
  scopeDisplay,
  mergedIssues,
  parseIssuesBlock,
  runSearch,
  patternWarningLines,
  skippedBlock,
  syntaxIssueLines,
  type SearchOutcome,
} from "./ast/search.js";
import {
  editOps,
  editsOf,
  limitCut,
  planFile,
  previewListing,
  changeDetails,
  previewLines,
  uncapturedMessage,
  type ChangeDetail,
  type EditOps,
  type FilePlan,
} from "./edit/plan.js";
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
  changes?: ChangeDetail[];
}

const PREVIEW_REMINDER = "Preview only: no file has been modified yet. Resolving this pending action with apply writes these changes.";

function replacementsLabel(n: number, m: number): string {
  return `${plural(n, "replacement")} in ${plural(m, "file")}`;
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

/** What a rebase compares: the file's language, the limit's cut and the digest of its (matched, replacement) pairs. */
interface RebaseBasis {
  lang: string;
  keep: number | undefined;
  pairs: string;
}

/**
 * Re-runs the rewrite on a file's current text. Returns the new text when the ordered
 * (matched, replacement) pairs equal the preview's, undefined otherwise (→ stale). Keeps a
 * digest of the pairs, not the previewed texts.
 */
function makeRebase(basis: RebaseBasis, ops: EditOps, prefilter: Record<string, PrefilterSpec>): (current: string) => string | undefined {
  const { lang, keep, pairs } = basis;
  const { pats, templates, captures, allCaptures, sel } = ops;
  return (current) => {
    try {
      const napi = napiSync();
      const found = matchText(napi, lang, current, {
        ops: pats.map((pat, i) => ({ pat, captures: captures[i] ?? {}, all: allCaptures[i] ?? {} })),
        sel,
        prefilter,
      });
      const matches = goodMatches(found.matches);
      const kept = keep === undefined ? matches : truncateMatches(matches, keep);
      const result = planRewrite(current, kept, templates);
      if (!result.ok) return undefined;
      return sha256(pairsOf(result.matches)) === pairs ? result.after : undefined;
    } catch {
      return undefined;
    }
  };
}

/** A rebase that returns the edits from the current text to the rewritten one. */
function editRebase(rebase: (current: string) => string | undefined): (current: string) => TextEdit[] | undefined {
  return (current) => {
    const after = rebase(current);
    return after === undefined ? undefined : editBetween(current, after);
  };
}

function ignore(): void {}

/**
 * A file's plan reduced to what staging and the result need, detached from its text: the edits,
 * the change details (without the path; the preview's lines are made from them), the matches per
 * op and the digest of the pairs a rebase compares.
 */
function planOutcome(plan: FilePlan, opCount: number): EditAnswer {
  const perOp: number[] = new Array<number>(opCount).fill(0);
  for (const m of plan.matches) perOp[m.op]!++;
  return detach({
    edits: editsOf(plan),
    changes: changeDetails(plan).map(({ path: _path, ...c }) => c),
    perOp,
    pairs: sha256(pairsOf(plan.matches)),
  });
}

/** What is kept of a rewritten file once its turn is over: no text of it. */
interface FileOutcome {
  index: number;
  rel: string;
  count: number;
  /** Matches per op. */
  perOp: number[];
  /** The preview's `-`/`+` lines of the file. */
  lines: string[];
  changes: ChangeDetail[];
  change: Promise<FileChange[]>;
}

type SearchStart = Pick<SearchOutcome, "discovery" | "langOf" | "prefilter">;

/**
 * One step's files as the engine hands them over: each is planned, staged (the diff is computed
 * while its text is in hand) and reduced to its outcome, so its text is freed when its turn is
 * over. The per-file methods make no closure: one would keep the file's result (its text) alive.
 * With a limit, files count in discovery order (the first files' replacements are kept); without
 * one, in the order their results arrive.
 */
class EditFiles {
  readonly parseErrors = new Map<number, string[]>();
  readonly parseWarnings = new Map<number, string>();
  readonly overlaps = new Map<number, string[]>();
  readonly outcomes: FileOutcome[] = [];
  total = 0;
  limitReached = false;
  /** The first index whose file counts for nothing (the limit was used up before it). */
  #cutoff = Number.POSITIVE_INFINITY;
  #start: SearchStart | undefined;
  /** Results arriving before their turn (limit only). */
  readonly #waiting = new Map<number, FileResult>();
  #next = 0;

  constructor(
    readonly ops: EditOps,
    readonly workspace: ToolHost["workspace"],
    readonly memo: { edit?: FileCache<EditAnswer> | undefined; staging?: StagingMemo | undefined },
  ) {}

  start(s: SearchStart): void {
    this.#start = s;
  }

  receive(r: FileResult, index: number): void {
    if (this.ops.limit === undefined) {
      this.#add(r, index);
      return;
    }
    this.#waiting.set(index, r);
    while (this.#waiting.has(this.#next)) {
      const next = this.#waiting.get(this.#next)!;
      this.#waiting.delete(this.#next);
      this.#add(next, this.#next++);
    }
  }

  #add(r: FileResult, index: number): void {
    if (index >= this.#cutoff) return;
    const start = this.#start!;
    const shown = scopeDisplay(r.rel, start.discovery);
    if (r.status === "searched" && r.issues) this.parseErrors.set(index, syntaxIssueLines(shown, r.issues));
    if (r.status !== "matched") return;
    const good = goodMatches(r.matches);
    const cut = limitCut(this.ops.limit, this.total, good.length);
    if (cut.full) {
      this.limitReached = true;
      this.#cutoff = index;
      return;
    }
    const bad = badMatches(r.matches);
    if (bad.length > 0 || r.issues) this.parseErrors.set(index, detach(mergedIssues(shown, r.text, bad, r.issues)));
    if (good.length === 0) return;
    if (cut.reached) this.limitReached = true;
    const lang = start.langOf.get(r.rel)!;
    const content = { sha256: r.sha256, text: r.text };
    // A plan kept by the result cache stands for planning the same matches again (no limit cut them).
    const kept = cut.keep === undefined ? this.memo.edit?.get(lang, content) : undefined;
    let planned: EditAnswer;
    if (kept) planned = kept;
    else {
      const planning = planFile({ rel: r.rel, lang, text: r.text, sha256: r.sha256 }, good, cut.keep, this.ops);
      if (planning.kind === "overlaps") this.overlaps.set(index, detach(planning.lines));
      if (planning.kind !== "planned") return;
      planned = planOutcome(planning.plan, this.ops.pats.length);
      if (cut.keep === undefined) this.memo.edit?.put(lang, content, planned);
    }
    if (r.syntaxErrors) this.parseWarnings.set(index, `${shown}: syntax tree contains error nodes; the matched code parsed cleanly and was rewritten`);
    this.#stage(r, index, planned, { lang, keep: cut.keep, pairs: planned.pairs }, start.prefilter);
  }

  #stage(
    r: Extract<FileResult, { status: "matched" }>,
    index: number,
    planned: EditAnswer,
    basis: RebaseBasis,
    prefilter: Record<string, PrefilterSpec>,
  ): void {
    const count = planned.perOp.reduce((n, k) => n + k, 0);
    this.total += count;
    // Staging with the text in hand computes the diff (spilled) now; the change keeps edits.
    const change = this.workspace.stageEdits(
      [{ path: r.rel, beforeSha256: r.sha256, text: r.text, edits: planned.edits, rebase: editRebase(makeRebase(basis, this.ops, prefilter)) }],
      this.memo.staging,
    );
    // A file whose staging fails fails the step (changes()); none is left unhandled meanwhile.
    change.catch(ignore);
    const changes = planned.changes.map((c) => ({ path: r.rel, ...c }));
    this.outcomes.push({ index, rel: r.rel, count, perOp: planned.perOp, lines: previewLines(planned.changes), changes, change });
  }

  /** A map's values of the files that count (before the cutoff), in discovery order. */
  inOrder<T>(m: ReadonlyMap<number, T>): T[] {
    return [...m]
      .filter(([i]) => i < this.#cutoff)
      .sort((x, y) => x[0] - y[0])
      .map(([, v]) => v);
  }

  /** Fails the step when any file's matches overlap: nothing is staged then. */
  assertNoOverlaps(): void {
    if (this.overlaps.size === 0) return;
    const all = [...this.overlaps].sort((x, y) => x[0] - y[0]).flatMap(([, l]) => l);
    throw new ToolError(
      [
        "Overlapping replacements detected; refine pattern to avoid ambiguous edits. Nothing was staged.",
        ...all.slice(0, 50),
        ...(all.length > 50 ? [`… and ${all.length - 50} more`] : []),
      ].join("\n"),
    );
  }

  /** The staged changes in discovery order (a staging that failed fails the step here). */
  async changes(): Promise<FileChange[]> {
    this.outcomes.sort((x, y) => x.index - y.index);
    return (await Promise.all(this.outcomes.map((o) => o.change))).flat();
  }
}

/**
 * Paths in `files`, `fileReplacements` and the parse issues are display paths (relative to the
 * scope directory, the basename for a one-file scope); `changes` and the report's outcome files
 * are workspace-relative.
 */
function editDetails(files: EditFiles, search: SearchOutcome, parseErrors: readonly string[], parseWarnings: readonly string[]): AstEditDetails {
  const d = search.discovery;
  const fileReplacements = files.outcomes.map((o) => ({ path: scopeDisplay(o.rel, d), count: o.count }));
  return {
    totalReplacements: files.total,
    filesTouched: files.outcomes.length,
    filesSearched: search.filesSearched,
    applied: false,
    limitReached: files.limitReached,
    parseErrors: [...new Set(parseErrors)],
    ...(parseWarnings.length > 0 ? { parseWarnings: [...parseWarnings] } : {}),
    ...(search.skipped.length > 0 ? { skipped: search.skipped.map((s) => ({ path: s.path, reason: s.reason })) } : {}),
    scopePath: d.scopePath,
    files: fileReplacements.map((f) => f.path),
    fileReplacements,
  };
}

/** The result's closing notes: patterns that matched nothing, files with error nodes, files skipped. */
function noteLines(files: EditFiles, search: SearchOutcome, parseWarnings: readonly string[], maxFileBytes: number): string[] {
  return [
    ...patternWarningLines(search.patternWarnings, (op) => files.outcomes.reduce((n, o) => n + o.perOp[op]!, 0)),
    ...(parseWarnings.length > 0
      ? [
          "",
          `Note: ${plural(parseWarnings.length, "file")} with syntax-tree error nodes (often syntax newer than the bundled grammar) rewritten where the matched code itself parsed cleanly (details.parseWarnings).`,
        ]
      : []),
    ...(search.skipped.length > 0 ? ["", ...skippedBlock(search.skipped, maxFileBytes)] : []),
  ];
}

/** The step's result, and its one pending action when anything is replaced. */
function finish(host: ToolHost, files: EditFiles, search: SearchOutcome, changes: FileChange[]): AgentToolResult<AstEditDetails> {
  const parseErrors = files.inOrder(files.parseErrors).flat();
  const parseWarnings = files.inOrder(files.parseWarnings);
  const details = editDetails(files, search, parseErrors, parseWarnings);
  const notes = noteLines(files, search, parseWarnings, host.workspace.maxFileBytes);
  // `No replacements made`, then the parse-issue block on the next line.
  if (files.total === 0) return textResult(["No replacements made", ...parseIssuesBlock(parseErrors), ...notes].join("\n"), details);
  const d = search.discovery;
  const { lines, changes: changeDetails } = previewListing(
    files.outcomes.map((o) => ({ display: scopeDisplay(o.rel, d), count: o.count, lines: o.lines, changes: o.changes })),
    d.singleFile,
  );
  if (files.limitReached) lines.push("", "Limit reached; narrow path or increase limit.");
  if (parseErrors.length > 0) lines.push("", ...parseIssuesBlock(parseErrors));
  lines.push(...notes, "", PREVIEW_REMINDER);
  const actionDetails = { ...details };
  details.changes = changeDetails;
  const summary = replacementsLabel(files.total, files.outcomes.length);
  host.push(
    createFileAction(host.workspace, {
      label: `AST Edit: ${summary}`,
      sourceToolName: "ast_edit",
      changes,
      details: actionDetails,
      replacements: files.total,
      appliedText: () => `Applied ${summary}.`,
    }),
  );
  return textResult(lines.join("\n"), details);
}

/** Every op's `out` reads only metavariables its `pat` captures (positioned at the `out`). */
function templateIssues(params: AstEditParams): CheckIssue[] {
  return params.ops.flatMap((op, i) => {
    const message = op.pat.trim() === "" ? undefined : uncapturedMessage(op, i);
    return message === undefined ? [] : [{ at: ["ops", i, "out"], message }];
  });
}

export function createAstEditTool(host: ToolHost): Tool<typeof astEditParameters, AstEditDetails> {
  const patternCheck = astCheck(host.cwd, (p: AstEditParams) =>
    p.ops.flatMap((op, i) => (op.pat.trim() !== "" ? [{ pat: op.pat, at: ["ops", i, "pat"] }] : [])),
  );
  return {
    name: "ast_edit",
    label: "AST Edit",
    description:
      "Structural rewrite with ast-grep patterns: every match of `pat` is replaced by `out` (metavariables like $A and $$$ARGS substituted). Preview only: stages one pending action; nothing is written until it is resolved with apply.",
    parameters: astEditParameters,
    deferrable: true,
    check: async (params, options) => [...(await patternCheck(params, options)), ...templateIssues(params)],
    async execute(_toolCallId, params, onUpdate, _ctx, signal): Promise<AgentToolResult<AstEditDetails>> {
      const ops = editOps(params);
      const files = new EditFiles(ops, host.workspace, { edit: host.cache?.edit(ops), staging: host.cache?.staging() });
      const search = await runSearch({
        onUpdate,
        ...searchContext(host),
        toolName: "ast_edit",
        pats: ops.pats,
        captures: ops.captures,
        allCaptures: ops.allCaptures,
        lang: params.lang,
        path: params.path,
        glob: params.glob,
        sel: ops.sel,
        signal,
        patWhere: (i) => `ops[${i}].pat`,
        onStart: (s) => files.start(s),
        onResult: (r, index) => files.receive(r, index),
      });
      files.assertNoOverlaps();
      return finish(host, files, search, await files.changes());
    },
  };
}
