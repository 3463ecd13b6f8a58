import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.js";
import { failureText, PREVIEW_REMINDER, resultLines, tallyOutcomes, type FileOutcome } from "../../src/tools/jscodeshift/outcomes.js";
import { StepCollector } from "../../src/tools/jscodeshift.js";
import { Workspace } from "../../src/workspace/workspace.js";

const done = (status: "changed" | "unchanged" | "skip" | "error", extra: Partial<Extract<FileOutcome, { type: "done" }>> = {}): FileOutcome => ({
  type: "done",
  id: 1,
  status,
  reports: [],
  stats: {},
  ...extra,
});

describe("jscodeshift outcomes", () => {
  it("tallyOutcomes: counts and lists by file order, sums stats, keeps reports, leaves out files without an outcome", () => {
    const files = ["a.js", "b.js", "c.js", "d.js", "e.js", "f.js"].map((rel) => ({ rel }));
    const outcomes: Array<FileOutcome | undefined> = [
      done("changed", { reports: ["hi"], stats: { n: 1 } }),
      done("unchanged", { stats: { n: 2, m: 1 } }),
      done("skip"),
      done("error", { error: "boom" }),
      { type: "unreadable", id: 0, error: "binary" },
      undefined,
    ];
    expect(tallyOutcomes(files, outcomes)).toEqual({
      changed: [0],
      unchanged: 1,
      skipped: 1,
      skippedFiles: ["c.js"],
      errors: [{ path: "d.js", error: "boom" }],
      reports: [{ path: "a.js", message: "hi" }],
      stats: { n: 3, m: 1 },
      unreadable: [{ path: "e.js", reason: "binary" }],
    });
  });

  it("resultLines and failureText: the label, the lists, the stats sorted, the reminder when something is staged", () => {
    const summary = {
      transform: "t.js",
      transformParser: "tsx",
      files: 3,
      changed: ["a.js"],
      unchanged: 0,
      skipped: 1,
      errors: [{ path: "b.js", error: "boom" }],
      unreadable: [],
      reports: [{ path: "a.js", message: "hi" }],
      stats: { z: 1, a: 2 },
    };
    const lines = resultLines(summary);
    expect(lines).toEqual([
      "Jscodeshift: t.js: 1 file (3 files: 1 changed, 0 unchanged, 1 skipped, 1 failed)",
      "Parser: tsx (exported by the transform)",
      "- a.js",
      "",
      "Errors (1 file; the transform threw or did not finish in time):",
      "- b.js: boom",
      "",
      "Reports:",
      "a.js: hi",
      "",
      "Stats:",
      "a: 2",
      "z: 1",
      "",
      PREVIEW_REMINDER,
    ]);
    expect(failureText(summary, lines)).toMatch(
      /^jscodeshift t\.js: the transform failed on 1 file \(allowErrors: true accepts this\)\. The 1 changed file is staged and resolved by the policy\.\n\nJscodeshift: t\.js/,
    );
    expect(resultLines({ ...summary, transformParser: undefined, changed: [], errors: [], reports: [], stats: {} })).toEqual([
      "No changes: jscodeshift t.js (3 files: 0 changed, 0 unchanged, 1 skipped, 0 failed)",
    ]);
    // A file not read as text is counted too, and listed with its reason.
    expect(
      resultLines({
        ...summary,
        transformParser: undefined,
        changed: [],
        errors: [],
        reports: [],
        stats: {},
        unreadable: [{ path: "c.js", reason: "not valid UTF-8" }],
      }),
    ).toEqual([
      "No changes: jscodeshift t.js (3 files: 0 changed, 0 unchanged, 1 skipped, 0 failed, 1 not read)",
      "",
      "Not transformed (1 file not readable as text):",
      "- c.js: not valid UTF-8",
    ]);
  });

  it("StepCollector: stages a changed file against the text the transform saw; a file changed meanwhile becomes an error", async () => {
    const root = await testdir({ "a.js": "foo;\n", "b.js": "foo;\n", "c.js": "foo;\n" });
    const workspace = new Workspace({ root, durableJournal: false });
    const seen: number[] = [];
    const files = [{ rel: "a.js" }, { rel: "b.js" }, { rel: "c.js" }];
    const c = new StepCollector(workspace, files, (n) => seen.push(n));
    const pool = c.poolFiles();
    expect(await Promise.all(pool.map((f) => f.read()))).toEqual(["foo;\n", "foo;\n", "foo;\n"]);
    await writeFile(path.join(root, "b.js"), "changed meanwhile;\n");
    // Results arrive in any order; the changes come back in file order.
    c.settle(2, done("changed", { output: "bar;\n" }));
    c.settle(1, done("changed", { output: "bar;\n" }));
    c.settle(0, done("changed", { output: "baz;\n" }));
    expect(seen).toEqual([1, 2, 3]);
    expect(c.outcomes.every((o) => o?.type === "done" && o.output === undefined)).toBe(true);
    const tally = tallyOutcomes(files, c.outcomes);
    const changes = await c.changes(tally);
    expect(changes.map((ch) => ch.path)).toEqual(["a.js", "c.js"]);
    expect(tally.errors).toEqual([{ path: "b.js", error: "The file changed while the transform ran; run the step again" }]);
  });
});
