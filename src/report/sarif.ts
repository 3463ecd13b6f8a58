/**
 * `--sarif FILE`: a SARIF 2.1.0 log that GitHub code scanning accepts, built from the
 * report, so run, plan, apply and merge-reports give the same thing for the same outcomes.
 * - One result per ast_scan finding still in the code (a finding whose fix was applied is gone),
 *   with `fixes` when its fix is staged but unapplied: a fixable finding is one result.
 * - One result per file of every other staged change left unapplied (rule `tollgate/<tool>`,
 *   level warning), at the change's first changed line.
 * - Paths are URIs relative to the repository root (`%SRCROOT%`), `partialFingerprints` set,
 *   `tool.driver.rules` lists every rule with a result, `automationDetails.id` differs per shard.
 * - GitHub's limits (25,000 results per run, 10 MB gzipped) are kept by truncating, with a note.
 */
import path from "node:path";
import { gzipSync } from "node:zlib";
import { firstChangedLines } from "./diff-lines.js";
import { sha256 } from "../util/hash.js";
import { appliedIds, appliedKey, findingsOf, shardOrder, type ReportFinding } from "./findings.js";
import type { OutcomeRecord, Report } from "./types.js";

export const SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
export const MAX_RESULTS = 25_000;
export const MAX_GZIP_BYTES = 10 * 1024 * 1024;

type Level = "error" | "warning" | "note";

interface SarifRule {
  id: string;
  name?: string;
  shortDescription: { text: string };
  fullDescription?: { text: string };
  help?: { text: string };
  helpUri?: string;
  defaultConfiguration: { level: Level };
}

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: Level;
  message: { text: string };
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId: string }; region: Record<string, number> } }>;
  partialFingerprints: Record<string, string>;
  fixes?: unknown[];
  properties?: Record<string, unknown>;
}

const LEVEL: Record<ReportFinding["severity"], Level> = { error: "error", warning: "warning", info: "note", hint: "note" };

/** A workspace path as a URI reference relative to the repository root. */
export function uriOf(rel: string, prefix: string): string {
  const full = prefix ? `${prefix.replace(/\/+$/, "")}/${rel}` : rel;
  return full
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .map((s) => encodeURIComponent(s))
    .join("/");
}

export interface SarifOptions {
  /** Workspace root relative to the repository root (POSIX, "" when it is the root). */
  repoPrefix?: string;
  /** Overrides the GitHub limits (tests). */
  maxResults?: number;
  maxGzipBytes?: number;
}

/** The `automationDetails.id`: the recipe, and the shard when the run was one. */
export function automationId(report: Report): string {
  // The recipe as the repository knows it (relative to the workspace), not this machine's path.
  const rel = path.relative(report.run.cwd, report.run.recipe.path);
  const recipe = rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : path.basename(report.run.recipe.path);
  const name = (report.run.recipe.name ?? recipe).replace(/[^A-Za-z0-9._-]+/g, "-");
  const shard = report.run.shard;
  const part = report.run.command === "merge-reports" ? "merged" : shard ? `shard-${shard.index}-of-${shard.count}` : "all";
  return `tollgate/${name}/${part}/`;
}

