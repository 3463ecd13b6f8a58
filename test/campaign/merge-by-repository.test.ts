import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ReportSchema } from "../../src/report/schema.js";
import type { Report } from "../../src/report/types.js";
import { testdir, tollgate } from "../helpers/testdir.js";
import { git, POLICY, RECIPE_TWO, remoteAndCheckout } from "./helpers.js";

const MAPPED = "export const a = Effect.map(x, (v) => v + 1);\n";
const json = async (file: string) =>
  JSON.parse(await readFile(file, "utf8")) as Report & { campaign: { repositories: Array<Record<string, unknown>>; failed: string[]; rerun: string | null } };

/**
 * Three repositories, one recipe, one policy, each run for real in its own git checkout:
 * acme/api applies one change, acme/web applies one and leaves one awaiting approval, and
 * acme/billing has no src/ (a step error: the run fails, exit 3).
 */
async function campaign() {
  const root = await testdir({ "campaign/recipe.yaml": RECIPE_TWO, "campaign/policy.yaml": POLICY, "lib/.keep": "" });
  const repos: Record<string, Record<string, string>> = {
    "acme/api": { "src/a.ts": MAPPED, "lib/.keep": "" },
    "acme/web": { "src/a.ts": MAPPED, "lib/b.ts": MAPPED },
    "acme/billing": { "app/a.ts": MAPPED, "lib/.keep": "" },
  };
  const checkouts: Record<string, string> = {};
  const runs: Record<string, number> = {};
  await mkdir(path.join(root, "reports"));
  for (const [name, files] of Object.entries(repos)) {
    const { checkout } = await remoteAndCheckout(files, root);
    checkouts[name] = checkout;
    const report = path.join(root, "reports", `${name.replace("/", "--")}.json`);
    // The checkout's origin names the repository, as actions/checkout leaves it; the run records it.
    await git(checkout, "remote", "set-url", "origin", `https://github.com/${name}.git`);
    const r = await tollgate(
      ["run", "--recipe", path.join(root, "campaign/recipe.yaml"), "--policy", path.join(root, "campaign/policy.yaml"), "--report", report],
      {
        cwd: checkout,
        env: { GITHUB_REPOSITORY: "" },
      },
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    runs[name] = r.code ?? -1;
    expect((await json(report)).run.repository, r.stderr).toBe(name);
  }
  return { root, checkouts, runs };
}

describe("merge-reports --by-repository: a campaign report from many repositories' reports", () => {
  it("prefixes outcomes and paths, counts a listed repository without a report as failed, lists failed ones first, exits with the highest code", async () => {
    const { root, runs } = await campaign();
    expect(runs).toEqual({ "acme/api": 0, "acme/web": 1, "acme/billing": 3 });
    await writeFile(path.join(root, "list.txt"), "# the campaign\nacme/api\nacme/web\nacme/billing\nacme/gone\n");
    await writeFile(path.join(root, "prs-1.json"), JSON.stringify({ "acme/api": "https://github.com/acme/api/pull/12" }));
    await writeFile(path.join(root, "prs-2.yaml"), "acme/web: https://github.com/acme/web/pull/7\nacme/billing: 'no pull request: the run failed (exit 3)'\n");
    const reports = ["acme--web.json", "acme--billing.json", "acme--api.json"].map((f) => path.join("reports", f));
    const m = await tollgate(
      [
        "merge-reports",
        "--by-repository",
        ...reports,
        "--repositories",
        "list.txt",
        "--pull-requests",
        "prs-1.json",
        "prs-2.yaml",
        "--report",
        "campaign.json",
        "--summary",
        "campaign.md",
      ],
      { cwd: root },
    );
    expect(m.stderr).not.toMatch(/\n\s+at /);
    expect(m.code).toBe(3);
    expect(m.stderr).toContain("tollgate: 2 of 4 repositories failed: acme/billing, acme/gone");
    expect(m.stderr).toContain('tollgate: to re-run only them, pass this repository list: ["acme/billing","acme/gone"]');

    const merged = await json(path.join(root, "campaign.json"));
    expect([...Value.Errors(ReportSchema, merged)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
    expect(merged.exitCode).toBe(3);
    expect(merged.summary.exitCode).toBe(3);
    expect(merged.run).toMatchObject({ command: "merge-reports", repository: null });
    // each input's outcomes, under its repository, failed repositories first
    const inputs = Object.fromEntries(
      await Promise.all(["api", "web", "billing"].map(async (n) => [`acme/${n}`, await json(path.join(root, "reports", `acme--${n}.json`))] as const)),
    );
    const expected = ["acme/billing", "acme/api", "acme/web"].flatMap((name) =>
      inputs[name]!.outcomes.map((o) => ({
        id: `${name}/${o.id}`,
        step: `${name}/${o.step}`,
        outcome: o.outcome,
        paths: o.files.map((f) => `${name}/${f.path}`),
      })),
    );
    expect(merged.outcomes.map((o) => ({ id: o.id, step: o.step, outcome: o.outcome, paths: o.files.map((f) => f.path) }))).toEqual(expected);
    expect(merged.outcomes.map((o) => o.id).sort()).toEqual(["acme/api/src#1", "acme/web/lib#1", "acme/web/src#1"]);
    const web = merged.outcomes.find((o) => o.id === "acme/web/lib#1")!;
    expect(web.diff.split("\n").slice(0, 3)).toEqual([
      "diff --git a/acme/web/lib/b.ts b/acme/web/lib/b.ts",
      "--- a/acme/web/lib/b.ts",
      "+++ b/acme/web/lib/b.ts",
    ]);
    expect(web.diff.split("\n").slice(3)).toEqual(
      inputs["acme/web"]!.outcomes.find((o) => o.id === "lib#1")!
        .diff.split("\n")
        .slice(3),
    );
    expect(merged.steps.map((s) => s.id)).toEqual(["acme/billing/src", "acme/billing/lib", "acme/api/src", "acme/api/lib", "acme/web/src", "acme/web/lib"]);
    expect(merged.summary.outcomes).toMatchObject({ applied: 2, "pending-approval": 1 });
    expect(merged.campaign.repositories.map((e) => [e.repository, e.exitCode, e.failed, e.pullRequest])).toEqual([
      ["acme/billing", 3, true, "no pull request: the run failed (exit 3)"],
      ["acme/gone", 3, true, null],
      ["acme/api", 0, false, "https://github.com/acme/api/pull/12"],
      ["acme/web", 1, false, "https://github.com/acme/web/pull/7"],
    ]);
    expect(merged.campaign.rerun).toBe('["acme/billing","acme/gone"]');

    // The summary: one row per repository, failed ones first, then the list that re-runs them.
    const summary = await readFile(path.join(root, "campaign.md"), "utf8");
    const rows = summary.split("\n").filter((l) => /^\| `acme\/[^/`]+` \|/.test(l));
    expect(rows).toEqual([
      "| `acme/billing` | **failed** (1 step error) | · | · | · | · | · | · | · | no pull request: the run failed (exit 3) |",
      "| `acme/gone` | **failed** (no report) | · | · | · | · | · | · | · | — |",
      "| `acme/api` | done | 1 | · | · | · | · | · | · | [#12](https://github.com/acme/api/pull/12) |",
      "| `acme/web` | outstanding (exit 1) | 1 | 1 | · | · | · | · | · | [#7](https://github.com/acme/web/pull/7) |",
    ]);
    expect(summary).toContain("### Campaign: 4 repositories, 2 failed");
    expect(summary).toContain(
      'Re-run only the failed repositories with this repository list (the `repositories` input):\n\n```json\n["acme/billing","acme/gone"]\n```',
    );
    expect(summary.indexOf("### Campaign")).toBeLessThan(summary.indexOf("### Changes"));
  });

  it("exits with the highest input code when nothing is missing; its patch applies from a tree of owner/name checkouts", async () => {
    const { root, checkouts } = await campaign();
    const m = await tollgate(
      ["merge-reports", "--by-repository", "reports/acme--api.json", "reports/acme--web.json", "--report", "c.json", "--patch", "c.patch", "--cwd", "tree"],
      { cwd: root },
    );
    expect(m.code).toBe(1);
    const tree = path.join(root, "tree");
    await mkdir(path.join(tree, "acme"), { recursive: true });
    await execa("cp", ["-r", checkouts["acme/web"]!, path.join(tree, "acme/web")]);
    const again = await tollgate(
      ["merge-reports", "--by-repository", "reports/acme--api.json", "reports/acme--web.json", "--patch", "c.patch", "--cwd", "tree"],
      { cwd: root },
    );
    expect(again.code).toBe(1);
    const patch = await readFile(path.join(root, "c.patch"), "utf8");
    expect(patch).toContain("+++ b/acme/web/lib/b.ts");
    await execa("git", ["apply", "--check", path.join(root, "c.patch")], { cwd: tree });
    await git(tree, "apply", path.join(root, "c.patch"));
    expect(await readFile(path.join(tree, "acme/web/lib/b.ts"), "utf8")).toBe("export const a = Effect.andThen(x, (v) => v + 1);\n");
  });

  it("with a list and no report at all: every repository failed, the table and the list that re-runs them; exit 3", async () => {
    const root = await testdir({ "list.txt": "acme/api\nacme/web\n" });
    const r = await tollgate(["merge-reports", "--by-repository", "--repositories", "list.txt", "--summary", "s.md"], { cwd: root });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('tollgate: to re-run them, pass this repository list: ["acme/api","acme/web"]');
    const summary = await readFile(path.join(root, "s.md"), "utf8");
    expect(summary.split("\n").filter((l) => l.startsWith("| `acme/"))).toEqual([
      "| `acme/api` | **failed** (no report) | · | · | · | · | · | · | · | — |",
      "| `acme/web` | **failed** (no report) | · | · | · | · | · | · | · | — |",
    ]);
    const none = await tollgate(["merge-reports"], { cwd: root });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Name at least one report to merge");
  });

  it("refuses reports without a repository, two of one repository, and options without --by-repository (exit 2)", async () => {
    const { root } = await campaign();
    const api = await json(path.join(root, "reports/acme--api.json"));
    await writeFile(path.join(root, "anon.json"), JSON.stringify({ ...api, run: { ...api.run, repository: null } }));
    const anon = await tollgate(["merge-reports", "--by-repository", "reports/acme--web.json", "anon.json"], { cwd: root });
    expect(anon.code).toBe(2);
    expect(anon.stderr).toContain(
      "anon.json: the report names no repository (run.repository): make it with --repository, GITHUB_REPOSITORY or an origin remote",
    );
    const twice = await tollgate(["merge-reports", "--by-repository", "reports/acme--api.json", "reports/acme--api.json"], { cwd: root });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("reports/acme--api.json: acme/api is also the repository of reports/acme--api.json");
    const bare = await tollgate(["merge-reports", "reports/acme--api.json", "--repositories", "list.txt"], { cwd: root });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("--repositories and --pull-requests go with --by-repository");
    const badList = await tollgate(["merge-reports", "--by-repository", "reports/acme--api.json", "--repositories", '["acme/api", "nope"]'], { cwd: root });
    expect(badList.code).toBe(2);
    expect(badList.stderr).toContain('--repositories [1]: "nope" is not a repository name (owner/name)');
    for (const r of [anon, twice, bare, badList]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
