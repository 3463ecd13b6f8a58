import { describe, expect, it } from "vitest";
import { createExec } from "../../src/subprocess.js";
import { runTests } from "../../src/fixture-tests/suite.js";
import { testdir } from "../helpers/testdir.js";
import { nodeProcess } from "../../src/process-host.js";

// A recipe built on the real ast_edit tool: nested rewrites in one pass, .gitignore honoured in
// the case's git repository, and a second run that finds nothing left to rewrite.
describe("tollgate test with ast_edit", () => {
  it("passes a fixture case and catches a wrong expectation", async () => {
    const src = "import { Effect } from 'effect';\nexport const x = Effect.map(a, Effect.map(b, f));\n";
    const done = "import { Effect } from 'effect';\nexport const x = Effect.andThen(a, Effect.andThen(b, f));\n";
    const dir = await testdir({
      "and-then.yaml": [
        "version: 1",
        "steps:",
        "  - id: and-then",
        "    tool: ast_edit",
        '    with: { ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }], lang: ts, path: src }',
        "",
      ].join("\n"),
      "__tests__/nested/input/.gitignore": "src/generated/\n",
      "__tests__/nested/input/src/a.ts": src,
      "__tests__/nested/input/src/generated/g.ts": src,
      "__tests__/nested/expected/.gitignore": "src/generated/\n",
      "__tests__/nested/expected/src/a.ts": done,
      "__tests__/nested/expected/src/generated/g.ts": src,
      "__tests__/wrong/input/src/a.ts": src,
      "__tests__/wrong/expected/src/a.ts": src,
    });
    const r = await runTests({ targets: [dir], exec: createExec(dir, nodeProcess()), now: Date.now, displayBase: dir });
    expect(r.cases.map((c) => [c.name, c.status, c.idempotence])).toEqual([
      ["nested", "passed", "checked"],
      ["wrong", "failed", "checked"],
    ]);
    expect(r.cases[1]?.failures.map((f) => f.kind)).toEqual(["tree"]);
    expect(r.cases[1]?.failures[0]?.diff).toContain("+export const x = Effect.andThen(a, Effect.andThen(b, f));");
    expect(r.exitCode).toBe(1);
  });
});
