import { describe, expect, it } from "vitest";
import { renderSummary } from "../../src/report/markdown.js";
import type { OutcomeRecord, Report } from "../../src/report/types.js";

function outcome(id: string, diff: string, over: Partial<OutcomeRecord> = {}): OutcomeRecord {
  return {
    id,
    fingerprint: "f",
    label: "AST Edit: 1 replacement in 1 file",
    sourceToolName: "ast_edit",
    step: "s",
    toolCallId: "call_1",
    resolveToolCallId: "call_2",
    requested: null,
    decision: "dry-run",
    rule: { name: "default", index: null },
    approval: null,
    action: "discard",
    reason: "dry-run",
    outcome: "dry-run",
    resultText: "",
    details: null,
    files: [{ path: "a|b.ts", change: "modified", additions: 1, deletions: 1, beforeSha256: null, afterSha256: null }],
    diff,
    error: null,
    durationMs: 1,
    ...over,
  };
}

function report(outcomes: OutcomeRecord[]): Report {
  const counts = { applied: 0, discarded: 0, "dry-run": outcomes.length, "pending-approval": 0, failed: 0, stale: 0, blocked: 0 };
  return {
    schemaVersion: 1,
    run: {
      tool: "tollgate",
      version: "0",
      command: "run",
      recipe: { path: "/r.yaml", sha256: "0".repeat(64), name: "my | recipe" },
      policy: { path: null, sha256: null },
      vars: {},
      cwd: "/",
      git: { head: null, dirty: null },
      mode: "dry-run",
      dryRun: true,
      check: false,
      files: null,
      shard: null,
      startedAt: new Date(0).toISOString(),
      durationMs: 5,
      interrupted: false,
    },
    steps: [
      { id: "s", tool: "ast_edit", toolCallId: "call_1", params: {}, status: "ok", resultText: "x | y\nmore", details: null, actions: ["s#1"], durationMs: 3 },
    ],
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
    expect(md).toContain("| 1 | s | ast_edit | ok | s#1 | 3 | x \\| y (+1 line below) |");
    // What changed where comes first; the step's full result text is shown too.
    expect(md.indexOf("### Changes")).toBeLessThan(md.indexOf("### Steps"));
    expect(md).toContain("| `a\\|b.ts` | modified | +1 −1 | s#1 | Preview | dry-run (default) |");
    expect(md).toContain("<details><summary>s (ast_edit)</summary>\n\n```text\nx | y\nmore\n```");
    // Only the outcomes that occurred are counted; nothing awaits approval here.
    expect(md).not.toContain("| applied | 0 |");
    expect(md).not.toContain("### Awaiting approval");
    expect(md).toContain("| s#1 | AST Edit: 1 replacement in 1 file | dry-run (default) | dry-run | 1 | +1 −1 |\n");
    expect(md).toContain("`````diff\n--- a/x");
    expect(md).toContain("## tollgate: my \\| recipe");
  });

  it("lists what awaits approval and why, and under a plan what the policy would decide", () => {
    const pending = outcome("h#1", "", {
      outcome: "pending-approval",
      decision: "require-approval",
      reason: 'awaiting approval (rule "headers need a human")',
      rule: { name: "headers need a human", index: 0 },
    });
    const md = renderSummary(report([pending]));
    expect(md).toContain(
      '### Awaiting approval\n\n- `h#1` AST Edit: 1 replacement in 1 file — awaiting approval (rule "headers need a human"); approve with `--approve h#1` (or `--approve-all`)',
    );
    const plan = {
      ...report([outcome("s#1", "")]),
      plan: { actions: [{ id: "s#1", wouldDecide: { decision: "auto-apply", rule: { name: "small edits", index: 0 } } }] },
    } as unknown as Report;
    const planned = renderSummary(plan);
    expect(planned).toContain('| s#1 | Preview | dry-run (default); would auto-apply, rule "small edits" |');
    const gated = {
      ...plan,
      plan: { actions: [{ id: "s#1", wouldDecide: { decision: "require-approval", rule: { name: "default", index: null } } }] },
    } as unknown as Report;
    expect(renderSummary(gated)).toContain("- `s#1` AST Edit: 1 replacement in 1 file — would require approval, policy default; approve with `--approve s#1`");
  });

  it("truncates large diffs and drops diffs beyond the budget, pointing at the report", () => {
    const big = "+x\n".repeat(50_000);
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
