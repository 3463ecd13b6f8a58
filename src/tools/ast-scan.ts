import { Type, type Static } from "@sinclair/typebox";
import { InputError, StaleError, ToolError, formatIssue } from "../errors.js";
import type { AgentToolResult, Tool } from "../domain/types.js";
import { textResult } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import type { ToolHost } from "./host.js";
import { loadRuleSet, type RuleSet } from "./scan/rules.js";
import { parseIssuesBlock } from "./ast/search.js";
import { runScan, type Finding, type ScanOutput } from "./scan/scan.js";
import { plural } from "../util/plural.js";
import { messageOf } from "../util/thrown.js";

export const astScanParameters = Type.Object(
  {
    config: Type.Optional(Type.String({ description: "Path of an sgconfig.yml (ruleDirs, utilDirs, languageGlobs), relative to the recipe" })),
    rules: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })]), {
        description: "Rule files, directories or globs (relative to the recipe; multi-document YAML allowed), or inline rule objects",
      }),
    ),
    filter: Type.Optional(Type.String({ description: "Regex over rule ids: only matching rules run (like ast-grep scan --filter)" })),
    path: Type.Optional(Type.String({ description: "File, directory, or glob pattern to scan (default: cwd)" })),
    glob: Type.Optional(Type.String({ description: "Optional glob filter relative to path" })),
    limit: Type.Optional(Type.Number({ description: "Max findings listed in the result text (default: 50; all are in the details)" })),
  },
  { additionalProperties: false },
);

export type AstScanParams = Static<typeof astScanParameters>;

export interface AstScanDetails {
  rules: number;
  skippedRules: Array<{ id: string; language: string; reason: string; file: string }>;
  /** Unknown keys the rules hold where ast-grep ignores them, file:line:col first. */
  ignoredKeys?: string[];
  filesSearched: number;
  findings: Finding[];
  counts: { error: number; warning: number; info: number; hint: number };
  actions: Array<{ id: string; rule: string; fixes: number; files: number }>;
  unreadable?: Array<{ path: string; reason: string }>;
  /** Matches skipped because they rest on a syntax error: no finding, no fix. */
  parseIssues?: Array<{ rule: string; path: string; start: { line: number; column: number } }>;
}

/** Loads a step's rule set (relative to the recipe); the error lists every problem with file:line:col. */
export async function ruleSetOf(host: Pick<ToolHost, "cwd" | "recipeDir" | "displayBase">, params: AstScanParams): Promise<RuleSet> {
  if (params.config === undefined && (params.rules === undefined || params.rules.length === 0)) {
    throw new InputError("ast_scan needs `config` (an sgconfig.yml) or `rules`");
  }
  if (params.filter !== undefined) {
    try {
      new RegExp(params.filter, "u");
    } catch (err) {
      throw new InputError(`ast_scan filter is not a valid regex: ${messageOf(err)}`);
    }
  }
  const baseDir = host.recipeDir ?? host.cwd;
  return loadRuleSet({
    baseDir,
    displayBase: host.displayBase ?? host.cwd,
    ...(params.config !== undefined ? { config: params.config } : {}),
    ...(params.rules ? { rules: params.rules } : {}),
  });
}

export function createAstScanTool(host: ToolHost): Tool<typeof astScanParameters, AstScanDetails> {
  return {
    name: "ast_scan",
    label: "AST Scan",
    description:
      "Run ast-grep rule files (sgconfig.yml, rule YAML with rule/constraints/utils/transform/rewriters/fix). Every match is a finding; each rule with fixes stages one pending action (id <step>#<rule-id>).",
    parameters: astScanParameters,
    deferrable: true,
    // The rule set's errors, and as warnings the keys its rules hold that ast-grep ignores (at the
    // step's `config` or `rules`; each message starts with the rule file's place).
    async check(params) {
      try {
        const set = await ruleSetOf(host, params);
        return set.warnings.map((w) => ({ at: [params.config !== undefined ? "config" : "rules"], message: formatIssue(w), warning: true }));
      } catch (err) {
        if (err instanceof InputError) return err.issues;
        throw err;
      }
    },
    async execute(_id, params, _onUpdate, ctx, signal): Promise<AgentToolResult<AstScanDetails>> {
      const set = await stepRuleSet(host, params);
      for (const w of set.warnings) host.logger.warn(formatIssue(w));
      const filter = params.filter !== undefined ? new RegExp(params.filter, "u") : undefined;
      const rules = set.rules.filter((r) => r.severity !== "off" && (!filter || filter.test(r.id)));
      const out = await runScan({
        workspace: host.workspace,
        scope: host.scope,
        gitTimeoutMs: host.gitTimeoutMs,
        env: host.process?.env,
        rules,
        config: set.config,
        path: params.path,
        glob: params.glob,
        signal,
        cache: host.cache,
        tuning: host.ast,
      });
      const actions = await stageFixes(host, out, ctx.stepId);
      const details = scanDetails(set, rules.length, out, actions);
      return textResult(resultText(details, params.limit ?? 50), details);
    },
  };
}

