import { describe, expect, it } from "vitest";
import { renderSummary } from "../../src/report/markdown.js";
import type { OutcomeRecord, Report } from "../../src/report/types.js";

function outcome(id: string, diff: string, over: Partial<OutcomeRecord> = {}): OutcomeRecord {
  return {
    id, fingerprint: "f", label: "AST Edit: 1 replacement in 1 file", sourceToolName: "ast_edit", step: "s",
    toolCallId: "call_1", resolveToolCallId: "call_2", requested: null, decision: "dry-run",
    rule: { name: "default", index: null }, approval: null, action: "discard", reason: "dry-run",
    outcome: "dry-run", resultText: "", details: null,
    files: [{ path: "a|b.ts", change: "modified", additions: 1, deletions: 1, beforeSha256: null, afterSha256: null }],
    diff, error: null, durationMs: 1, ...over,
  };
}

function report(outcomes: OutcomeRecord[]): Report {
  const counts = { applied: 0, discarded: 0, "dry-run": outcomes.length, "pending-approval": 0, failed: 0, stale: 0, blocked: 0 };
  return {
    schemaVersion: 1,
    run: {
      tool: "tollgate", version: "0", command: "run", recipe: { path: "/r.yaml", sha256: "0".repeat(64), name: "my | recipe" },
      policy: { path: null, sha256: null }, vars: {}, cwd: "/", git: { head: null, dirty: null }, mode: "dry-run",
      dryRun: true, check: false, files: null, shard: null, startedAt: new Date(0).toISOString(), durationMs: 5, interrupted: false,
    },
    steps: [{ id: "s", tool: "ast_edit", toolCallId: "call_1", params: {}, status: "ok", resultText: "x | y\nmore", details: null, actions: ["s#1"], durationMs: 3 }],
    outcomes,
    summary: { steps: 1, stepErrors: 0, actions: outcomes.length, outcomes: counts, filesChanged: 0, additions: 0, deletions: 0, exitCode: 0 },
    exitCode: 0,
  };
}

describe("renderSummary", () => {
  it("has counts, a per-step table, an action table and fenced diffs; table cells escape pipes", () => {
    const md = renderSummary(report([outcome("s#1", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-```\n+````\n")]));
    expect(md).toContain("**1 step, 1 action: 1 dry-run** · exit 0 · dry run");
    expect(md).toContain("| dry-run | 1 |");
    expect(md).toContain("| 1 | s | ast_edit | ok | s#1 | 3 | x \\| y |");
    expect(md).toContain("| s#1 | AST Edit: 1 replacement in 1 file | dry-run (default) | dry-run | 1 | +1 −1 |\n\n### Diffs\n");
    expect(md).toContain("`````diff\n--- a/x");
    expect(md).toContain("## tollgate: my \\| recipe");
  });

  it("truncates large diffs and drops diffs beyond the budget, pointing at the report", () => {
    const big = `${"+x\n".repeat(50_000)}`;
    const md = renderSummary(report([outcome("s#1", big), outcome("s#2", big), outcome("s#3", big)]), {
      maxBytes: 100_000,
      maxDiffBytes: 40_000,
      reportPath: "out/report.json",
    });
    expect(Buffer.byteLength(md)).toBeLessThan(100_000);
    expect(md).toContain("Diff truncated at 39 KiB; the full diff is in the report (`out/report.json`)");
    expect(md).toContain("_1 more diff not shown (size limit); see the report (`out/report.json`)._");
  });
});
