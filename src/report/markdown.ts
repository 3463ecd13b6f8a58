import { campaignOf, renderCampaignTable } from "./campaign.js";
import type { OutcomeRecord, Report } from "./types.js";
import { OUTCOME_WORD, plannedDecisions } from "./words.js";
import { plural } from "../util/plural.js";

interface SummaryOptions {
  /** Total size budget in bytes (GitHub's step summary allows 1 MiB). */
  maxBytes?: number;
  /** Largest single diff shown in full, in bytes. */
  maxDiffBytes?: number;
  /** Where the full report is, for the truncation pointer. */
  reportPath?: string;
}

const cell = (text: string) => text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|").slice(0, 200);

/** A fence longer than any run of backticks in `text`, so the diff cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

export function summaryLine(report: Report): string {
  const s = report.summary;
  const parts = Object.entries(s.outcomes)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  const errors = s.stepErrors > 0 ? `, ${plural(s.stepErrors, "step error")}` : "";
  return `${plural(s.steps, "step")}${errors}, ${plural(s.actions, "action")}${parts.length ? `: ${parts.join(", ")}` : ""}`;
}

/** What every section reads: the report, where the full one is, and each action's decision cell. */
interface SummaryCtx {
  report: Report;
  where: string;
  would: Map<string, string>;
  decision: (o: OutcomeRecord) => string;
}

function headline(report: Report): string[] {
  const s = report.summary;
  const name = report.run.recipe.name ?? report.run.recipe.path;
  return [
    `## tollgate: ${cell(name)}`,
    "",
    `**${summaryLine(report)}** · exit ${report.exitCode}${report.run.interrupted ? " · interrupted" : ""}${report.run.dryRun ? " · dry run" : ""}`,
    "",
    `Files changed: ${s.filesChanged} (+${s.additions} −${s.deletions})`,
    "",
  ];
}

/** What changed where: every file an action touched, applied or not. */
function changesSection(ctx: SummaryCtx): string[] {
  const rows = ctx.report.outcomes.flatMap((o) => o.files.map((f) => ({ o, f })));
  if (rows.length === 0) return [];
  const out = ["### Changes", "", "| file | change | +/− | action | outcome | decision (rule) |", "|---|---|---|---|---|---|"];
  for (const { o, f } of rows.slice(0, MAX_ROWS)) {
    out.push(
      `| \`${cell(f.path).replace(/`/g, "'")}\` | ${f.change} | +${f.additions} −${f.deletions} | ${cell(o.id)} | ${OUTCOME_WORD[o.outcome]} | ${ctx.decision(o)} |`,
    );
  }
  if (rows.length > MAX_ROWS) out.push("", `_${plural(rows.length - MAX_ROWS, "more file")} in ${ctx.where}._`);
  out.push("");
  return out;
}

/** What awaits a person, and why: left pending now, or (a plan) what applying it would ask for. */
function awaitingSection(ctx: SummaryCtx): string[] {
  const { would } = ctx;
  const waiting = ctx.report.outcomes.filter((o) => o.outcome === "pending-approval" || /^would require approval/.test(would.get(o.id) ?? ""));
  if (waiting.length === 0) return [];
  const out = ["### Awaiting approval", ""];
  for (const o of waiting.slice(0, MAX_ROWS)) {
    const why = would.get(o.id) ?? o.reason ?? "awaiting approval";
    out.push(`- \`${cell(o.id)}\` ${cell(o.label)} — ${cell(why)}; approve with \`--approve ${cell(o.id)}\` (or \`--approve-all\`)`);
  }
  if (waiting.length > MAX_ROWS) out.push(`- _${plural(waiting.length - MAX_ROWS, "more action")} in ${ctx.where}._`);
  out.push("");
  return out;
}

function stepsTable(report: Report): string[] {
  return [
    "### Steps",
    "",
    "| # | step | tool | status | actions | ms | result |",
    "|---:|---|---|---|---|---:|---|",
    ...report.steps.map((st, i) => {
      const lines = st.resultText.split("\n");
      const more = lines.length > 1 ? ` (+${plural(lines.length - 1, "line")} below)` : "";
      return `| ${i + 1} | ${cell(st.id)} | ${cell(st.tool)} | ${st.status === "ok" ? "ok" : "**error**"} | ${cell(st.actions.join(", "))} | ${Math.round(st.durationMs)} | ${cell(lines[0] ?? "")}${more} |`;
    }),
    "",
  ];
}

function actionsTable(ctx: SummaryCtx): string[] {
  if (ctx.report.outcomes.length === 0) return [];
  return [
    "### Actions",
    "",
    "| id | label | decision (rule) | outcome | files | +/− |",
    "|---|---|---|---|---:|---|",
    ...ctx.report.outcomes.map((o) => {
      const add = o.files.reduce((n, f) => n + f.additions, 0);
      const del = o.files.reduce((n, f) => n + f.deletions, 0);
      return `| ${cell(o.id)} | ${cell(o.label)} | ${ctx.decision(o)} | ${o.outcome} | ${o.files.length} | +${add} −${del} |`;
    }),
    "",
  ];
}

