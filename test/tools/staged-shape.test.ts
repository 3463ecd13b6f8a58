/**
 * What ast_scan and ast_edit stage, pinned byte for byte: over the scan-diff fixture (rules over
 * six languages, several of them fixing the same file), a dry run's report, SARIF and patch are
 * compared with the files under fixtures/staged-shape. Only what depends on the run's time and
 * place is normalised (the temp dir, start time, durations, the version). Any change in how the
 * tools stage (which files, in which order, the diffs, hashes, fingerprints, details) shows
 * here; a change meant to alter them updates the files (`vitest -u`) and says why.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

const FIXTURE = path.join(REPO_ROOT, "test/tools/fixtures/scan-diff");
const GOLDEN = path.join(REPO_ROOT, "test/tools/fixtures/staged-shape");

const RECIPE = `version: 1
name: staged-shape
steps:
  - id: scan
    tool: ast_scan
    with: { config: sgconfig.yml }
  - id: edit
    tool: ast_edit
    with:
      lang: ts
      path: src
      ops:
        - { pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }
        - { pat: "JSON.stringify($A)", out: "stringify($A)" }
        - { pat: "$X as any", out: "$X as unknown" }
`;

async function version(): Promise<string> {
  return (JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
}

/** The text with the run's place and time taken out. */
function normalised(text: string, dir: string, v: string): string {
  return text
    .split(dir)
    .join("<workspace>")
    .replace(/"startedAt": "[^"]*"/g, '"startedAt": "<time>"')
    .replace(/"durationMs": \d+/g, '"durationMs": 0')
    .replace(new RegExp(`"(version|semanticVersion)": "${v.replace(/\./g, "\\.")}"`, "g"), '"$1": "<version>"');
}

describe("staged shape", () => {
  it("stages the same report, SARIF and patch as pinned", async () => {
    const dir = await testdir();
    await cp(FIXTURE, dir, { recursive: true });
    await writeFile(path.join(dir, "recipe.yaml"), RECIPE);
    const r = await tollgate(
      ["run", "recipe.yaml", "--dry-run", "--report", "out/report.json", "--sarif", "out/report.sarif", "--patch", "out/changes.patch"],
      {
        cwd: dir,
      },
    );
    // error-severity findings: exit 1, everything written
    expect(r.stderr).toContain("dry-run");
    expect(r.code).toBe(1);
    const v = await version();
    const read = async (name: string) => normalised(await readFile(path.join(dir, "out", name), "utf8"), dir, v);
    const report = JSON.parse(await read("report.json")) as { outcomes: Array<{ id: string; files: unknown[] }> };
    // several rules fix the same file: the case where staging could share work per file
    expect(report.outcomes.filter((o) => o.id.startsWith("scan#")).length).toBeGreaterThanOrEqual(15);
    await expect(await read("report.json")).toMatchFileSnapshot(path.join(GOLDEN, "report.json"));
    await expect(await read("report.sarif")).toMatchFileSnapshot(path.join(GOLDEN, "report.sarif"));
    await expect(await read("changes.patch")).toMatchFileSnapshot(path.join(GOLDEN, "changes.patch"));
  });
});
