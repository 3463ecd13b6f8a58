import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { firstChangedLines, renderAnnotations } from "../../src/github/annotations.js";
import { command, escapeData, escapeProperty } from "../../src/github/escape.js";
import { renderOutputs } from "../../src/github/outputs.js";
import { renderSummary } from "../../src/report/markdown.js";
import type { Report } from "../../src/report/types.js";
import { testdir, tollgate } from "../helpers/testdir.js";

// Stages one action per file, with a label given by the recipe (untrusted text on purpose).
const PER_FILE = `
export default (pi) => ({
  name: "per_file", label: "Per file", description: "One action per file",
  parameters: pi.typebox.Type.Object({ files: pi.typebox.Type.Array(pi.typebox.Type.String()), label: pi.typebox.Type.String() }),
  async execute(_id, params) {
    for (const f of params.files) {
      const text = await pi.files.read(f);
      await pi.files.stage({ label: params.label + f, changes: [{ path: f, content: text.replace("old", "new") }] });
    }
    return { content: [{ type: "text", text: "::error::from a tool result" }] };
  },
});`;

function env(dir: string, extra: Record<string, string> = {}) {
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_STEP_SUMMARY: path.join(dir, "summary.md"),
    GITHUB_OUTPUT: path.join(dir, "output.txt"),
    GITHUB_WORKSPACE: dir,
    ...extra,
  };
}

/** stdout split into the log part (token replaced) and the annotation lines after the groups. */
function split(stdout: string) {
  const token = /::stop-commands::([0-9a-f]{32})\n/.exec(stdout)?.[1] ?? "none";
  const end = stdout.lastIndexOf("::endgroup::\n") + "::endgroup::\n".length;
  return { token, log: stdout.slice(0, end).split(token).join("TOKEN"), annotations: stdout.slice(end) };
}