/**
 * The blocks after the tables, each added whole while the text stays within `maxBytes`: the full
 * result text of every step with more than one line (a merged report's shards), then the diffs;
 * what did not fit is counted at the end.
 */
function appendBlocks(text: string, ctx: SummaryCtx, maxBytes: number, maxDiff: number): string {
  const omitted = { "step result": 0, diff: 0 };
  const add = (block: string, kind: keyof typeof omitted) => {
    if (Buffer.byteLength(text) + Buffer.byteLength(block) > maxBytes) {
      omitted[kind]++;
      return;
    }
    text += block;
  };
  const long = ctx.report.steps.filter((st) => st.resultText.includes("\n"));
  if (long.length > 0) text += "\n#### Step results\n\n";
  for (const st of long) add(textBlock(`${st.id} (${st.tool})`, st.resultText, "text", maxDiff, ctx.where), "step result");
  // files and diff come from the same changes: the filter need not read every diff
  const withDiffs = ctx.report.outcomes.filter((o) => o.files.length > 0 && o.diff.length > 0);
  // A blank line ends the actions table before the heading (GFM renderers differ otherwise).
  if (withDiffs.length > 0) text += "\n### Diffs\n\n";
  for (const o of withDiffs) add(diffBlock(o, maxDiff, ctx.where), "diff");
  for (const [kind, n] of Object.entries(omitted)) if (n > 0) text += `_${plural(n, `more ${kind}`)} not shown (size limit); see ${ctx.where}._\n`;
  return text;
}

/**
 * The markdown summary (`--summary FILE`, `$GITHUB_STEP_SUMMARY`), in the order a pull request's
 * reviewer reads it: the headline, what changed where (one row per file), what awaits approval and
 * why, then the steps with their full result text, the actions, and the diffs; truncated to the
 * budget with a pointer to the report. Pure: the same report gives the same text.
 */
export function renderSummary(report: Report, options: SummaryOptions = {}): string {
  const maxBytes = options.maxBytes ?? 1024 * 1024 - 4096;
  const maxDiff = options.maxDiffBytes ?? 64 * 1024;
  const where = options.reportPath ? `the report (\`${options.reportPath}\`)` : "the JSON report (`--report`)";
  const would = plannedDecisions(report);
  const decision = (o: OutcomeRecord) => `${o.decision} (${cell(o.rule.name)})${would.has(o.id) ? `; ${cell(would.get(o.id)!)}` : ""}`;
  const ctx: SummaryCtx = { report, where, would, decision };
  // A campaign (merge-reports --by-repository): the per-repository table leads.
  const campaign = campaignOf(report);
  const counts = Object.entries(report.summary.outcomes).filter(([, n]) => n > 0);
  const head = [
    ...headline(report),
    ...(campaign ? renderCampaignTable(campaign) : []),
    ...changesSection(ctx),
    ...awaitingSection(ctx),
    ...(counts.length > 0 ? ["| outcome | count |", "|---|---:|", ...counts.map(([k, n]) => `| ${k} | ${n} |`), ""] : []),
    ...stepsTable(report),
    ...actionsTable(ctx),
  ];
  return appendBlocks(head.join("\n"), ctx, maxBytes, maxDiff);
}

const MAX_ROWS = 200;

function textBlock(title: string, body: string, lang: string, max: number, where: string): string {
  let shown = body;
  let note = "";
  if (Buffer.byteLength(shown) > max) {
    shown = shown.slice(0, max);
    shown = shown.slice(0, shown.lastIndexOf("\n") + 1);
    note = `\n_Truncated at ${Math.round(max / 1024)} KiB; the full text is in ${where}._\n`;
  }
  const f = fence(shown);
  return `<details><summary>${escapeHtml(title)}</summary>\n\n${f}${lang}\n${shown}${shown.endsWith("\n") ? "" : "\n"}${f}\n${note}\n</details>\n\n`;
}

function diffBlock(o: OutcomeRecord, maxDiff: number, where: string): string {
  let diff = o.diff;
  let note = "";
  if (Buffer.byteLength(diff) > maxDiff) {
    diff = diff.slice(0, maxDiff);
    diff = diff.slice(0, diff.lastIndexOf("\n") + 1);
    note = `\n_Diff truncated at ${Math.round(maxDiff / 1024)} KiB; the full diff is in ${where}._\n`;
  }
  const f = fence(diff);
  return `<details><summary>${escapeHtml(o.id)}: ${escapeHtml(o.label)} (${o.outcome})</summary>\n\n${f}diff\n${diff}${diff.endsWith("\n") ? "" : "\n"}${f}\n${note}\n</details>\n\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
