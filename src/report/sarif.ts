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
import { relativeInside } from "../util/inside.js";

const SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const MAX_RESULTS = 25_000;
const MAX_GZIP_BYTES = 10 * 1024 * 1024;

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
function uriOf(rel: string, prefix: string): string {
  const full = prefix ? `${prefix.replace(/\/+$/, "")}/${rel}` : rel;
  return full
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .map((s) => encodeURIComponent(s))
    .join("/");
}

interface SarifOptions {
  /** Workspace root relative to the repository root (POSIX, "" when it is the root). */
  repoPrefix?: string;
  /** Overrides the GitHub limits (tests). */
  maxResults?: number;
  maxGzipBytes?: number;
}

/** The `automationDetails.id`: the recipe, and the shard when the run was one. */
function automationId(report: Report): string {
  // The recipe as the repository knows it (relative to the workspace), not this machine's path.
  const recipe = relativeInside(report.run.cwd, report.run.recipe.path) ?? path.basename(report.run.recipe.path);
  const name = (report.run.recipe.name ?? recipe).replace(/[^A-Za-z0-9._-]+/g, "-");
  const shard = report.run.shard;
  const part = report.run.command === "merge-reports" ? "merged" : shard ? `shard-${shard.index}-of-${shard.count}` : "all";
  return `tollgate/${name}/${part}/`;
}

/** The log's rules and results as they are added: each rule once, each fingerprint unique. */
class SarifResults {
  readonly rules: SarifRule[] = [];
  readonly results: SarifResult[] = [];
  readonly #ruleIndex = new Map<string, number>();
  readonly #seen = new Map<string, number>();
  constructor(readonly prefix: string) {}

  /** The rule's index, added at its first result. */
  rule(rule: SarifRule): number {
    let i = this.#ruleIndex.get(rule.id);
    if (i === undefined) {
      i = this.rules.length;
      this.rules.push(rule);
      this.#ruleIndex.set(rule.id, i);
    }
    return i;
  }
  artifact(path: string): { uri: string; uriBaseId: string } {
    return { uri: uriOf(path, this.prefix), uriBaseId: "%SRCROOT%" };
  }
  location(path: string, region: Record<string, number>): SarifResult["locations"][number] {
    return { physicalLocation: { artifactLocation: this.artifact(path), region } };
  }
  /** Equal parts get distinct fingerprints by their order of appearance. */
  fingerprint(parts: string[]): string {
    const key = parts.join("\u0000");
    const n = (this.#seen.get(key) ?? 0) + 1;
    this.#seen.set(key, n);
    return sha256(`${key}\u0000${n}`).slice(0, 32);
  }
}

/** A finding's staged fix as a SARIF fix (its replacement over the finding's file). */
function fixOf(out: SarifResults, f: ReportFinding, r: NonNullable<ReportFinding["replacement"]>, outcome: OutcomeRecord | undefined): unknown {
  return {
    description: { text: `${outcome?.label ?? `AST Scan: ${f.rule}`} (${f.fix ?? "not staged"})` },
    artifactChanges: [
      {
        artifactLocation: out.artifact(f.path),
        replacements: [
          {
            deletedRegion: { startLine: r.start.line, startColumn: r.start.column, endLine: r.end.line, endColumn: r.end.column },
            insertedContent: { text: r.text },
          },
        ],
      },
    ],
  };
}

function addFinding(out: SarifResults, f: ReportFinding, outcome: OutcomeRecord | undefined): void {
  const level = LEVEL[f.severity];
  const index = out.rule({
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
    locations: [out.location(f.path, region)],
    partialFingerprints: { "tollgateFinding/v1": out.fingerprint([f.rule, f.path, f.text ?? "", f.message]) },
  };
  if (f.replacement) {
    result.fixes = [fixOf(out, f, f.replacement, outcome)];
    if (outcome) result.properties = { outcome: outcome.outcome, action: outcome.id };
  }
  out.results.push(result);
}

/** One result per file of a change staged by another tool and left unapplied, at its first changed line. */
function addChange(out: SarifResults, o: OutcomeRecord): void {
  const id = `tollgate/${o.sourceToolName}`;
  const index = out.rule({
    id,
    name: id,
    shortDescription: { text: `A change staged by ${o.sourceToolName} and left unapplied` },
    defaultConfiguration: { level: "warning" },
  });
  const lines = firstChangedLines(o.diff ?? "", false);
  o.files.forEach((file, i) => {
    const line = lines.length === o.files.length ? lines[i]! : 1;
    out.results.push({
      ruleId: id,
      ruleIndex: index,
      level: "warning",
      message: { text: `${o.label} (${o.id}): ${o.outcome}${o.error ? `: ${o.error}` : ""}` },
      locations: [out.location(file.path, { startLine: line })],
      partialFingerprints: { "tollgateChange/v1": out.fingerprint([o.id, file.path, file.afterSha256 ?? "deleted"]) },
      properties: { outcome: o.outcome, action: o.id },
    });
  });
}

export function buildSarif(report: Report, options: SarifOptions = {}): { log: Record<string, unknown>; errorCount: number; truncated: number } {
  const out = new SarifResults(options.repoPrefix ?? "");
  const applied = appliedIds(report.outcomes);
  const outcomeById = new Map(report.outcomes.map((o) => [o.id, o] as const));
  const merged = (report as { merged?: { reports: Array<{ shard: { index: number } | null }> } }).merged;
  for (const f of findingsOf(report.steps, shardOrder(report.outcomes, merged?.reports))) {
    if (f.fix && applied.has(appliedKey(f.fix, f.shard))) continue;
    addFinding(out, f, f.fix ? outcomeById.get(f.fix) : undefined);
  }
  for (const o of report.outcomes) if (o.sourceToolName !== "ast_scan" && unapplied(o)) addChange(out, o);
  const { results, rules } = out;
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
        // Columns count characters (code points), as ast-grep's own do.
        columnKind: "unicodeCodePoints",
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
