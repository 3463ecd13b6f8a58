import { InputError } from "../../errors.js";
import { EXIT } from "../../exit-codes.js";
import type { CommandSpec, Invocation } from "../command.js";
import { formatOf, OUTPUT_FILE_OPTIONS } from "../options.js";
import type { Preview } from "../../report/patch.js";
import type { Report } from "../../report/types.js";
import type { SpillStore } from "../../spill/store.js";
import type { OutputArgs } from "../outputs.js";
import { ioReason } from "../../util/errno.js";
import { plural } from "../../util/plural.js";

/** Report members read one element at a time (outcomes carry the diffs). */
const STREAMED: ReadonlySet<string> = new Set(["steps", "outcomes"]);

interface MergeArgs extends OutputArgs {
  reports?: string[];
  cwd?: string;
  "by-repository"?: boolean;
  repositories?: string;
  "pull-requests"?: string[];
}

/** `tollgate merge-reports a.json b.json …`: one report (and summary/patch) from shard or repository reports. */
export const mergeReportsCommand: CommandSpec<MergeArgs> = {
  command: "merge-reports [reports..]",
  usage: "merge-reports <reports..>",
  describe: "Combine shard reports (--shard i/n), or one recipe's reports from many repositories (--by-repository), into one report, summary and patch",
  positionals: { reports: { type: "string", array: true, describe: "Report files to merge" } },
  shared: [...OUTPUT_FILE_OPTIONS, "format"],
  own: {
    cwd: {
      type: "string",
      group: "Workspace:",
      describe:
        "Workspace the shards ran in, for --patch (default: the first report's, else .); with --by-repository, the directory holding each repository at owner/name",
    },
    "by-repository": {
      type: "boolean",
      describe: "The reports are of different repositories (a campaign): prefix outcomes and paths with each one's repository",
    },
    repositories: {
      type: "string",
      describe: "--by-repository: the campaign's repository list (a file of owner/name lines, or a JSON array); one without a report counts as failed",
    },
    "pull-requests": {
      type: "string",
      array: true,
      describe: "--by-repository: a JSON or YAML map of repository to its pull request URL (repeatable)",
    },
  },
  run: async (args, invocation) => {
    if (!args["by-repository"] && (args.repositories !== undefined || args["pull-requests"] !== undefined)) {
      throw new InputError("--repositories and --pull-requests go with --by-repository");
    }
    const { fileSpill } = await import("../../spill/store.js");
    // The reports' diffs wait on disk (in the OS temp directory: merging writes nothing into a
    // workspace) until the outputs are assembled: one outcome's diff in memory at a time.
    const spill = fileSpill(() => []);
    try {
      return await merge(args, spill, invocation);
    } finally {
      spill.dispose();
    }
  },
};

async function readReports(files: readonly string[], spill: SpillStore): Promise<Array<{ file: string; report: Report }>> {
  const [{ asReport }, { readJsonStreamed, spillDiff }] = await Promise.all([import("../../shard/merge.js"), import("../../shard/read.js")]);
  const inputs = [];
  for (const file of files) {
    let data: unknown;
    try {
      data = await readJsonStreamed(file, STREAMED, (key, value) => (key === "outcomes" ? spillDiff(value, spill) : value));
    } catch (err) {
      throw new InputError(`${file}: cannot read report (${ioReason(err)})`);
    }
    inputs.push({ file, report: asReport(file, data) });
  }
  return inputs;
}

