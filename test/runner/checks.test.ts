import { describe, expect, it } from "vitest";
import { Type } from "@sinclair/typebox";
import { parseYaml } from "../../src/config/yaml.js";
import type { CheckIssue, Tool } from "../../src/domain/types.js";
import { checkSteps, placeIssue, policyIssues, refusal, type RecipePlace } from "../../src/runner/checks.js";

const RECIPE = `version: 1
steps:
  - tool: exec
    with: { command: ls }
  - tool: t
    with:
      ops:
        - { pat: "a(" }
`;

const place: RecipePlace = { file: "r.yaml", located: parseYaml("r.yaml", RECIPE).located! };

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, label: name, description: "", parameters: Type.Object({}), execute: () => Promise.resolve({ content: [] }), ...extra };
}

const allowAll = { exec: true, customTools: true };

describe("runner checks", () => {
  it("refusal: a tool's declared capability against the policy's allow", () => {
    const exec = tool("exec", { runs: { kind: "commands" } });
    const js = tool("jscodeshift", { runs: { kind: "modules", noun: "transform modules" } });
    expect(refusal(exec, allowAll)).toBeUndefined();
    expect(refusal(exec, { exec: false, customTools: true })).toBe("exec steps are not allowed by the policy (allow.exec: false)");
    expect(refusal(js, { exec: false, customTools: true })).toBeUndefined();
    expect(refusal(js, { exec: true, customTools: false })).toBe(
      "jscodeshift steps run transform modules, which the policy does not allow (allow.customTools: false)",
    );
    expect(refusal(tool("write"), { exec: false, customTools: false })).toBeUndefined();
  });

  it("policyIssues: placed at each refused step's tool; unknown tools are left to the schema check", () => {
    const tools = new Map([["exec", tool("exec", { runs: { kind: "commands" } })]]);
    const issues = policyIssues([{ tool: "exec" }, { tool: "nope" }, { tool: 3 }], tools, { exec: false, customTools: true }, place);
    expect(issues).toEqual([
      { file: "r.yaml", line: 3, col: 11, path: "steps[0].tool", message: "exec steps are not allowed by the policy (allow.exec: false)" },
    ]);
  });

  it("placeIssue: at a place inside `with`, at `with` itself, or in its own file", () => {
    expect(placeIssue({ at: ["ops", 0, "pat"], message: "bad", warning: true }, 1, place)).toEqual({
      file: "r.yaml",
      line: 8,
      col: 18,
      path: "steps[1].with.ops[0].pat",
      message: "bad",
    });
    expect(placeIssue({ message: "no transform" }, 0, place)).toEqual({ file: "r.yaml", line: 4, col: 11, message: "no transform" });
    expect(placeIssue({ file: "rules/a.yml", line: 2, col: 3, message: "bad rule" }, 0, place)).toEqual({
      file: "rules/a.yml",
      line: 2,
      col: 3,
      message: "bad rule",
    });
  });

  it("checkSteps: every step's own check in step order, with the options given; warnings apart from errors", async () => {
    const seen: unknown[] = [];
    const check = (params: Record<string, unknown>, options: { paths: boolean }): Promise<CheckIssue[]> => {
      seen.push([params, options]);
      return Promise.resolve([{ at: ["ops", 0, "pat"], message: "odd", warning: true }, { message: "broken" }]);
    };
    const tools = new Map<string, Tool>([
      ["exec", tool("exec")],
      ["t", tool("t", { check })],
    ]);
    const steps = [
      { id: "0-exec", tool: "exec", with: { command: "ls" }, index: 0 },
      { id: "1-t", tool: "t", with: { ops: [{ pat: "a(" }] }, index: 1 },
    ];
    const out = await checkSteps(steps, tools, { paths: true }, place);
    expect(seen).toEqual([[{ ops: [{ pat: "a(" }] }, { paths: true }]]);
    expect(out.warnings).toEqual([{ file: "r.yaml", line: 8, col: 18, path: "steps[1].with.ops[0].pat", message: "odd" }]);
    expect(out.errors).toEqual([{ file: "r.yaml", line: 7, col: 7, message: "broken" }]);
  });
});
