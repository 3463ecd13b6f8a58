// Interrupts and --atomic through the real CLI (bin/tollgate.js in a child process), with
// custom tools whose actions write through pi.files and whose applies wait or throw.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/testdir.js";
import { cleanupTempDirs, snapshotTree, tempDir, waitFor, writeTree } from "../workspace/helpers.js";

afterAll(cleanupTempDirs);

// `stage`: one pi.files action (modify LF, modify CRLF+BOM 0755, create in a new dir).
// `slow`: an opaque action whose apply signals it started, then waits for a `release` file.
// `boom`: an opaque action whose apply throws.
const TOOLS = `
import { existsSync, writeFileSync } from "node:fs";
const none = (pi) => pi.typebox.Type.Object({});
export default (pi) => [
  { name: "stage", label: "Stage", description: "stages three files", parameters: none(pi),
    async execute() {
      await pi.files.stage({ label: "Stage: 3 files", changes: [
        { path: "src/a.ts", content: "export const a = 2;\\n" },
        { path: "src/b.ts", content: "\\uFEFFexport const b = 2;\\r\\n" },
        { path: "src/new/c.ts", content: "export const c = 1;\\n" },
      ] });
      return { content: [{ type: "text", text: "staged" }] };
    } },
  { name: "other", label: "Other", description: "stages one file", parameters: none(pi),
    async execute() {
      await pi.files.stage({ label: "Other: d.ts", changes: [{ path: "src/d.ts", content: "export const d = 2;\\n" }] });
      return { content: [{ type: "text", text: "staged" }] };
    } },
  { name: "slow", label: "Slow", description: "slow apply", parameters: none(pi),
    async execute() {
      pi.pushPendingAction({ label: "Slow: wait for release", apply: async () => {
        writeFileSync(pi.cwd + "/applying", "");
        while (!existsSync(pi.cwd + "/release")) await new Promise((r) => setTimeout(r, 20));
        return { content: [{ type: "text", text: "slow applied" }] };
      } });
      return { content: [{ type: "text", text: "pushed" }] };
    } },
  { name: "boom", label: "Boom", description: "apply throws", parameters: none(pi),
    async execute() {
      pi.pushPendingAction({ label: "Boom: x", apply: async () => { throw new Error("boom at apply"); } });
      return { content: [{ type: "text", text: "pushed" }] };
    } },
  { name: "fail", label: "Fail", description: "the tool itself throws", parameters: none(pi),
    async execute() { throw new Error("tool failed"); } },
];
`;

/** Steps are listed bottom-up: the last step's action is resolved first (LIFO). */
function project(steps: string[]): string {
  const dir = tempDir("tollgate-cli-apply-");
  writeTree(dir, {
    "src/a.ts": "export const a = 1;\n",
    "src/b.ts": { content: "\uFEFFexport const b = 1;\r\n", mode: 0o755 },
    "src/d.ts": "export const d = 1;\n",
    "tools/t.mjs": TOOLS,
    "recipe.yaml": `version: 1\ntools: [./tools/t.mjs]\nsteps:\n${steps.map((t) => `  - tool: ${t}\n`).join("")}`,
    "auto.yaml": "version: 1\ndefault: auto-apply\n",
  });
  chmodSync(path.join(dir, "src/b.ts"), 0o755);
  return dir;
}

/** The user's files: src/ only (markers, recipe, report and .tollgate/ are not the user's). */
const userFiles = (dir: string) => Object.fromEntries(Object.entries(snapshotTree(dir)).filter(([k]) => k.startsWith("src")));
const noLeftovers = (dir: string) => {
  expect(existsSync(path.join(dir, ".tollgate/journal.json"))).toBe(false);
  expect(existsSync(path.join(dir, ".tollgate/lock"))).toBe(false);
  expect(Object.keys(snapshotTree(dir)).filter((k) => /\.tmp$|tollgate-\d/.test(k))).toEqual([]);
};
const report = (dir: string) => JSON.parse(readFileSync(path.join(dir, "report.json"), "utf8"));

