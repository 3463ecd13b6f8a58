import { InputError } from "../../errors.js";
import { EXIT } from "../../exit-codes.js";
import type { CommandSpec, Invocation } from "../command.js";
import type { PullRequestPlan } from "../../campaign/pull-request.js";
import { ioReason } from "../../util/errno.js";

interface PrArgs {
  report: string;
  body: string;
  cwd?: string;
  branch?: string;
  "patch-url"?: string;
  "report-url"?: string;
  "run-url"?: string;
}

/** Reads a repository list: a JSON array given inline, else a file of owner/name lines (or a JSON array). */
export async function readRepositoryList(value: string): Promise<string[]> {
  const { parseRepositoryList } = await import("../../campaign/repositories.js");
  const inline = value.trim().startsWith("[");
  let text = value;
  if (!inline) {
    const { readFile } = await import("node:fs/promises");
    try {
      text = await readFile(value, "utf8");
    } catch (err) {
      throw new InputError(`${value}: cannot read the repository list (${ioReason(err)})`);
    }
  }
  const { repositories, issues } = parseRepositoryList(text, inline ? "--repositories" : value);
  if (issues.length > 0) throw new InputError(issues);
  return repositories;
}

/** Reads maps of repository to pull request (JSON or YAML objects of strings); later files win. */
export async function readPullRequestMaps(files: readonly string[]): Promise<Map<string, string>> {
  const [{ readFile }, { parse }] = await Promise.all([import("node:fs/promises"), import("yaml")]);
  const map = new Map<string, string>();
  for (const file of files) {
    let data: unknown;
    try {
      data = parse(await readFile(file, "utf8"));
    } catch (err) {
      throw new InputError(`${file}: cannot read the pull request map (${ioReason(err).split("\n")[0]})`);
    }
    if (data === null || data === undefined) continue;
    if (typeof data !== "object" || Array.isArray(data)) throw new InputError(`${file}: not a map of repository to pull request URL`);
    for (const [repository, url] of Object.entries(data as Record<string, unknown>)) {
      if (typeof url !== "string") throw new InputError(`${file}: ${repository}: the pull request must be a string (its URL)`);
      map.set(repository, url);
    }
  }
  return map;
}

/** `name=value` lines for `$GITHUB_OUTPUT`, a value with a line break as a heredoc whose delimiter it does not contain. */
function githubOutputLines(values: ReadonlyArray<[string, string]>, delimiter: () => string): string {
  return values
    .map(([name, value]) => {
      if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
      let d = delimiter();
      while (value.includes(d)) d = delimiter();
      return `${name}<<${d}\n${value}\n${d}\n`;
    })
    .join("");
}

function prOutputs(plan: PullRequestPlan, body: string): Array<[string, string]> {
  return [
    ["decision", plan.decision],
    ["reason", plan.reason],
    ["branch", plan.branch],
    ["title", plan.title],
    ["commit-message", plan.commitMessage],
    ["body-path", body],
    ["add-paths", plan.addPaths.join("\n")],
    ["applied-count", String(plan.applied)],
    ["pending-count", String(plan.pending)],
    ["foreign-count", String(plan.foreign.length)],
  ];
}

const PR_OPTIONS = {
  report: { type: "string", demandOption: true, describe: "The JSON report of the repository's run" },
  body: { type: "string", demandOption: true, describe: "Write the pull request body (markdown) to FILE" },
  cwd: { type: "string", describe: "The repository's checkout (default: the current directory)" },
  branch: { type: "string", describe: "The campaign branch (default: tollgate/<the recipe's name>)" },
  "patch-url": { type: "string", describe: "Link to the patch artifact, for what awaits approval" },
  "report-url": { type: "string", describe: "Link to the report artifact (the full report)" },
  "run-url": { type: "string", describe: "Link to the workflow run" },
} as const;

/** `tollgate campaign pr`: whether to open, update or skip one repository's pull request, and its body. */
async function pullRequest(args: PrArgs, invocation: Invocation): Promise<number> {
  const [{ readFile }, path, { asReport }, { planPullRequest, readBranchState }, { branchProblem, defaultBranch }, { writeFileAtomicText }] = await Promise.all(
    [
      import("node:fs/promises"),
      import("node:path"),
      import("../../shard/merge.js"),
      import("../../campaign/pull-request.js"),
      import("../../campaign/repositories.js"),
      import("../../workspace/output-file.js"),
    ],
  );
  let data: unknown;
  try {
    data = JSON.parse(await readFile(args.report, "utf8"));
  } catch (err) {
    throw new InputError(`${args.report}: cannot read report (${ioReason(err)})`);
  }
  const report = asReport(args.report, data);
  const branch = args.branch?.trim() || defaultBranch(report.run.recipe);
  const problem = branchProblem(branch);
  if (problem) throw new InputError(`--branch ${JSON.stringify(branch)}: not a branch name git accepts (${problem})`);
  const cwd = path.resolve(args.cwd ?? ".");
  const state = await readBranchState(cwd, branch);
  const links = {
    ...(args["patch-url"] ? { patchUrl: args["patch-url"] } : {}),
    ...(args["report-url"] ? { reportUrl: args["report-url"] } : {}),
    ...(args["run-url"] ? { runUrl: args["run-url"] } : {}),
  };
  const plan = planPullRequest(report, state, { branch, ...links });
  await writeFileAtomicText(args.body, plan.body);
  const env = invocation.env;
  if (env.GITHUB_OUTPUT) {
    const [{ appendFile }, { randomBytes }] = await Promise.all([import("node:fs/promises"), import("node:crypto")]);
    await appendFile(
      env.GITHUB_OUTPUT,
      githubOutputLines(prOutputs(plan, path.resolve(args.body)), () => `ghadelim_${randomBytes(16).toString("hex")}`),
    );
  }
  if (plan.foreign.length > 0 && env.GITHUB_ACTIONS === "true") {
    const { command } = await import("../../github/escape.js");
    process.stdout.write(`${command("warning", { title: "tollgate campaign" }, `${report.run.repository ?? cwd}: ${plan.reason}`)}\n`);
  }
  process.stderr.write(`tollgate: pull request for ${report.run.repository ?? cwd}: ${plan.decision}: ${plan.reason}\n`);
  const { body: _body, ...shown } = plan;
  process.stdout.write(`${JSON.stringify({ ...shown, foreign: plan.foreign.map((c) => ({ sha: c.sha, subject: c.subject })) })}\n`);
  return EXIT.ok;
}

/** `tollgate campaign <subcommand>`: the steps of a multi-repository campaign that need tollgate's logic. */
export const campaignCommand: CommandSpec = {
  command: "campaign",
  usage: "campaign pr",
  describe: "Campaign steps across repositories (pr: open, update or skip a repository's pull request)",
  subcommands: {
    pr: {
      command: "pr",
      usage: "pr --report FILE --body FILE",
      describe: "Decide a repository's pull request (open, update, skip) from its report and write the body",
      own: PR_OPTIONS,
      run: (args, invocation) => pullRequest(args as unknown as PrArgs, invocation),
    },
  },
};
