import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir, tollgate } from "../helpers/testdir.js";

// What a person reads: one word per outcome, what a plan's policy would
// decide and why, and how to move on after an exit 1. Real CLI, real ast_edit, real files.
const SHOUT = `
export default (pi) => [{
  name: "shout", label: "Shout", description: "Upper-cases one file", deferrable: true,
  parameters: pi.typebox.Type.Object({ file: pi.typebox.Type.String() }),
  async execute(_id, params) {
    const text = await pi.files.read(params.file);
    await pi.files.stage({ label: "Shout: " + params.file, changes: [{ path: params.file, content: text.toUpperCase() }] });
    return { content: [{ type: "text", text: "staged" }] };
  },
}, {
  name: "boom", label: "Boom", description: "An action whose apply throws", deferrable: true,
  parameters: pi.typebox.Type.Object({}),
  async execute() {
    pi.pushPendingAction({ label: "Boom: explode", apply: async () => { throw new Error("kaboom"); } });
    return { content: [{ type: "text", text: "staged" }] };
  },
}];`;

const recipe = (steps: string[]) => ["version: 1", "tools: [./tools/shout.mjs]", "steps:", ...steps, ""].join("\n");

async function project(files: Record<string, string> = {}) {
  return testdir({
    "a.txt": "alpha\n",
    "b.txt": "beta\n",
    "keep/c.txt": "gamma\n",
    "tools/shout.mjs": SHOUT,
    "out/.keep": "",
    ...files,
  });
}

/** The outcome lines of a run's stderr (two-space indent, a word, a colon). */
const outcomeLines = (stderr: string) => stderr.split("\n").filter((l) => /^ {2}[A-Z][a-z]+( approval)?: /.test(l));

describe("one word per outcome", () => {
  it("Preview, Accept, Awaiting approval, Discard, Blocked, Failed — never Discard for an unapplied preview", async () => {
    const dir = await project({
      "policy.yaml": [
        "version: 1",
        "default: dry-run",
        "rules:",
        "  - { name: a goes in, match: { step: a }, decision: auto-apply }",
        "  - { name: b needs a human, match: { step: b }, decision: require-approval }",
        "  - { name: c is dropped, match: { step: c }, decision: discard }",
        "  - { name: boom goes in, match: { step: boom }, decision: auto-apply }",
        "protect: ['keep/**']",
      ].join("\n"),
      "recipe.yaml": recipe([
        "  - { id: a, tool: shout, with: { file: a.txt } }",
        "  - { id: b, tool: shout, with: { file: b.txt } }",
        "  - { id: c, tool: shout, with: { file: b.txt } }",
        "  - { id: d, tool: shout, with: { file: a.txt } }",
        "  - { id: kept, tool: shout, with: { file: keep/c.txt } }",
        "  - { id: boom, tool: boom }",
      ]),
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(outcomeLines(r.stderr)).toEqual([
      "  Failed: explode [Boom] (failed, boom#1)",
      "  Blocked: keep/c.txt [Shout] (blocked, kept#1)",
      "  Preview: a.txt [Shout] (dry-run, d#1)",
      "  Discard: b.txt [Shout] (discarded, c#1)",
      "  Awaiting approval: b.txt [Shout] (pending-approval, b#1)",
      "  Accept: a.txt [Shout] (applied, a#1)",
    ]);
  });

  it("Stale: a planned action whose file changed before apply", async () => {
    const dir = await project({
      "policy.yaml": "version: 1\ndefault: auto-apply\n",
      "recipe.yaml": recipe(["  - { id: a, tool: shout, with: { file: a.txt } }"]),
    });
    expect((await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir })).code).toBe(0);
    await writeFile(path.join(dir, "a.txt"), "changed\n");
    const r = await tollgate(["apply", "plan.json", "--policy", "policy.yaml"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(outcomeLines(r.stderr)).toEqual(["  Stale: a.txt [Shout] (stale, a#1)"]);
  });

  it("the demo's first outcome line is a Preview", async () => {
    const r = await tollgate(["run", "recipes/effect-andthen.yaml", "--cwd", "examples/sample"], { cwd: path.resolve(import.meta.dirname, "../..") });
    expect(r.code).toBe(0);
    expect(outcomeLines(r.stderr)[0]).toMatch(/^ {2}Preview: \d+ replacements in \d+ files \[AST Edit\] \(dry-run, and-then#1\)$/);
  });
});

describe("plan says what the policy would decide, and why", () => {
  const files = {
    "policy.yaml": ["version: 1", "default: require-approval", "rules:", "  - { name: small edits, match: { step: a }, decision: auto-apply }"].join("\n"),
    "recipe.yaml": recipe(["  - { id: a, tool: shout, with: { file: a.txt } }", "  - { id: b, tool: shout, with: { file: b.txt } }"]),
  };

  it("on stderr", async () => {
    const dir = await project(files);
    const r = await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(outcomeLines(r.stderr)).toEqual([
      "  Preview: b.txt [Shout] (would require approval, policy default) (dry-run, b#1)",
      '  Preview: a.txt [Shout] (would auto-apply, rule "small edits") (dry-run, a#1)',
    ]);
  });

  it("in the job summary and the annotations", async () => {
    const dir = await project(files);
    const env = { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: path.join(dir, "out/summary.md"), GITHUB_OUTPUT: path.join(dir, "out/output.txt") };
    const r = await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "::warning file=b.txt,line=1,title=tollgate%3A dry-run (would require approval%2C policy default)::Shout: b.txt (b#1): would require approval, policy default;",
    );
    expect(r.stdout).toContain('::warning file=a.txt,line=1,title=tollgate%3A dry-run (would auto-apply%2C rule "small edits")::');
    const md = await readFile(path.join(dir, "out/summary.md"), "utf8");
    expect(md).toContain('| `a.txt` | modified | +1 −1 | a#1 | Preview | dry-run (plan); would auto-apply, rule "small edits" |');
    expect(md).toContain("### Awaiting approval\n\n- `b#1` Shout: b.txt — would require approval, policy default; approve with `--approve b#1`");
  });
});

describe("an exit 1 says how to move on", () => {
  it("pending approval: the --approve value, or --approve-all", async () => {
    const dir = await project({
      "policy.yaml": "version: 1\ndefault: require-approval\n",
      "recipe.yaml": recipe(["  - { id: header, tool: shout, with: { file: a.txt } }", "  - { id: more, tool: shout, with: { file: b.txt } }"]),
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml", "--approve", "more#1"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tollgate: 1 action awaits approval: run again with --approve header#1, or --approve-all to approve every one");
    const two = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml"], { cwd: dir });
    expect(two.stderr).toContain("tollgate: 1 action awaits approval: run again with --approve header#1,");
  });

  it("--check: the command that applies the change (with the files pre-commit passed)", async () => {
    const dir = await project({ "recipe.yaml": recipe(["  - { id: a, tool: shout, with: { file: a.txt } }"]) });
    const r = await tollgate(["run", "--check", "--recipe", "recipe.yaml", "a.txt"], { cwd: dir, env: { PRE_COMMIT: "1" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tollgate: --check found changes; to apply them: tollgate run --recipe recipe.yaml a.txt --mode auto-apply");
    const plan = await tollgate(["plan", "recipe.yaml", "--check", "--out", "my plan.json"], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("tollgate: --check found changes; to apply them: tollgate apply 'my plan.json' --approve-all");
  });
});