function start(dir: string, extra: string[] = []) {
  let stderr = "";
  const child = execa(process.execPath, [CLI, "run", "recipe.yaml", "--policy", "auto.yaml", "--report", "report.json", ...extra], {
    cwd: dir,
    reject: false,
    stdin: "ignore",
    env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "" },
    timeout: 90_000,
  });
  child.stderr.on("data", (d) => (stderr += d));
  return { child, stderr: () => stderr };
}

/** Sends SIGINT while the slow action's apply is running, then lets that apply finish. */
async function interruptDuringApply(dir: string, run: ReturnType<typeof start>) {
  await waitFor(() => existsSync(path.join(dir, "applying")), 60_000, "the slow apply to start");
  run.child.kill("SIGINT");
  await waitFor(() => /SIGINT: stopping after the current action/.test(run.stderr()), 30_000, "the interrupt to be acknowledged");
  writeFileSync(path.join(dir, "release"), "");
  return run.child;
}

describe("tollgate run through the CLI: interrupt during apply, --atomic", () => {
  it.concurrent(
    "SIGINT while an action is applying: it finishes, nothing more is applied, report written, exit 130, no journal",
    { timeout: 120_000 },
    async () => {
      // Resolution order: stage (applied), slow (interrupted while applying: finishes), other (discarded).
      const dir = project(["other", "slow", "stage"]);
      const run = start(dir);
      const r = await interruptDuringApply(dir, run);
      expect(r.exitCode, run.stderr()).toBe(130);
      const rep = report(dir);
      expect(rep.run.interrupted).toBe(true);
      expect(rep.exitCode).toBe(130);
      expect(rep.outcomes.map((o: { id: string; action: string; outcome: string }) => [o.id, o.action, o.outcome])).toEqual([
        ["2-stage#1", "apply", "applied"],
        ["1-slow#1", "apply", "applied"],
        ["0-other#1", "discard", "discarded"],
      ]);
      expect(rep.outcomes[1].resultText).toBe("slow applied");
      expect(rep.outcomes[2].reason).toBe("interrupted");
      // The applied action is whole, the discarded one untouched.
      expect(readFileSync(path.join(dir, "src/a.ts"), "utf8")).toBe("export const a = 2;\n");
      expect(readFileSync(path.join(dir, "src/b.ts"), "utf8")).toBe("\uFEFFexport const b = 2;\r\n");
      expect(readFileSync(path.join(dir, "src/new/c.ts"), "utf8")).toBe("export const c = 1;\n");
      expect(readFileSync(path.join(dir, "src/d.ts"), "utf8")).toBe("export const d = 1;\n");
      expect(snapshotTree(dir)["src/b.ts"]).toMatch(/^755 /);
      noLeftovers(dir);
    },
  );

  it.concurrent("SIGINT during apply with --atomic: everything applied is rolled back, byte-identical, exit 130", { timeout: 120_000 }, async () => {
    const dir = project(["other", "slow", "stage"]);
    const before = userFiles(dir);
    const run = start(dir, ["--atomic"]);
    const r = await interruptDuringApply(dir, run);
    expect(r.exitCode, run.stderr()).toBe(130);
    const rep = report(dir);
    expect(rep.run.interrupted).toBe(true);
    expect(rep.run.atomic).toEqual({ rolledBack: true, files: expect.arrayContaining(["src/a.ts", "src/b.ts", "src/new/c.ts"]), error: null });
    expect(rep.outcomes[0]).toMatchObject({ id: "2-stage#1", outcome: "applied", rolledBack: true, error: "Rolled back (--atomic): the run was interrupted" });
    expect(rep.summary.filesChanged).toBe(0);
    expect(userFiles(dir)).toEqual(before);
    noLeftovers(dir);
  });

  it.concurrent("--atomic: the second action fails, the first is rolled back byte-identical, the report says so, exit 3", { timeout: 120_000 }, async () => {
    // Resolution order: stage (applied), boom (apply throws) → stage rolled back.
    const dir = project(["boom", "stage"]);
    const before = userFiles(dir);
    const r = await start(dir, ["--atomic"]).child;
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain("boom at apply");
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+/);
    const rep = report(dir);
    expect(rep.exitCode).toBe(3);
    expect(rep.run.interrupted).toBe(false);
    expect(rep.run.atomic).toEqual({ rolledBack: true, files: expect.arrayContaining(["src/a.ts", "src/b.ts", "src/new/c.ts"]), error: null });
    expect(rep.outcomes.map((o: { id: string; outcome: string; rolledBack?: boolean }) => [o.id, o.outcome, o.rolledBack ?? false])).toEqual([
      ["1-stage#1", "applied", true],
      ["0-boom#1", "failed", false],
    ]);
    expect(rep.outcomes[0].error).toBe("Rolled back (--atomic): 0-boom#1 failed");
    expect(rep.outcomes[1].error).toContain("boom at apply");
    expect(rep.summary.filesChanged).toBe(0);
    expect(userFiles(dir)).toEqual(before);
    noLeftovers(dir);

    // Without --atomic the same run keeps the first action's files (the contrast that makes the test meaningful).
    const plain = await start(dir).child;
    expect(plain.exitCode).toBe(3);
    expect(readFileSync(path.join(dir, "src/a.ts"), "utf8")).toBe("export const a = 2;\n");
    expect(report(dir).run.atomic).toBeUndefined();
    noLeftovers(dir);
  });
});