/** The step's rules at run time: a problem in them fails the step (the check has told the details). */
async function stepRuleSet(host: ToolHost, params: AstScanParams): Promise<RuleSet> {
  try {
    return await ruleSetOf(host, params);
  } catch (err) {
    if (err instanceof InputError) throw new ToolError(err.issues.map(formatIssue).join("\n"));
    throw err;
  }
}

/**
 * One pending action per rule with fixes (id `<step>#<rule>`), staged from the edits against the
 * text each file had when it was scanned, handed over with that text (not read again); a file
 * changed since is caught when the action applies (its sha256 is no longer the scanned one:
 * rebased over this run's writes, or stale). Marks each fixed finding with its action's id.
 */
async function stageFixes(host: ToolHost, out: ScanOutput, stepId: string): Promise<AstScanDetails["actions"]> {
  const actions: AstScanDetails["actions"] = [];
  const memo = host.cache?.staging();
  for (const rf of out.fixes) {
    let changes;
    try {
      changes = await host.workspace.stageEdits(
        rf.files.map((f) => ({ path: f.path, beforeSha256: f.sha256, ...(f.text !== undefined ? { text: f.text } : {}), edits: f.edits })),
        memo,
      );
    } catch (err) {
      if (err instanceof StaleError) throw new ToolError(`${err.message} (rule ${rf.rule.id}); run again`);
      throw err;
    }
    if (changes.length === 0) continue;
    const id = `${stepId}#${rf.rule.id}`;
    const summary = `${plural(rf.count, "fix", "fixes")} in ${plural(changes.length, "file")}`;
    host.push(
      createFileAction(host.workspace, {
        label: `AST Scan: ${rf.rule.id}: ${summary}`,
        sourceToolName: "ast_scan",
        key: rf.rule.id,
        changes,
        replacements: rf.count,
        details: { rule: rf.rule.id, severity: rf.rule.severity, fixes: rf.count, files: changes.map((c) => c.path) },
        appliedText: () => `Applied ${summary} (rule ${rf.rule.id}).`,
      }),
    );
    actions.push({ id, rule: rf.rule.id, fixes: rf.count, files: changes.length });
    for (const f of out.findings) if (f.rule === rf.rule.id && f.replacement) f.fix = id;
  }
  return actions;
}

function scanDetails(set: RuleSet, rules: number, out: ScanOutput, actions: AstScanDetails["actions"]): AstScanDetails {
  const counts = { error: 0, warning: 0, info: 0, hint: 0 };
  for (const f of out.findings) counts[f.severity]++;
  return {
    rules,
    skippedRules: set.skipped.map((s) => ({ id: s.id, language: s.language, reason: s.reason, file: s.origin.file })),
    ...(set.warnings.length ? { ignoredKeys: set.warnings.map(formatIssue) } : {}),
    filesSearched: out.filesSearched,
    findings: out.findings,
    counts,
    actions,
    ...(out.unreadable.length ? { unreadable: out.unreadable } : {}),
    ...(out.parseIssues.length ? { parseIssues: out.parseIssues } : {}),
  };
}

function resultText(d: AstScanDetails, limit: number): string {
  const lines: string[] = [];
  const n = d.findings.length;
  const sev = (["error", "warning", "info", "hint"] as const).filter((s) => d.counts[s] > 0).map((s) => `${d.counts[s]} ${s}`);
  lines.push(
    n === 0
      ? `No findings (${plural(d.rules, "rule")}, ${plural(d.filesSearched, "file")} searched)`
      : `${plural(n, "finding")} (${sev.join(", ")}) from ${plural(d.rules, "rule")} in ${plural(d.filesSearched, "file")} searched`,
  );
  for (const f of d.findings.slice(0, Math.max(0, limit))) {
    lines.push(`${f.path}:${f.start.line}:${f.start.column}: ${f.severity}[${f.rule}]: ${f.message || f.text}${f.fix ? " (fixable)" : ""}`);
  }
  if (n > limit) lines.push(`… ${n - limit} more (all are in the step's details)`);
  if (d.skippedRules.length > 0) {
    lines.push("", "Skipped rules:");
    for (const s of d.skippedRules) lines.push(`  ${s.id} (${s.file}): ${s.reason}`);
  }
  if (d.ignoredKeys?.length) lines.push("", "Ignored keys:", ...d.ignoredKeys.map((k) => `  ${k}`));
  for (const u of d.unreadable ?? []) lines.push(`Skipped ${u.path}: ${u.reason}`);
  if (d.parseIssues?.length) {
    lines.push(
      "",
      ...parseIssuesBlock(
        d.parseIssues.map(
          (p) =>
            `${p.path}:${p.start.line}:${p.start.column}: ${p.rule}: parse error (the match rests on syntax error nodes; skipped, the file's other matches kept)`,
        ),
      ),
    );
  }
  if (d.actions.length > 0) {
    lines.push("", "Staged:");
    for (const a of d.actions) lines.push(`  ${a.id}: ${plural(a.fixes, "fix", "fixes")} in ${plural(a.files, "file")}`);
    lines.push("", "Preview only: no file has been modified yet.");
  }
  return lines.join("\n");
}
