import { InputError } from "../errors.js";
import { summarize } from "../report/build.js";
import type { CampaignEntry, CampaignInfo } from "../report/campaign.js";
import { OUTCOMES, type Outcome, type OutcomeRecord, type Report, type StepRecord } from "../report/types.js";
import { copyLazily } from "../shard/read.js";
import { plural } from "../util/plural.js";
import { EXIT } from "../exit-codes.js";

export type { CampaignEntry, CampaignInfo } from "../report/campaign.js";

interface RepositoryReport {
  file: string;
  report: Report;
}

interface CampaignOptions {
  /** The campaign's repository list: one without a report counts as failed. */
  repositories?: readonly string[];
  /** Repository → its pull request (a URL, or a note such as why none was opened). */
  pullRequests?: ReadonlyMap<string, string>;
}

const zeroCounts = () => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;

/**
 * A unified diff with every path under `prefix/`: the `diff --git` line (its two paths are
 * equal: tollgate never renames), `---`/`+++` (not /dev/null), quoted forms included.
 */
function prefixDiffPaths(diff: string, prefix: string): string {
  return diff
    .split("\n")
    .map((line) => {
      if (line.startsWith("diff --git ")) {
        const rest = line.slice("diff --git ".length);
        const n = (rest.length - 5) / 2;
        const plain = rest.slice(2, 2 + n);
        if (rest === `a/${plain} b/${plain}`) return `diff --git a/${prefix}/${plain} b/${prefix}/${plain}`;
        const q = (rest.length - 9) / 2;
        const quoted = rest.slice(3, 3 + q);
        if (rest === `"a/${quoted}" "b/${quoted}"`) return `diff --git "a/${prefix}/${quoted}" "b/${prefix}/${quoted}"`;
        return line;
      }
      const m = /^(---|\+\+\+) ("?)([ab])\/(.*)$/.exec(line);
      return m ? `${m[1]} ${m[2]}${m[3]}/${prefix}/${m[4]}` : line;
    })
    .join("\n");
}

/** An outcome with its id, step, paths and diff under its repository (the diff read when asked). */
function prefixOutcome(o: OutcomeRecord, repository: string): OutcomeRecord {
  const copy = copyLazily(o, {
    id: `${repository}/${o.id}`,
    step: `${repository}/${o.step}`,
    files: o.files.map((f) => ({ ...f, path: `${repository}/${f.path}` })),
  });
  const source = Object.getOwnPropertyDescriptor(o, "diff");
  const read = source?.get ? () => source.get!.call(o) as string : () => o.diff;
  Object.defineProperty(copy, "diff", { get: () => prefixDiffPaths(read(), repository), enumerable: true, configurable: true });
  return copy;
}

function prefixStep(s: StepRecord, repository: string): StepRecord {
  return { ...s, id: `${repository}/${s.id}`, actions: s.actions.map((a) => `${repository}/${a}`) };
}

function repositoryOf({ file, report }: RepositoryReport): string {
  const name = report.run.repository;
  if (typeof name !== "string" || name === "") {
    throw new InputError(`${file}: the report names no repository (run.repository): make it with --repository, GITHUB_REPOSITORY or an origin remote`);
  }
  return name;
}

function checkInputs(inputs: readonly RepositoryReport[]): string[] {
  if (inputs.length === 0) throw new InputError("Name at least one report to merge");
  const problems: string[] = [];
  const first = inputs[0]!;
  const seen = new Map<string, string>();
  for (const input of inputs) {
    const { file, report } = input;
    const name = repositoryOf(input);
    const key = name.toLowerCase();
    if (seen.has(key)) problems.push(`${file}: ${name} is also the repository of ${seen.get(key)}`);
    seen.set(key, file);
    if (report.run.recipe.sha256 !== first.report.run.recipe.sha256) problems.push(`${file}: made from a different recipe than ${first.file}`);
    if (report.run.policy.sha256 !== first.report.run.policy.sha256) problems.push(`${file}: made with a different policy than ${first.file}`);
  }
  if (problems.length > 0) throw new InputError(problems.join("\n"));
  return inputs.map(repositoryOf);
}

function entryOf(repository: string, input: RepositoryReport | undefined, pullRequest: string | null): CampaignEntry {
  if (!input) return { repository, report: null, exitCode: EXIT.failure, failed: true, why: "no report", outcomes: zeroCounts(), pullRequest };
  const { report } = input;
  const failed = report.exitCode >= EXIT.input;
  const why = failed ? failureOf(report) : null;
  return { repository, report: input.file, exitCode: report.exitCode, failed, why, outcomes: { ...report.summary.outcomes }, pullRequest };
}

/** Why a run failed, in a few words: its start error, an interrupt, step errors, or failed actions. */
function failureOf(report: Report): string {
  if (report.run.error) return report.run.error.split("\n")[0]!;
  if (report.run.interrupted) return "interrupted";
  const s = report.summary;
  const parts = [
    ...(s.stepErrors > 0 ? [plural(s.stepErrors, "step error")] : []),
    ...(["failed", "stale", "blocked"] as const).filter((o) => s.outcomes[o] > 0).map((o) => `${s.outcomes[o]} ${o}`),
  ];
  return parts.length > 0 ? parts.join(", ") : `exit ${report.exitCode}`;
}

/** A campaign none of whose repositories left a report: every one failed, and the list re-runs them all. */
export function campaignWithoutReports(repositories: readonly string[], pullRequests?: ReadonlyMap<string, string>): CampaignInfo {
  const entries = repositories.map((name) => entryOf(name, undefined, pullRequests?.get(name) ?? null));
  return { repositories: entries, failed: [...repositories], rerun: JSON.stringify(repositories) };
}

/**
 * Combines the reports of one recipe run in different repositories into one campaign report:
 * steps and outcomes under their repository (ids, steps, paths and diffs prefixed `owner/name/`),
 * a `campaign` section with one row per repository (failed ones first), and the exit code the
 * highest of its inputs' — a listed repository without a report is a failure (3).
 */
export function mergeByRepository(inputs: readonly RepositoryReport[], options: CampaignOptions = {}): Report & { campaign: CampaignInfo } {
  const names = checkInputs(inputs);
  const byName = new Map(names.map((n, i) => [n.toLowerCase(), { name: n, input: inputs[i]! }]));
  const order = [...(options.repositories ?? [])];
  const listed = new Set(order.map((n) => n.toLowerCase()));
  for (const n of names) if (!listed.has(n.toLowerCase())) order.push(n);
  const pr = (name: string) =>
    options.pullRequests?.get(name) ?? [...(options.pullRequests ?? [])].find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1] ?? null;
  const entries = order.map((name) => {
    const found = byName.get(name.toLowerCase());
    return entryOf(found?.name ?? name, found?.input, pr(found?.name ?? name));
  });
  const sorted = [...entries.filter((e) => e.failed), ...entries.filter((e) => !e.failed)];
  const present = sorted.flatMap((e) => {
    const found = byName.get(e.repository.toLowerCase());
    return found ? [{ name: found.name, report: found.input.report }] : [];
  });
  const outcomes = present.flatMap(({ name, report }) => report.outcomes.map((o) => prefixOutcome(o, name)));
  const steps = present.flatMap(({ name, report }) => report.steps.map((s) => prefixStep(s, name)));
  const check = inputs.some((i) => i.report.run.check);
  const interrupted = inputs.some((i) => i.report.run.interrupted);
  const exitCode = Math.max(...entries.map((e) => e.exitCode));
  const summary = { ...summarize(steps, outcomes, check, interrupted), exitCode };
  const failed = sorted.filter((e) => e.failed).map((e) => e.repository);
  const first = inputs[0]!.report;
  const starts = inputs.map((i) => Date.parse(i.report.run.startedAt)).filter((t) => !Number.isNaN(t));
  const { error: _error, atomic: _atomic, ...run } = first.run;
  return {
    ...first,
    run: {
      ...run,
      command: "merge-reports",
      repository: null,
      git: { head: null, dirty: null },
      files: null,
      shard: null,
      startedAt: starts.length > 0 ? new Date(Math.min(...starts)).toISOString() : first.run.startedAt,
      durationMs: Math.max(...inputs.map((i) => i.report.run.durationMs)),
      interrupted,
      check,
    },
    steps,
    outcomes,
    summary,
    exitCode,
    campaign: { repositories: sorted, failed, rerun: failed.length > 0 ? JSON.stringify(failed) : null },
  };
}
