import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cutMarkdown, MAX_BODY_CHARS } from "../../src/campaign/pull-request.js";
import { testdir, tollgate } from "../helpers/testdir.js";
import { POLICY, pushBranch, readOutputs, RECIPE, RECIPE_TWO, remoteAndCheckout } from "./helpers.js";

/** The decision `campaign pr` prints on stdout (its one JSON line beside any workflow commands). */
const jsonLine = (stdout: string) => {
  const line = stdout.split("\n").find((l) => l.startsWith("{"));
  return line === undefined ? null : JSON.parse(line);
};

const MAPPED = "export const a = Effect.map(x, (v) => v + 1);\n";

/**
 * A campaign job for one repository: the recipe and policy from the campaign's own directory,
 * the run in the target's checkout, then `campaign pr` as the workflow calls it.
 */
async function job(
  files: Record<string, string>,
  options: { recipe?: string; policy?: string; before?: (bare: string) => Promise<void>; prArgs?: string[] } = {},
) {
  const campaign = await testdir({ "recipe.yaml": options.recipe ?? RECIPE, "policy.yaml": options.policy ?? POLICY });
  const { bare, checkout, root } = await remoteAndCheckout(files);
  if (options.before) {
    await options.before(bare);
    await (await import("execa")).execa("git", ["fetch", "-q", "origin"], { cwd: checkout });
  }
  const report = path.join(root, "report.json");
  const run = await tollgate(
    ["run", "--recipe", path.join(campaign, "recipe.yaml"), "--policy", path.join(campaign, "policy.yaml"), "--report", report, "--repository", "acme/api"],
    { cwd: checkout },
  );
  const output = path.join(root, "github-output.txt");
  await writeFile(output, "");
  const body = path.join(root, "body.md");
  const pr = await tollgate(
    [
      "campaign",
      "pr",
      "--report",
      report,
      "--cwd",
      checkout,
      "--body",
      body,
      "--patch-url",
      "https://github.com/acme/campaign/actions/runs/1/artifacts/2",
      "--report-url",
      "https://github.com/acme/campaign/actions/runs/1/artifacts/3",
      ...(options.prArgs ?? []),
    ],
    {
      cwd: root,
      env: { GITHUB_OUTPUT: output, GITHUB_ACTIONS: "true" },
    },
  );
  return { run, pr, outputs: await readOutputs(output), body: await readFile(body, "utf8").catch(() => null), json: jsonLine(pr.stdout) };
}

