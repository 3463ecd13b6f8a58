import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";

// The human line of a resolve follows the original renderer, including its fallbacks: an empty
// label renders as `pending action` and an empty reason as `No reason provided`.
const TOOL = `
export default (pi) => ({
  name: "blank",
  label: "Blank",
  description: "Stages an action with an empty label",
  deferrable: true,
  parameters: pi.typebox.Type.Object({}),
  async execute() {
    pi.pushPendingAction({ label: "", apply: async () => ({ content: [] }) });
    return { content: [{ type: "text", text: "staged" }] };
  },
});
`;

describe("resolve line fallbacks (CLI)", () => {
  it("prints `No reason provided` for an empty reason and `pending action` for an empty label", async () => {
    const cwd = await testdir({
      "tools/blank.mjs": TOOL,
      "recipe.yaml": [
        "version: 1",
        "tools: [./tools/blank.mjs]",
        "steps:",
        "  - tool: write",
        '    with: { path: w.txt, content: "one\\n" }',
        "  - tool: resolve",
        '    with: { action: discard, reason: "" }',
        "  - tool: blank",
        "",
      ].join("\n"),
      "policy.yaml": "version: 1\ndefault: discard\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml"], { cwd });
    expect(r.code).toBe(0);
    const lines = r.stderr.split("\n");
    const explicit = lines.findIndex((l) => l.startsWith("  Discard: create w.txt [Write] (discarded, 0-write#1)"));
    expect(explicit).toBeGreaterThanOrEqual(0);
    expect(lines[explicit + 1]).toBe("    No reason provided");
    expect(r.stderr).toContain("  Discard: pending action (discarded, 2-blank#1)\n");
  });
});
