import { renderSummary } from "../report/markdown.js";
import type { OutcomeRecord, Report } from "../report/types.js";
import { runGit } from "../git.js";
import { plural } from "../util/plural.js";
import { EXIT } from "../exit-codes.js";

/** GitHub refuses a pull request body longer than this (characters). */
export const MAX_BODY_CHARS = 65536;

/** The trailer that marks a commit as the campaign's own: `Tollgate-Campaign: <branch>`. */
const CAMPAIGN_TRAILER = "Tollgate-Campaign";

interface Commit {
  sha: string;
  subject: string;
  body: string;
}

/** The campaign branch on the remote, as the checkout fetched it, and the work tree's changes. */
interface BranchState {
  exists: boolean;
  /** Commits on the branch that the base does not have. */
  commits: Commit[];
  /** Files that differ from HEAD in the work tree (untracked ones included), relative to the root. */
  changes: string[];
}

export interface PullRequestPlan {
  decision: "open" | "update" | "skip";
  reason: string;
  branch: string;
  title: string;
  commitMessage: string;
  body: string;
  /** Pathspecs of the applied files, for create-pull-request's add-paths (comma or newline separated). */
  addPaths: string[];
  applied: number;
  pending: number;
  /** Commits on the branch the campaign did not make (the branch is then left alone). */
  foreign: Commit[];
}

interface PlanOptions {
  branch: string;
  /** Links for the body: the job's patch and report artifacts, the workflow run. */
  patchUrl?: string;
  reportUrl?: string;
  runUrl?: string;
  maxChars?: number;
}

/**
 * Reads the campaign branch as the checkout fetched it (`refs/remotes/origin/<branch>`) and the
 * commits it holds beyond HEAD (the base the campaign ran on). No fetch: the job's token is not
 * in this step.
 */
export async function readBranchState(root: string, branch: string): Promise<BranchState> {
  const changes = await readChanges(root);
  const ref = `refs/remotes/origin/${branch}`;
  const sha = await runGit(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], 10000);
  if (sha === null) return { exists: false, commits: [], changes };
  const log = await runGit(root, ["log", "--format=%H%x00%s%x00%B%x1e", `HEAD..${ref}`], 30000);
  if (log === null) throw new Error(`git log HEAD..${ref} failed in ${root}`);
  const commits = log
    .split("\x1e")
    .map((entry) => entry.replace(/^\n/, ""))
    .filter((entry) => entry !== "")
    .map((entry) => {
      const [sha = "", subject = "", body = ""] = entry.split("\x00");
      return { sha, subject, body };
    });
  return { exists: true, commits, changes };
}

/** The work tree's changed and untracked (not ignored) files under root, relative to it. */
async function readChanges(root: string): Promise<string[]> {
  const [prefix, status] = await Promise.all([
    runGit(root, ["rev-parse", "--show-prefix"], 10000),
    runGit(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], 60000),
  ]);
  if (prefix === null || status === null) throw new Error(`${root}: not a git work tree (git status failed)`);
  const under = prefix.trim();
  return status
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .filter((file) => file.startsWith(under))
    .map((file) => file.slice(under.length));
}

/** Whether a commit carries the campaign's trailer for this branch. */
function isCampaignCommit(commit: Commit, branch: string): boolean {
  return commit.body.split(/\r?\n/).some((line) => line.trim() === `${CAMPAIGN_TRAILER}: ${branch}`);
}

const isApplied = (o: OutcomeRecord) => o.outcome === "applied" && !o.rolledBack;

/**
 * The pull request a campaign job proposes for one repository: `open` (no campaign branch yet),
 * `update` (the branch holds only the campaign's commits), or `skip` with the reason — the run
 * failed, nothing was applied (what awaits approval is never applied, so it alone opens
 * nothing), or the branch holds commits the campaign did not make (left alone).
 */
export function planPullRequest(report: Report, state: BranchState, options: PlanOptions): PullRequestPlan {
  const applied = report.outcomes.filter(isApplied);
  const pending = report.summary.outcomes["pending-approval"];
  const name = report.run.recipe.name ?? report.run.recipe.path;
  const title = `tollgate: ${name}`;
  const commitMessage = `${title}\n\nApplied by tollgate (recipe ${report.run.recipe.path}, sha256 ${report.run.recipe.sha256.slice(0, 12)}).\n\n${CAMPAIGN_TRAILER}: ${options.branch}`;
  const foreign = state.commits.filter((c) => !isCampaignCommit(c, options.branch));
  const base = { branch: options.branch, title, commitMessage, applied: applied.length, pending, foreign };
  const skip = (reason: string): PullRequestPlan => ({ ...base, decision: "skip", reason, body: "", addPaths: [] });
  if (report.exitCode >= EXIT.input) return skip(`the run failed (exit ${report.exitCode}): nothing is proposed from a failed run`);
  const awaiting = pending > 0 ? `; ${plural(pending, "action")} await${pending === 1 ? "s" : ""} approval (see the patch artifact)` : "";
  if (applied.length === 0) return skip(`nothing was applied${awaiting}`);
  if (foreign.length > 0) {
    const list = foreign
      .slice(0, 5)
      .map((c) => `${c.sha.slice(0, 12)} ${c.subject}`)
      .join("; ");
    return skip(
      `branch ${options.branch} holds ${plural(foreign.length, "commit")} the campaign did not make (${list}${foreign.length > 5 ? "; …" : ""}): left alone`,
    );
  }
  const paths = [...new Set(applied.flatMap((o) => o.files.map((f) => f.path)))];
  const add = addPathsFor(paths, state.changes);
  if ("problem" in add) return skip(add.problem);
  return {
    ...base,
    decision: state.exists ? "update" : "open",
    reason: state.exists ? `branch ${options.branch} holds only the campaign's commits: updated` : `no branch ${options.branch} yet: opened`,
    body: pullRequestBody(report, options),
    addPaths: add.addPaths,
  };
}