describe("tollgate campaign pr: open, update or skip a repository's pull request", () => {
  it("nothing staged: skip, no body, nothing to add", async () => {
    const { run, pr, outputs, body } = await job({ "src/a.ts": "export const a = 1;\n" });
    expect(run.code).toBe(0);
    expect(pr.code, pr.stderr).toBe(0);
    expect(outputs).toMatchObject({
      decision: "skip",
      reason: "nothing was applied",
      "applied-count": "0",
      "pending-count": "0",
      "add-paths": "",
      branch: "tollgate/effect-and-then",
    });
    expect(body).toBe("");
  });

  it("applied only: open, with the applied file and the summary in the body", async () => {
    const { run, outputs, body } = await job({ "src/a.ts": MAPPED, "README.md": "x\n" });
    expect(run.code).toBe(0);
    expect(outputs).toMatchObject({
      decision: "open",
      "applied-count": "1",
      "pending-count": "0",
      "add-paths": ":(literal)src/a.ts",
      title: "tollgate: effect and-then",
    });
    expect(outputs["commit-message"]).toMatch(/\n\nTollgate-Campaign: tollgate\/effect-and-then$/);
    expect(outputs["body-path"]).toMatch(/body\.md$/);
    expect(body).toContain("**1 applied** · 1 file changed (+1 −1)");
    expect(body).toContain("+export const a = Effect.andThen(x, (v) => v + 1);");
    expect(body).toContain("[the report artifact](https://github.com/acme/campaign/actions/runs/1/artifacts/3)");
    expect(body).not.toContain("Awaiting approval");
  });

  it("applied and pending: open; the body says what awaits approval and links the patch; only the applied file is added", async () => {
    const { run, outputs, body } = await job({ "src/a.ts": MAPPED, "lib/b.ts": MAPPED }, { recipe: RECIPE_TWO });
    expect(run.code).toBe(1);
    expect(outputs).toMatchObject({ decision: "open", "applied-count": "1", "pending-count": "1", "add-paths": ":(literal)src/a.ts" });
    expect(body).toContain("### Awaiting approval: not in this pull request");
    expect(body).toContain("[the patch artifact](https://github.com/acme/campaign/actions/runs/1/artifacts/2)");
    expect(body).toMatch(/- `lib#1` .* — `lib\/b\.ts`/);
  });

  it("pending only: skip (nothing awaiting approval is ever applied), the reason names the patch", async () => {
    const { run, outputs } = await job({ "lib/b.ts": MAPPED, "src/.keep": "" }, { recipe: RECIPE_TWO });
    expect(run.code).toBe(1);
    expect(outputs).toMatchObject({
      decision: "skip",
      reason: "nothing was applied; 1 action awaits approval (see the patch artifact)",
      "pending-count": "1",
      "add-paths": "",
    });
  });

  it("a branch holding a commit the campaign did not make: skip, left alone, and reported", async () => {
    let sha = "";
    const { outputs, pr, json } = await job(
      { "src/a.ts": MAPPED },
      { before: async (bare) => void (sha = await pushBranch(bare, "tollgate/effect-and-then", "hand fix")) },
    );
    expect(outputs.decision).toBe("skip");
    expect(outputs["foreign-count"]).toBe("1");
    expect(outputs.reason).toBe(`branch tollgate/effect-and-then holds 1 commit the campaign did not make (${sha.slice(0, 12)} hand fix): left alone`);
    expect(pr.stdout).toContain(`::warning title=tollgate campaign::acme/api: branch tollgate/effect-and-then holds 1 commit`);
    expect(json.foreign).toEqual([{ sha, subject: "hand fix" }]);
  });

  it("a branch holding only the campaign's own commits: update", async () => {
    const message = "tollgate: effect and-then\n\nApplied by tollgate.\n\nTollgate-Campaign: tollgate/effect-and-then";
    const { outputs } = await job(
      { "src/a.ts": MAPPED },
      {
        before: async (bare) => {
          await pushBranch(bare, "tollgate/effect-and-then", message);
        },
      },
    );
    expect(outputs).toMatchObject({ decision: "update", "foreign-count": "0", "add-paths": ":(literal)src/a.ts" });
    // the trailer of another campaign's branch does not make the commit this one's
    const other = await job(
      { "src/a.ts": MAPPED },
      {
        before: async (bare) => {
          await pushBranch(bare, "tollgate/effect-and-then", message.replace(/then$/, "then-2"));
        },
      },
    );
    expect(other.outputs.decision).toBe("skip");
  });

  it("a failed run proposes nothing; a bad branch is exit 2 with the reason", async () => {
    const failed = await job({ "lib/a.ts": MAPPED });
    expect(failed.run.code).toBe(3);
    expect(failed.outputs).toMatchObject({ decision: "skip", reason: "the run failed (exit 3): nothing is proposed from a failed run" });
    const bad = await job({ "src/a.ts": MAPPED }, { prArgs: ["--branch", "tollgate/a..b"] });
    expect(bad.pr.code).toBe(2);
    expect(bad.pr.stderr).toContain('--branch "tollgate/a..b": not a branch name git accepts (contains ..)');
    expect(bad.pr.stderr).not.toMatch(/\n\s+at /);
  });

  it("the body is cut to GitHub's 65,536 characters with a pointer to the full report, its fences closed", async () => {
    const big = Array.from({ length: 4000 }, (_, i) => `export const v${i} = Effect.map(a${i}, (x) => x + ${i}); // ${"é".repeat(10)}`).join("\n");
    const { outputs, body: written } = await job({ "src/big.ts": `${big}\n` });
    const body = written ?? "";
    expect(outputs.decision).toBe("open");
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_CHARS);
    expect(body.length).toBeGreaterThan(MAX_BODY_CHARS - 4096);
    expect(body).toMatch(
      /_Cut to GitHub's 65,536-character limit; the full summary and every diff are in \[the report artifact\]\(https:\/\/github\.com\/acme\/campaign\/actions\/runs\/1\/artifacts\/3\)\._\n$/,
    );
    const fences = body.split("\n").filter((l) => /^`{3,}/.test(l));
    expect(fences.length % 2).toBe(0);
    expect(body.split("<details>").length).toBe(body.split("</details>").length);
  });

  it("cutMarkdown keeps whole lines and never splits a surrogate pair", () => {
    const text = `${"😀".repeat(100)}\nsecond line\n`;
    const cut = cutMarkdown(text, 150);
    expect(cut.length).toBeLessThanOrEqual(150);
    expect(/[\uD800-\uDBFF]$/.test(cut)).toBe(false);
    expect(cutMarkdown("a\n```diff\n+x\n+y\n", 64 + 16)).toBe("a\n```diff\n+x\n```\n");
  });
});