describe("tollgate run through the CLI: --atomic and a step error", () => {
  it.concurrent(
    "--atomic: a step error (a tool that threw) rolls back what was applied, exit 3; without --atomic it is kept",
    { timeout: 120_000 },
    async () => {
      // stage stages; fail throws (a step error, exit 3); at the end stage is applied, then rolled back.
      const dir = project(["stage", "fail"]);
      const before = userFiles(dir);
      const r = await start(dir, ["--atomic"]).child;
      expect(r.exitCode, r.stderr).toBe(3);
      expect(r.stderr).toContain("tool failed");
      const rep = report(dir);
      expect(rep.steps.map((s: { status: string }) => s.status)).toEqual(["ok", "error"]);
      expect(rep.run.atomic).toEqual({ rolledBack: true, files: expect.arrayContaining(["src/a.ts", "src/b.ts", "src/new/c.ts"]), error: null });
      expect(
        rep.outcomes.map((o: { id: string; outcome: string; rolledBack?: boolean; error: string | null }) => [o.id, o.outcome, o.rolledBack ?? false, o.error]),
      ).toEqual([["0-stage#1", "applied", true, "Rolled back (--atomic): step 1-fail failed"]]);
      expect(userFiles(dir)).toEqual(before);
      noLeftovers(dir);

      const plain = await start(dir).child;
      expect(plain.exitCode).toBe(3);
      expect(readFileSync(path.join(dir, "src/a.ts"), "utf8")).toBe("export const a = 2;\n");
      noLeftovers(dir);
    },
  );
});

describe("tollgate run through the CLI: interrupt during a step", () => {
  it.concurrent("SIGINT while an exec step runs: the command is killed at once, staged actions are discarded, exit 130", { timeout: 60_000 }, async () => {
    const dir = tempDir("tollgate-cli-int-exec-");
    writeTree(dir, {
      "recipe.yaml": [
        "version: 1",
        "steps:",
        "  - tool: write",
        "    with: { path: z.txt, content: z }",
        "  - tool: exec",
        `    with: { command: ${JSON.stringify(process.execPath)}, args: ["-e", "require('fs').writeFileSync('started', ''); setTimeout(() => {}, 60000)"] }`,
        "",
      ].join("\n"),
      "auto.yaml": "version: 1\ndefault: auto-apply\n",
    });
    const run = start(dir);
    await waitFor(() => existsSync(path.join(dir, "started")), 30_000, "the command to start");
    const sent = Date.now();
    run.child.kill("SIGINT");
    const r = await run.child;
    // Before the fix the step ran its full minute: the session never saw the run's signal.
    expect(Date.now() - sent).toBeLessThan(20_000);
    expect(r.exitCode, run.stderr()).toBe(130);
    const rep = report(dir);
    expect(rep.run.interrupted).toBe(true);
    expect(rep.steps[1]).toMatchObject({ tool: "exec", status: "error" });
    expect(rep.steps[1].resultText).toMatch(/killed \(interrupted\)/);
    expect(rep.outcomes.map((o: { outcome: string; reason: string }) => [o.outcome, o.reason])).toEqual([["discarded", "interrupted"]]);
    expect(existsSync(path.join(dir, "z.txt"))).toBe(false);
    noLeftovers(dir);
  });
});
