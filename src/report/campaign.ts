import type { Outcome, Report } from "./types.js";

/** One repository's row of a campaign: what its run did, and its pull request. */
export interface CampaignEntry {
  repository: string;
  /** The report file, or null when the list names a repository no report is of. */
  report: string | null;
  exitCode: number;
  failed: boolean;
  /** Why it counts as failed (no report, the run's error or exit code), else null. */
  why: string | null;
  outcomes: Record<Outcome, number>;
  pullRequest: string | null;
}

export interface CampaignInfo {
  /** Failed repositories first, then the others; each group in list (else argument) order. */
  repositories: CampaignEntry[];
  failed: string[];
  /** The repository-list input that re-runs only the failed ones (a JSON array), or null. */
  rerun: string | null;
}

const COLUMNS: readonly Outcome[] = ["applied", "pending-approval", "dry-run", "discarded", "failed", "stale", "blocked"];

const cell = (text: string) => text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|").slice(0, 300);

/** The campaign section of a merged report, when it has one. */
export function campaignOf(report: Report): CampaignInfo | undefined {
  const info = (report as Report & { campaign?: CampaignInfo }).campaign;
  return info && Array.isArray(info.repositories) ? info : undefined;
}

function pullRequestCell(value: string | null): string {
  if (value === null || value === "") return "—";
  const pr = /^https:\/\/[^\s/]+\/[^\s]+\/pull\/(\d+)\/?$/.exec(value);
  if (pr) return `[#${pr[1]}](${value})`;
  return /^https?:\/\/\S+$/.test(value) ? `[link](${value})` : cell(value);
}

function row(e: CampaignEntry): string {
  const status = e.failed ? `**failed** (${cell(e.why ?? `exit ${e.exitCode}`)})` : e.exitCode === 1 ? "outstanding (exit 1)" : "done";
  const counts = COLUMNS.map((o) => (e.outcomes[o] > 0 ? String(e.outcomes[o]) : "·"));
  return `| \`${e.repository}\` | ${status} | ${counts.join(" | ")} | ${pullRequestCell(e.pullRequest)} |`;
}

/**
 * The head of a campaign's summary: one row per repository — its status, its actions by outcome
 * and its pull request — failed repositories first, then the repository-list input that re-runs
 * only those.
 */
export function renderCampaignTable(info: CampaignInfo): string[] {
  const n = info.repositories.length;
  const failed = info.failed.length;
  const lines = [
    `### Campaign: ${n} repositor${n === 1 ? "y" : "ies"}${failed > 0 ? `, ${failed} failed` : ""}`,
    "",
    `| repository | status | ${COLUMNS.join(" | ")} | pull request |`,
    `|---|---|${COLUMNS.map(() => "---:").join("|")}|---|`,
    ...info.repositories.map(row),
    "",
  ];
  if (info.rerun !== null) {
    lines.push(`Re-run only the failed repositories with this repository list (the \`repositories\` input):`, "", "```json", info.rerun, "```", "");
  }
  return lines;
}