describe("GitHub Actions integration (real CLI, real ast_edit)", () => {
  it("GITHUB_ACTIONS=true: groups, fenced untrusted text, annotations, job summary and outputs", async () => {
    const dir = await testdir({
      "src/a.ts": "// a\nconst a = Effect.map(x, f);\n",
      "src/b.ts": "const b = Effect.map(y, g);\n// ::error::injected from a file\n",
      "recipe.yaml": [
        "version: 1",
        "name: and-then",
        "steps:",
        "  - { id: a, tool: ast_edit, with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: src/a.ts } }",
        "  - { id: b, tool: ast_edit, with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: src/b.ts } }",
        "",
      ].join("\n"),
      "policy.yaml": "version: 1\ndefault: require-approval\nrules:\n  - { name: a is fine, match: { paths: [src/a.ts] }, decision: auto-apply }\n",
      "summary.md": "earlier step\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml", "--report", "out/report.json"], { cwd: dir, env: env(dir) });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(1);
    const { token, log, annotations } = split(r.stdout);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(annotations).toBe(
      [
        "::warning file=src/b.ts,line=1,title=tollgate%3A pending-approval::AST Edit: 1 replacement in 1 file (b#1): awaiting approval (policy default)",
        '::notice file=src/a.ts,line=2,title=tollgate%3A applied::AST Edit: 1 replacement in 1 file (a#1): auto-apply by rule "a is fine"',
      ].join("\n"),
    );
    expect(log.startsWith("::group::step 1/2 a (ast_edit): ok\n::stop-commands::TOKEN\n")).toBe(true);
    expect(log).toContain("\n::TOKEN::\n::endgroup::\n::group::step 2/2 b (ast_edit): ok\n::stop-commands::TOKEN\n");
    expect(log.endsWith("::TOKEN::\n::endgroup::\n")).toBe(true);
    // The injected line only ever appears while commands are stopped.
    const fenced = log
      .split("::stop-commands::TOKEN\n")
      .slice(1)
      .map((part) => part.split("::TOKEN::\n")[0])
      .join("");
    expect(fenced).toContain(" // ::error::injected from a file");
    const parts = log.split("::stop-commands::TOKEN\n");
    const outside = [parts[0], ...parts.slice(1).map((part) => part.split("::TOKEN::\n")[1] ?? "")].join("");
    expect(outside).not.toContain("injected");
    expect(outside).not.toContain("::error::");
    const report = JSON.parse(await readFile(path.join(dir, "out/report.json"), "utf8")) as Report;
    expect(await readFile(path.join(dir, "output.txt"), "utf8")).toBe(`changed=true\npending-count=1\nreport=${path.join(dir, "out/report.json")}\n`);
    const summary = await readFile(path.join(dir, "summary.md"), "utf8");
    const expected = renderSummary(report, { maxBytes: 1024 * 1024 - "earlier step\n".length - 8 * 1024, reportPath: path.join(dir, "out/report.json") });
    expect(summary).toBe(`earlier step\n${expected}\n`);
    expect(summary).toContain("| b#1 | AST Edit: 1 replacement in 1 file | require-approval (default) | pending-approval |");
    // A second run has a fresh token, and appends rather than overwrites.
    const again = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml", "--format", "github"], { cwd: dir, env: env(dir) });
    expect(split(again.stdout).token).not.toBe(token);
    expect(await readFile(path.join(dir, "output.txt"), "utf8")).toBe(
      `changed=true\npending-count=1\nreport=${path.join(dir, "out/report.json")}\nchanged=true\npending-count=1\n`,
    );
  });

  it("escapes labels and paths, caps 10 per kind with one notice pointing to the summary; --format json stays pure", async () => {
    const files: Record<string, string> = { "tools/per-file.ts": PER_FILE, "evil,na:me.txt": "old\n" };
    const applied = Array.from({ length: 12 }, (_, i) => `x/f${String(i).padStart(2, "0")}.txt`);
    const unapplied = Array.from({ length: 11 }, (_, i) => `y/g${String(i).padStart(2, "0")}.txt`);
    for (const f of [...applied, ...unapplied]) files[f] = "one\nold\n";
    const dir = await testdir({
      ...files,
      "recipe.yaml": [
        "version: 1",
        "tools: [./tools/per-file.ts]",
        "steps:",
        `  - { id: x, tool: per_file, with: { files: ${JSON.stringify(applied)}, label: "Fix: " } }`,
        `  - { id: y, tool: per_file, with: { files: ${JSON.stringify(unapplied)}, label: "Fix: " } }`,
        `  - { id: evil, tool: per_file, with: { files: ["evil,na:me.txt"], label: "Evil: 100% done\\n::error::x " } }`,
        "",
      ].join("\n"),
      "policy.yaml": "version: 1\ndefault: dry-run\nrules:\n  - { name: x, match: { paths: ['x/**'] }, decision: auto-apply }\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml", "--format", "github"], { cwd: dir, env: env(dir) });
    expect(r.code).toBe(0);
    const { annotations, log } = split(r.stdout);
    const lines = annotations.trimEnd().split("\n");
    expect(lines[0]).toBe(
      "::warning file=evil%2Cna%3Ame.txt,line=1,title=tollgate%3A dry-run::Evil: 100%25 done%0A::error::x evil,na:me.txt (evil#1): dry-run (policy default)",
    );
    expect(lines.filter((l) => l.startsWith("::warning ")).length).toBe(10);
    expect(lines.filter((l) => l.startsWith("::notice ")).length).toBe(10);
    expect(lines.filter((l) => l.startsWith("::error")).length).toBe(0);
    expect(lines.at(-1)).toBe("::notice title=tollgate::5 more annotations in the job summary and the JSON report");
    expect(lines[1]).toBe("::warning file=y/g10.txt,line=2,title=tollgate%3A dry-run::Fix: y/g10.txt (y#11): dry-run (policy default)");
    expect(log).toContain("::stop-commands::TOKEN\n::error::from a tool result\n");

    const json = await tollgate(["run", "recipe.yaml", "--format", "json"], { cwd: dir, env: env(dir) });
    expect(JSON.parse(json.stdout).schemaVersion).toBe(1);
  });
});