async function merge(args: MergeArgs, spill: SpillStore, invocation: Invocation): Promise<number> {
  const [{ mergeReports, rebuildPreviews }, { writeOutputs }, { existsSync, readFileSync }, path] = await Promise.all([
    import("../../shard/merge.js"),
    import("../outputs.js"),
    import("node:fs"),
    import("node:path"),
  ]);
  const files = (args.reports ?? []).map(String);
  if (files.length === 0) {
    if (args["by-repository"] && args.repositories !== undefined) return noReports(args, invocation.env);
    throw new InputError("Name at least one report to merge");
  }
  const inputs = await readReports(files, spill);
  const merged: Report = args["by-repository"] ? await mergeCampaign(inputs, args) : mergeShards(inputs, mergeReports);
  const byRepository = Boolean(args["by-repository"]);
  const root = args.cwd !== undefined ? path.resolve(args.cwd) : !byRepository && existsSync(merged.run.cwd) ? merged.run.cwd : process.cwd();
  merged.run.cwd = root;
  let previews: Preview[] = [];
  if (args.patch) {
    const read = (p: string) => {
      try {
        return readFileSync(path.join(root, p), "utf8");
      } catch {
        return null;
      }
    };
    const rebuilt = rebuildPreviews(merged, read, spill);
    if (!byRepository) for (const p of rebuilt.skipped) process.stderr.write(`tollgate: --patch: ${p} left out: it is not as the shard saw it\n`);
    // A campaign's repositories are seldom checked out side by side: one line, not one per file.
    else if (rebuilt.skipped.length > 0)
      process.stderr.write(
        `tollgate: --patch: ${rebuilt.skipped.length} file(s) left out: not under ${root}/<owner>/<name> as the repositories' runs saw them (each repository's own patch is its job's artifact)\n`,
      );
    previews = rebuilt.previews;
  }
  const s = merged.summary;
  const parts = Object.entries(s.outcomes)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  process.stderr.write(
    `tollgate: merged ${plural(inputs.length, "report")}, ${plural(s.actions, "action")}${parts.length ? `: ${parts.join(", ")}` : ""} (exit ${merged.exitCode})\n`,
  );
  await writeOutputs(merged, { ...args, format: formatOf(args.format, invocation.env) }, { env: invocation.env, previews });
  return merged.exitCode;
}

function mergeShards(inputs: Array<{ file: string; report: Report }>, mergeReports: typeof import("../../shard/merge.js").mergeReports): Report {
  const merged = mergeReports(inputs);
  if (merged.merged.missingShards.length > 0) {
    process.stderr.write(`tollgate: shards ${merged.merged.missingShards.join(", ")} of ${merged.merged.shardCount} are missing from the merge\n`);
  }
  return merged;
}

/** `--by-repository`: the campaign report, with the list and pull request map read first. */
async function mergeCampaign(inputs: Array<{ file: string; report: Report }>, args: MergeArgs): Promise<Report> {
  const [{ mergeByRepository }, { readRepositoryList, readPullRequestMaps }] = await Promise.all([import("../../campaign/merge.js"), import("./campaign.js")]);
  const repositories = args.repositories !== undefined ? await readRepositoryList(args.repositories) : undefined;
  const pullRequests = await readPullRequestMaps((args["pull-requests"] ?? []).map(String));
  const merged = mergeByRepository(inputs, { ...(repositories ? { repositories } : {}), pullRequests });
  const { failed, rerun } = merged.campaign;
  if (failed.length > 0) {
    process.stderr.write(`tollgate: ${failed.length} of ${merged.campaign.repositories.length} repositories failed: ${failed.join(", ")}\n`);
    process.stderr.write(`tollgate: to re-run only them, pass this repository list: ${rerun}\n`);
  }
  return merged;
}

/**
 * `--by-repository` with a list but no report at all (every repository's job failed before its
 * run): the campaign table says so, with the list that re-runs them all; exit 3.
 */
async function noReports(args: MergeArgs, env: NodeJS.ProcessEnv): Promise<number> {
  const [{ campaignWithoutReports }, { readRepositoryList, readPullRequestMaps }, { renderCampaignTable }, { appendFile }, { writeFileAtomicText }] =
    await Promise.all([
      import("../../campaign/merge.js"),
      import("./campaign.js"),
      import("../../report/campaign.js"),
      import("node:fs/promises"),
      import("../../workspace/output-file.js"),
    ]);
  const repositories = await readRepositoryList(args.repositories!);
  const info = campaignWithoutReports(repositories, await readPullRequestMaps((args["pull-requests"] ?? []).map(String)));
  const text = ["## tollgate campaign: no report to merge", "", ...renderCampaignTable(info)].join("\n");
  if (args.summary) await writeFileAtomicText(args.summary, text);
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${text}\n`);
  process.stderr.write(`tollgate: no report to merge: all ${repositories.length} repositories of the list failed\n`);
  process.stderr.write(`tollgate: to re-run them, pass this repository list: ${info.rerun}\n`);
  return EXIT.failure;
}
