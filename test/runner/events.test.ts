import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { executeRun, prepareRun, runRecipe, type RunEvent } from "../../src/index.js";
import { testdir } from "../helpers/testdir.js";

const RECIPE = `version: 1
steps:
  - id: and-then
    tool: ast_edit
    with:
      ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }]
      lang: ts
      path: src
  - id: notes
    tool: write
    with: { path: NOTES.md, content: "migrated\\n" }
`;

async function workspace(policy = "auto-apply") {
  return testdir({
    "recipe.yaml": RECIPE,
    "policy.yaml": `version: 1\ndefault: ${policy}\n`,
    "src/a.ts": "const x = Effect.map(a, f);\n",
    "src/b.ts": "const y = Effect.map(b, g);\nconst z = 1;\n",
  });
}

describe("the runner's event stream", () => {
  it("tells every step, staged action and outcome, in order, and ends with the report it returns", async () => {
    const dir = await workspace();
    const events: RunEvent[] = [];
    const prepared = await prepareRun({ recipePath: path.join(dir, "recipe.yaml"), policyPath: path.join(dir, "policy.yaml") }, { cwd: dir });
    const result = await executeRun(prepared, { onEvent: (e) => events.push(e) });
    try {
      expect(
        events
          .map((e) =>
            e.type === "step_started" || e.type === "step_ended"
              ? `${e.type} ${"id" in e ? e.id : e.step.id}`
              : e.type === "action_staged"
                ? `staged ${e.staged.id}`
                : e.type === "outcome"
                  ? `outcome ${e.record.id} ${e.record.outcome}`
                  : e.type,
          )
          .filter((t) => t !== "progress"),
      ).toEqual([
        "step_started and-then",
        "staged and-then#1",
        "step_ended and-then",
        "step_started notes",
        "staged notes#1",
        "step_ended notes",
        // LIFO: the last staged is resolved first
        "outcome notes#1 applied",
        "outcome and-then#1 applied",
        "finished",
      ]);
      const finished = events.at(-1)!;
      expect(finished.type === "finished" && finished.report).toBe(result.report);
      expect(result.exitCode).toBe(0);
      const staged = events.flatMap((e) => (e.type === "action_staged" ? [e.staged] : []));
      const outcomes = events.flatMap((e) => (e.type === "outcome" ? [e.record] : []));
      // the staged record's fingerprint is the one the outcome carries (final once the call returned)
      for (const s of staged) expect(outcomes.find((o) => o.id === s.id)?.fingerprint).toBe(s.fingerprint);
      // the runner's bookkeeping is its own record: nothing is written onto the producer's action
      for (const s of staged) expect(Object.keys(s.action).sort()).toEqual(expect.not.arrayContaining(["meta", "written", "preview", "id"]));
      expect(await readFile(path.join(dir, "src/a.ts"), "utf8")).toBe("const x = Effect.andThen(a, f);\n");
    } finally {
      result.dispose();
    }
  });

  it("asks the approver passed in, with the staged record, and records its answer", async () => {
    const dir = await workspace("require-approval");
    const asked: string[] = [];
    const result = await runRecipe(
      { recipePath: path.join(dir, "recipe.yaml"), policyPath: path.join(dir, "policy.yaml") },
      {
        cwd: dir,
        approver: async (staged, info) => {
          asked.push(`${staged.id} ${info.remaining}`);
          return staged.id === "notes#1" ? "y" : "n";
        },
      },
    );
    expect(asked).toEqual(["notes#1 2", "and-then#1 1"]);
    expect(result.report.outcomes.map((o) => [o.id, o.outcome, o.approval])).toEqual([
      ["notes#1", "applied", { by: "prompt", via: "prompt" }],
      ["and-then#1", "pending-approval", null],
    ]);
    expect(result.exitCode).toBe(1);
    // runRecipe hands back a report that owns its diffs (the spill is gone) and the previews for a patch
    expect(result.report.outcomes[1]!.diff).toContain("+const x = Effect.andThen(a, f);");
    expect(result.previews.map((p) => p.id)).toEqual(["and-then#1"]);
    expect(result.previews[0]!.files[0]!.diff.text()).toContain("Effect.andThen(a, f)");
  });

  it("a gate passed in decides before the policy (apply's plan gate)", async () => {
    const dir = await workspace();
    const result = await runRecipe(
      { recipePath: path.join(dir, "recipe.yaml"), policyPath: path.join(dir, "policy.yaml") },
      { cwd: dir, gate: (staged) => (staged.id === "notes#1" ? { outcome: "stale", reason: "changed since the plan" } : undefined) },
    );
    expect(result.report.outcomes.map((o) => [o.id, o.outcome])).toEqual([
      ["notes#1", "stale"],
      ["and-then#1", "applied"],
    ]);
    expect(result.exitCode).toBe(3);
  });

  it("an aborted signal stops the run before the next step and discards what is pending (exit 130)", async () => {
    const dir = await workspace();
    const controller = new AbortController();
    const result = await runRecipe(
      { recipePath: path.join(dir, "recipe.yaml"), policyPath: path.join(dir, "policy.yaml") },
      { cwd: dir, signal: controller.signal, onEvent: (e) => e.type === "step_ended" && controller.abort() },
    );
    expect(result.report.steps.map((s) => s.id)).toEqual(["and-then"]);
    expect(result.report.outcomes.map((o) => [o.id, o.outcome, o.reason])).toEqual([["and-then#1", "discarded", "interrupted"]]);
    expect(result.exitCode).toBe(130);
  });
});
