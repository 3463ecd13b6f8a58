import type { OutcomeRecord, Report } from "./types.js";

export interface SummaryOptions {
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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function summaryLine(report: Report): string {
  const s = report.summary;
  const parts = Object.entries(s.outcomes)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  const errors = s.stepErrors > 0 ? `, ${plural(s.stepErrors, "step error")}` : "";
  return `${plural(s.steps, "step")}${errors}, ${plural(s.actions, "action")}${parts.length ? `: ${parts.join(", ")}` : ""}`;
}

/**
 * The markdown summary (`--summary FILE`, `$GITHUB_STEP_SUMMARY`): headline counts, a per-step
 * table, a per-action table and the diffs, truncated to the budget with a pointer to the report.
 * Pure: the same report gives the same text.
 */
export function renderSummary(report: Report, options: SummaryOptions = {}): string {
  const maxBytes = options.maxBytes ?? 1024 * 1024 - 4096;
  const maxDiff = options.maxDiffBytes ?? 64 * 1024;
  const where = options.reportPath ? `the report (\`${options.reportPath}\`)` : "the JSON report (`--report`)";
  const s = report.summary;
  const name = report.run.recipe.name ?? report.run.recipe.path;
  const head: string[] = [
    `## tollgate: ${cell(name)}`,
    "",
    `**${summaryLine(report)}** · exit ${report.exitCode}${report.run.interrupted ? " · interrupted" : ""}${report.run.dryRun ? " · dry run" : ""}`,
    "",
    `Files changed: ${s.filesChanged} (+${s.additions} −${s.deletions})`,
    "",
    "| outcome | count |",
    "|---|---:|",
    ...Object.entries(s.outcomes).map(([k, n]) => `| ${k} | ${n} |`),
    "",
    "### Steps",
    "",
    "| # | step | tool | status | actions | ms | result |",
    "|---:|---|---|---|---|---:|---|",
    ...report.steps.map(
      (st, i) =>
        `| ${i + 1} | ${cell(st.id)} | ${cell(st.tool)} | ${st.status === "ok" ? "ok" : "**error**"} | ${cell(st.actions.join(", "))} | ${Math.round(st.durationMs)} | ${cell(st.resultText.split("\n")[0] ?? "")} |`,
    ),
    "",
  ];
  if (report.outcomes.length > 0) {
    head.push(
      "### Actions",
      "",
      "| id | label | decision (rule) | outcome | files | +/− |",
      "|---|---|---|---|---:|---|",
      ...report.outcomes.map((o) => {
        const add = o.files.reduce((n, f) => n + f.additions, 0);
        const del = o.files.reduce((n, f) => n + f.deletions, 0);
        return `| ${cell(o.id)} | ${cell(o.label)} | ${o.decision} (${cell(o.rule.name)}) | ${o.outcome} | ${o.files.length} | +${add} −${del} |`;
      }),
      "",
    );
  }
  let text = head.join("\n");
  const withDiffs = report.outcomes.filter((o) => o.diff.length > 0);
  // A blank line ends the actions table before the heading (GFM renderers differ otherwise).
  if (withDiffs.length > 0) text += "\n### Diffs\n\n";
  let omitted = 0;
  for (const o of withDiffs) {
    const block = diffBlock(o, maxDiff, where);
    if (Buffer.byteLength(text) + Buffer.byteLength(block) > maxBytes) {
      omitted++;
      continue;
    }
    text += block;
  }
  if (omitted > 0) text += `_${plural(omitted, "more diff")} not shown (size limit); see ${where}._\n`;
  return text;
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