describe("GitHub rendering (pure)", () => {
  it("invalid input under GitHub Actions: one ::error annotation per problem at its file, line and column (exit 2)", async () => {
    const dir = await testdir({ "ci/bad.yaml": "version: 1\nsteps:\n  - tool: edit\n    with: { path: 1, oldText: a, newText: b }\n" });
    const r = await tollgate(["run", "bad.yaml"], { cwd: path.join(dir, "ci"), env: env(dir) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("::error file=ci/bad.yaml,line=4,col=19,title=tollgate%3A invalid input::steps[0].with.path: Expected string");
    expect(r.stderr).toBe("bad.yaml:4:19 steps[0].with.path: Expected string");
    const json = await tollgate(["run", "bad.yaml", "--format", "json"], { cwd: path.join(dir, "ci"), env: env(dir) });
    expect(json.code).toBe(2);
    expect(json.stdout).toBe("");
  });

  it("escapes like the toolkit", () => {
    expect(escapeData("100%\r\nx")).toBe("100%25%0D%0Ax");
    expect(escapeProperty("a:b,c%")).toBe("a%3Ab%2Cc%25");
    expect(command("error", { file: "a,b.ts", line: 3, col: undefined }, "m:1")).toBe("::error file=a%2Cb.ts,line=3::m:1");
  });

  it("first changed line per file: new side when applied, current side otherwise, created and deleted files", () => {
    const diff = [
      "diff --git a/m.ts b/m.ts",
      "--- a/m.ts",
      "+++ b/m.ts",
      "@@ -10,7 +12,7 @@",
      " ctx",
      " ctx",
      "-old",
      "+new",
      "diff --git a/n.ts b/n.ts",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/n.ts",
      "@@ -0,0 +1,1 @@",
      "+created",
      "diff --git a/o.ts b/o.ts",
      "deleted file mode 100644",
      "--- a/o.ts",
      "+++ /dev/null",
      "@@ -1,1 +0,0 @@",
      "-gone",
      "",
    ].join("\n");
    expect(firstChangedLines(diff, true)).toEqual([14, 1, 1]);
    expect(firstChangedLines(diff, false)).toEqual([12, 1, 1]);
  });

  it("outputs: single-line values plain, multi-line values as a heredoc with a delimiter not in the value", () => {
    const report = { outcomes: [], summary: { outcomes: { "pending-approval": 0 } } } as unknown as Report;
    const delimiters = ["ghadelim_a", "ghadelim_b"];
    expect(renderOutputs(report, { reportPath: "dir\nghadelim_a.json", delimiter: () => delimiters.shift()! })).toBe(
      "changed=false\npending-count=0\nreport<<ghadelim_b\ndir\nghadelim_a.json\nghadelim_b\n",
    );
  });

  it("annotations of an opaque action have no file", () => {
    const report = {
      outcomes: [{ id: "s#1", label: "Opaque", outcome: "failed", files: [], diff: "", error: "boom", reason: "r" }],
    } as unknown as Report;
    expect(renderAnnotations(report)).toEqual(["::error title=tollgate%3A failed::Opaque (s#1): boom"]);
  });

  it("a failed step is an error annotation too (a run can fail with nothing staged), before the outcomes", () => {
    const report = {
      steps: [
        { id: "ok", tool: "ast_grep", status: "ok", resultText: "fine" },
        { id: "empty", tool: "resolve", status: "error", resultText: "No pending action to resolve. Nothing to apply or discard." },
      ],
      outcomes: [{ id: "s#1", label: "Opaque", outcome: "applied", files: [], diff: "", error: null, reason: "r" }],
    } as unknown as Report;
    expect(renderAnnotations(report)).toEqual([
      "::error title=tollgate%3A step error::empty (resolve): No pending action to resolve. Nothing to apply or discard.",
      "::notice title=tollgate%3A applied::Opaque (s#1): r",
    ]);
  });
});
