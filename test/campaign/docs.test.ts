import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { CLI, REPO_ROOT, testdir } from "../helpers/testdir.js";
import { git, POLICY, RECIPE, remoteAndCheckout } from "./helpers.js";

/** The docs' per-clone script for multi-gitter and turbolift, exactly as printed. */
async function docsScript(): Promise<string> {
  const doc = await readFile(path.join(REPO_ROOT, "docs/campaigns.md"), "utf8");
  const block = /```sh\n(#!\/bin\/sh\n# tollgate-campaign\.sh[\s\S]*?)```/.exec(doc);
  if (!block) throw new Error("docs/campaigns.md: the tollgate-campaign.sh block is missing");
  return block[1]!;
}

describe("docs/campaigns.md: the script multi-gitter and turbolift run in each clone", () => {
  it("applies with the policy and writes one report per repository, named from its origin; SURVEY=1 changes nothing and exits 1", async () => {
    const campaign = await testdir({ "recipe.yaml": RECIPE, "policy.yaml": POLICY, "reports/.keep": "" });
    const script = path.join(campaign, "tollgate-campaign.sh");
    await writeFile(script, await docsScript());
    // `tollgate` on PATH, as an installed CLI is
    const bin = path.join(campaign, "bin");
    await mkdir(bin);
    await writeFile(path.join(bin, "tollgate"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    await chmod(path.join(bin, "tollgate"), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}`, CAMPAIGN: campaign, CI: "true", GITHUB_REPOSITORY: "" };
    const mapped = "export const a = Effect.map(x, (v) => v + 1);\n";
    const { checkout } = await remoteAndCheckout({ "src/a.ts": mapped });
    await git(checkout, "remote", "set-url", "origin", "git@github.com:acme/api.git");

    const survey = await execa("sh", [script], { cwd: checkout, env: { ...env, SURVEY: "1" }, reject: false });
    expect(survey.exitCode).toBe(1);
    expect(await readFile(path.join(checkout, "src/a.ts"), "utf8")).toBe(mapped);
    const surveyed = JSON.parse(await readFile(path.join(campaign, "reports/acme-api.json"), "utf8"));
    expect(surveyed.run).toMatchObject({ repository: "acme/api", check: true });

    const applied = await execa("sh", [script], { cwd: checkout, env, reject: false });
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(await readFile(path.join(checkout, "src/a.ts"), "utf8")).toBe("export const a = Effect.andThen(x, (v) => v + 1);\n");
    // what multi-gitter commits: the change, and no report inside the clone
    expect(String((await git(checkout, "status", "--porcelain")).stdout).trim()).toBe("M src/a.ts");
    expect((await readdir(path.join(campaign, "reports"))).sort()).toEqual([".keep", "acme-api.json"]);
  });
});