export function buildSarif(report: Report, options: SarifOptions = {}): { log: Record<string, unknown>; errorCount: number; truncated: number } {
  const prefix = options.repoPrefix ?? "";
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();
  const ruleOf = (rule: SarifRule): number => {
    let i = ruleIndex.get(rule.id);
    if (i === undefined) {
      i = rules.length;
      rules.push(rule);
      ruleIndex.set(rule.id, i);
    }
    return i;
  };
  const location = (path: string, region: Record<string, number>) => ({
    physicalLocation: { artifactLocation: { uri: uriOf(path, prefix), uriBaseId: "%SRCROOT%" }, region },
  });
  const results: SarifResult[] = [];
  const applied = appliedIds(report.outcomes);
  const outcomeById = new Map(report.outcomes.map((o) => [o.id, o] as const));
  const seen = new Map<string, number>();
  const fingerprint = (parts: string[]) => {
    const key = parts.join("\u0000");
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return sha256(`${key}\u0000${n}`).slice(0, 32);
  };
  const merged = (report as { merged?: { reports: Array<{ shard: { index: number } | null }> } }).merged;
  for (const f of findingsOf(report.steps, shardOrder(report.outcomes, merged?.reports))) {
    if (f.fix && applied.has(appliedKey(f.fix, f.shard))) continue;
    const level = LEVEL[f.severity];
    const index = ruleOf({
      id: f.rule,
      name: f.rule,
      shortDescription: { text: f.rule },
      ...(f.note ? { help: { text: f.note } } : {}),
      ...(f.url ? { helpUri: f.url } : {}),
      defaultConfiguration: { level },
    });
    const region = { startLine: f.start.line, startColumn: f.start.column, endLine: f.end.line, endColumn: f.end.column };
    const result: SarifResult = {
      ruleId: f.rule,
      ruleIndex: index,
      level,
      message: { text: f.message || f.text || f.rule },
      locations: [location(f.path, region)],
      partialFingerprints: { "tollgateFinding/v1": fingerprint([f.rule, f.path, f.text ?? "", f.message]) },
    };
    const outcome = f.fix ? outcomeById.get(f.fix) : undefined;
    if (f.replacement) {
      result.fixes = [
        {
          description: { text: `${outcome?.label ?? `AST Scan: ${f.rule}`} (${f.fix ?? "not staged"})` },
          artifactChanges: [
            {
              artifactLocation: { uri: uriOf(f.path, prefix), uriBaseId: "%SRCROOT%" },
              replacements: [
                {
                  deletedRegion: {
                    startLine: f.replacement.start.line,
                    startColumn: f.replacement.start.column,
                    endLine: f.replacement.end.line,
                    endColumn: f.replacement.end.column,
                  },
                  insertedContent: { text: f.replacement.text },
                },
              ],
            },
          ],
        },
      ];
      if (outcome) result.properties = { outcome: outcome.outcome, action: outcome.id };
    }
    results.push(result);
  }
  for (const o of report.outcomes) {
    if (o.sourceToolName === "ast_scan" || !unapplied(o)) continue;
    const id = `tollgate/${o.sourceToolName}`;
    const index = ruleOf({
      id,
      name: id,
      shortDescription: { text: `A change staged by ${o.sourceToolName} and left unapplied` },
      defaultConfiguration: { level: "warning" },
    });
    const lines = firstChangedLines(o.diff ?? "", false);
    o.files.forEach((file, i) => {
      const line = lines.length === o.files.length ? lines[i]! : 1;
      results.push({
        ruleId: id,
        ruleIndex: index,
        level: "warning",
        message: { text: `${o.label} (${o.id}): ${o.outcome}${o.error ? `: ${o.error}` : ""}` },
        locations: [location(file.path, { startLine: line })],
        partialFingerprints: { "tollgateChange/v1": fingerprint([o.id, file.path, file.afterSha256 ?? "deleted"]) },
        properties: { outcome: o.outcome, action: o.id },
      });
    });
  }
  const maxResults = options.maxResults ?? MAX_RESULTS;
  const maxBytes = options.maxGzipBytes ?? MAX_GZIP_BYTES;
  let kept = results.slice(0, maxResults);
  let log = logOf(report, rules, kept, results.length);
  while (kept.length > 0 && gzipSync(JSON.stringify(log)).length > maxBytes) {
    kept = kept.slice(0, Math.floor(kept.length / 2));
    log = logOf(report, rules, kept, results.length);
  }
  const errorCount = kept.filter((r) => r.level === "error").length;
  return { log, errorCount, truncated: results.length - kept.length };
}

function unapplied(o: OutcomeRecord): boolean {
  return o.files.length > 0 && o.outcome !== "applied" && o.outcome !== "discarded";
}

function logOf(report: Report, allRules: SarifRule[], results: SarifResult[], total: number): Record<string, unknown> {
  // Only the rules that produced a kept result, re-indexed.
  const used = [...new Set(results.map((r) => r.ruleIndex))].sort((a, b) => a - b);
  const remap = new Map(used.map((old, i) => [old, i] as const));
  const rules = used.map((i) => allRules[i]!);
  const notes =
    results.length < total
      ? [
          {
            level: "warning",
            message: {
              text: `Truncated to ${results.length} of ${total} results to stay within GitHub code scanning's limits; every finding is in the JSON report`,
            },
          },
        ]
      : [];
  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "tollgate",
            version: report.run.version,
            semanticVersion: report.run.version,
            informationUri: "https://www.npmjs.com/package/tollgate",
            rules,
          },
        },
        automationDetails: { id: automationId(report) },
        columnKind: "utf16CodeUnits",
        originalUriBaseIds: { "%SRCROOT%": { description: { text: "The repository root" } } },
        invocations: [
          {
            executionSuccessful: report.exitCode === 0 || report.exitCode === 1,
            exitCode: report.exitCode,
            ...(notes.length ? { toolExecutionNotifications: notes } : {}),
          },
        ],
        results: results.map((r) => ({ ...r, ruleIndex: remap.get(r.ruleIndex)! })),
        ...(results.length < total ? { properties: { truncated: true, totalResults: total } } : {}),
      },
    ],
  };
}