/**
 * What create-pull-request commits: exactly the applied files (not what an exec step or a build
 * left in the tree). Its add-paths list is split on commas and line breaks and trimmed, so a
 * file is named by a `:(literal)` pathspec; a file no such pathspec survives (a comma, a line
 * break, an edge space) can only go in when every change in the tree is an applied one (then
 * the list is empty: everything), else the pull request is skipped with the reason.
 */
export function addPathsFor(applied: readonly string[], changes: readonly string[]): { addPaths: string[] } | { problem: string } {
  const literal = applied.map(literalPathspec);
  if (literal.every((p) => p !== null)) return { addPaths: literal };
  const mine = new Set(applied);
  const stray = changes.filter((c) => !mine.has(c));
  if (stray.length === 0) return { addPaths: [] };
  const odd = applied.filter((p) => literalPathspec(p) === null).map((p) => JSON.stringify(p));
  return {
    problem: `${odd.join(", ")} cannot be named to create-pull-request (a comma, a line break or an edge space) while other files changed too (${stray
      .slice(0, 3)
      .map((p) => JSON.stringify(p))
      .join(", ")}${stray.length > 3 ? ", …" : ""})`,
  };
}

/** `:(literal)file`, or null when create-pull-request's list splitting would break it. */
export function literalPathspec(file: string): string | null {
  return /[,\r\n]/.test(file) || file.trim() !== file ? null : `:(literal)${file}`;
}

const MAX_LISTED = 50;

/** What awaits approval, for the body's head: never applied, so never in this pull request. */
function pendingSection(report: Report, options: PlanOptions): string[] {
  const waiting = report.outcomes.filter((o) => o.outcome === "pending-approval");
  if (waiting.length === 0) return [];
  const patch = options.patchUrl ? `[the patch artifact](${options.patchUrl})` : "the patch artifact of this job";
  const lines = [
    `### Awaiting approval: not in this pull request`,
    "",
    `${plural(waiting.length, "action")} the policy holds for approval ${waiting.length === 1 ? "was" : "were"} not applied. ${patch} holds ${waiting.length === 1 ? "it" : "them"} (\`git apply\` accepts it); or approve and re-run the campaign (\`--approve <id>\`).`,
    "",
  ];
  for (const o of waiting.slice(0, MAX_LISTED)) {
    const files = o.files.map((f) => `\`${f.path.replace(/`/g, "'")}\``).join(", ");
    lines.push(`- \`${o.id}\` ${o.label.replace(/\r?\n/g, " ")}${files ? ` — ${files}` : ""}`);
  }
  if (waiting.length > MAX_LISTED) lines.push(`- _${waiting.length - MAX_LISTED} more in the report._`);
  lines.push("");
  return lines;
}

/** The pull request body: what was applied, what awaits approval, then the run's summary, within GitHub's limit. */
function pullRequestBody(report: Report, options: PlanOptions): string {
  const max = options.maxChars ?? MAX_BODY_CHARS;
  const where = options.reportUrl ? `[the report artifact](${options.reportUrl})` : "the report artifact of this job";
  const run = options.runUrl ? ` in [this workflow run](${options.runUrl})` : "";
  const s = report.summary;
  const head = [
    `Applied by tollgate${run} from the recipe \`${report.run.recipe.path}\`${report.run.policy.path ? ` under the policy \`${report.run.policy.path}\`` : ""}.`,
    "",
    `**${s.outcomes.applied} applied** · ${plural(s.filesChanged, "file")} changed (+${s.additions} −${s.deletions}) · the full report: ${where}`,
    "",
    ...pendingSection(report, options),
  ].join("\n");
  const pointer = `\n\n_Cut to GitHub's ${max.toLocaleString("en-US")}-character limit; the full summary and every diff are in ${where}._\n`;
  // Rendered with room to spare and then cut: a long diff is shown up to the limit, not dropped.
  const summary = renderSummary(report, { maxDiffBytes: max, reportPath: options.reportUrl ?? "the report artifact" });
  const body = `${head}\n${summary}`;
  return body.length <= max ? body : cutMarkdown(body, max - pointer.length) + pointer;
}

/**
 * The longest prefix of `text` of whole lines within `max` characters (UTF-16 units, never a
 * split surrogate pair), with every code fence and `<details>` it leaves open closed again, so
 * what follows renders as text.
 */
export function cutMarkdown(text: string, max: number): string {
  const closerRoom = 64;
  let out = "";
  let fence: string | null = null;
  let details = 0;
  for (const line of text.split("\n")) {
    if (out.length + line.length + 1 > max - closerRoom - (fence?.length ?? 0)) break;
    out += `${line}\n`;
    const marker = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) fence = marker;
    else if (fence !== null && marker && line.trim() === fence) fence = null;
    else if (fence === null) details += (line.match(/<details>/g)?.length ?? 0) - (line.match(/<\/details>/g)?.length ?? 0);
  }
  if (out === "" && text.length > 0) {
    // one line longer than the budget: cut it at a code point
    out = text.slice(0, Math.max(0, max - closerRoom));
    return /[\uD800-\uDBFF]$/.test(out) ? out.slice(0, -1) : out;
  }
  if (fence !== null) out += `${fence}\n`;
  for (; details > 0; details--) out += "</details>\n";
  return out;
}
