import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

const UPPER_TOOL = `
import type { CustomToolFactory } from "tollgate";

// Stages an upper-cased copy of each file through pi.files (diff, stale check, atomic write).
const factory: CustomToolFactory = (pi) => ({
  name: "shout",
  label: "Shout",
  description: "Upper-cases files",
  deferrable: true,
  parameters: pi.typebox.Type.Object({ files: pi.typebox.Type.Array(pi.typebox.Type.String()) }),
  async execute(_id, params) {
    const changes = [];
    for (const file of params.files) changes.push({ path: file, content: (await pi.files.read(file)).toUpperCase() });
    const staged = await pi.files.stage({ label: \`Shout: \${changes.length} files\`, changes });
    return { content: [{ type: "text", text: \`staged \${staged.files.join(", ")}\` }] };
  },
});
export default factory;
`;

async function project() {
  return testdir({
    "a.txt": "hello\n",
    "b.txt": "world\n",
    "tools/shout.ts": UPPER_TOOL,
    "recipe.yaml": [
      "version: 1",
      "name: shout",
      `tools: [./tools/shout.ts, ${JSON.stringify(path.join(REPO_ROOT, "test/custom/fixtures/batch-rename-preview.ts"))}]`,
      "steps:",
      "  - id: shout",
      "    tool: shout",
      "    with: { files: [a.txt, b.txt] }",
      "  - id: rename",
      "    tool: batch_rename_preview",
      "    with: { files: [a.txt] }",
      "",
    ].join("\n"),
    "auto.yaml": "version: 1\ndefault: auto-apply\n",
    "approve.yaml": "version: 1\ndefault: require-approval\n",
    "discard.yaml": "version: 1\ndefault: discard\n",
  });
}

async function report(dir: string) {
  return JSON.parse(await readFile(path.join(dir, "report.json"), "utf8"));
}

describe("tollgate run (end to end, real CLI, TypeScript custom tools)", () => {
  it("auto-apply writes the files and records exact outcome texts in LIFO order", async () => {
    const dir = await project();
    const r = await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("HELLO\n");
    expect(await readFile(path.join(dir, "b.txt"), "utf8")).toBe("WORLD\n");
    const rep = await report(dir);
    expect(rep.steps.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([
      ["shout", "ok"],
      ["rename", "ok"],
    ]);
    expect(rep.outcomes.map((o: Record<string, unknown>) => [o.id, o.action, o.outcome, o.resultText])).toEqual([
      ["rename#1", "apply", "applied", "Applied batch rename. Reason: auto-apply by policy default"],
      ["shout#1", "apply", "applied", "Applied: Shout: 2 files."],
    ]);
    const shout = rep.outcomes[1];
    expect(shout.details).toEqual({ action: "apply", reason: "auto-apply by policy default", sourceToolName: "shout", label: "Shout: 2 files" });
    expect(shout.files.map((f: { path: string; change: string }) => [f.path, f.change])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "modified"],
    ]);
    expect(shout.diff).toContain("-hello\n+HELLO");
    expect(rep.summary.outcomes.applied).toBe(2);
    expect(rep.exitCode).toBe(0);
  });

  it("no policy means dry-run: nothing written, reject gets the reason, exit 0", async () => {
    const dir = await project();
    const r = await tollgate(["run", "recipe.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("hello\n");
    const rep = await report(dir);
    expect(rep.outcomes.map((o: Record<string, unknown>) => [o.outcome, o.action, o.decision, o.resultText])).toEqual([
      ["dry-run", "discard", "dry-run", "Discarded batch rename. Reason: dry-run (policy default)"],
      ["dry-run", "discard", "dry-run", "Discarded: Shout: 2 files. Reason: dry-run (policy default)"],
    ]);
  });

  it("require-approval without approval leaves actions pending (exit 1); --approve-all applies (exit 0)", async () => {
    const dir = await project();
    const pending = await tollgate(["run", "recipe.yaml", "--policy", "approve.yaml", "--report", "report.json"], { cwd: dir });
    expect(pending.code).toBe(1);
    expect((await report(dir)).outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(["pending-approval", "pending-approval"]);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("hello\n");
    const approved = await tollgate(["run", "recipe.yaml", "--policy", "approve.yaml", "--approve-all"], { cwd: dir });
    expect(approved.code).toBe(0);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("HELLO\n");
  });

  it("discard policy and --dry-run override; --format json prints the report on stdout", async () => {
    const dir = await project();
    const d = await tollgate(["run", "recipe.yaml", "--policy", "discard.yaml", "--format", "json"], { cwd: dir });
    expect(d.code).toBe(0);
    const rep = JSON.parse(d.stdout);
    expect(rep.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(["discarded", "discarded"]);
    const dry = await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--dry-run"], { cwd: dir });
    expect(dry.code).toBe(0);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("hello\n");
  });

  it("an explicit resolve step that may apply calls resolve with the step's own reason (batch_rename_preview)", async () => {
    const dir = await project();
    const recipe = (await readFile(path.join(dir, "recipe.yaml"), "utf8")) + "  - tool: resolve\n    with: { action: apply, reason: ship it }\n";
    await writeFile(path.join(dir, "explicit.yaml"), recipe);
    const r = await tollgate(["run", "explicit.yaml", "--policy", "auto.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(0);
    const rep = await report(dir);
    const [rename] = rep.outcomes;
    expect(rename.requested).toEqual({ action: "apply", reason: "ship it" });
    expect([rename.decision, rename.action, rename.reason, rename.outcome]).toEqual(["auto-apply", "apply", "ship it", "applied"]);
    expect(rename.resultText).toBe("Applied batch rename. Reason: ship it");
    expect(rename.details).toEqual({ action: "apply", reason: "ship it", sourceToolName: "batch_rename_preview", label: "Batch rename: 1 files" });
    expect(rep.steps.at(-1)).toMatchObject({ tool: "resolve", status: "ok", resultText: "Applied batch rename. Reason: ship it" });
  });

  it("pi.files.stage leaves out files outside the run's files (files..): only those are staged and written", async () => {
    const dir = await project();
    const r = await tollgate(["run", "recipe.yaml", "a.txt", "--policy", "auto.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const rep = await report(dir);
    expect(rep.steps[0].resultText).toBe("staged a.txt");
    expect(rep.outcomes.find((o: { step: string }) => o.step === "shout").files.map((f: { path: string }) => f.path)).toEqual(["a.txt"]);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("HELLO\n");
    expect(await readFile(path.join(dir, "b.txt"), "utf8")).toBe("world\n");
  });

  it("a file changed after staging makes the apply stale (exit 3), nothing written", async () => {
    const dir = await testdir({
      "a.txt": "hello\n",
      "tools/racy.ts": `
export default (pi) => ({
  name: "racy", label: "Racy", description: "d", parameters: pi.typebox.Type.Object({}),
  async execute() {
    await pi.files.stage({ label: "Racy: a.txt", changes: [{ path: "a.txt", content: "staged\\n" }] });
    const fs = await import("node:fs");
    fs.writeFileSync(pi.cwd + "/a.txt", "changed meanwhile\\n");
    return { content: [{ type: "text", text: "ok" }] };
  },
});`,
      "recipe.yaml": "version: 1\ntools: [./tools/racy.ts]\nsteps:\n  - tool: racy\n",
      "auto.yaml": "version: 1\ndefault: auto-apply\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("changed meanwhile\n");
    const rep = await report(dir);
    expect(rep.outcomes[0].outcome).toBe("stale");
    expect(rep.outcomes[0].error).toContain("a.txt");
  });

  it("a throwing custom tool is a step error (exit 3); a load error is exit 2 naming the module", async () => {
    const dir = await testdir({
      "tools/boom.ts": `export default (pi) => ({ name: "boom", label: "B", description: "d", parameters: pi.typebox.Type.Object({}), execute: async () => { throw "not an Error"; } });`,
      "tools/nodefault.ts": "export const x = 1;",
      "ok.yaml": "version: 1\ntools: [./tools/boom.ts]\nsteps:\n  - tool: boom\n",
      "bad.yaml": "version: 1\ntools: [./tools/nodefault.ts]\nsteps:\n  - tool: boom\n",
    });
    const r = await tollgate(["run", "ok.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.code).toBe(3);
    expect((await report(dir)).steps[0]).toMatchObject({ status: "error", resultText: "not an Error" });
    const bad = await tollgate(["run", "bad.yaml"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${path.join("tools", "nodefault.ts")}: Tool must export a default function`);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it("an error no step awaited (stray rejection, throwing timer) is one line and exit 3, never a stack trace", async () => {
    const stray = (name: string, body: string) =>
      `export default (pi) => ({ name: "${name}", label: "S", description: "d", parameters: pi.typebox.Type.Object({}), execute: async () => { ${body}; return { content: [{ type: "text", text: "ok" }] }; } });`;
    const dir = await testdir({
      "tools/rejects.mjs": stray("rejects", 'Promise.reject(new Error("stray rejection"))'),
      "tools/timer.mjs": stray("timer", 'setTimeout(() => { throw new Error("timer boom"); }, 0)'),
      "a.yaml": "version: 1\ntools: [./tools/rejects.mjs]\nsteps:\n  - tool: rejects\n",
      "b.yaml":
        "version: 1\ntools: [./tools/timer.mjs]\nsteps:\n  - tool: timer\n  - tool: exec\n    with: { command: node, args: [-e, 'setTimeout(() => {}, 200)'] }\n",
    });
    for (const [recipe, message] of [
      ["a.yaml", "stray rejection"],
      ["b.yaml", "timer boom"],
    ]) {
      const r = await tollgate(["run", recipe!], { cwd: dir });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(`tollgate: error outside any step (a custom tool's promise not awaited?): ${message}`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("pushPendingAction outside an active session throws the store-unavailable message: while loading, and after the run", async () => {
    const dir = await testdir({
      "tools/early.ts": `export default (pi) => {
  pi.pushPendingAction({ label: "Early: at load", apply: async () => ({ content: [] }) });
  return { name: "early", label: "E", description: "d", parameters: pi.typebox.Type.Object({}), execute: async () => ({ content: [] }) };
};`,
      "tools/late.ts": `export default (pi) => ({ name: "late", label: "L", description: "d", parameters: pi.typebox.Type.Object({}),
  execute: async () => {
    process.once("exit", () => {
      try { pi.pushPendingAction({ label: "Late: after the run", apply: async () => ({ content: [] }) }); process.stderr.write("LATE: pushed\\n"); }
      catch (err) { process.stderr.write("LATE: " + err.message + "\\n"); }
    });
    return { content: [{ type: "text", text: "ok" }] };
  } });`,
      "early.yaml": "version: 1\ntools: [./tools/early.ts]\nsteps:\n  - tool: early\n",
      "late.yaml": "version: 1\ntools: [./tools/late.ts]\nsteps:\n  - tool: late\n",
    });
    const message = `${path.join("tools", "early.ts")}: Failed to load tool: Pending action store unavailable for custom tools in this runtime.`;
    for (const command of ["run", "validate"]) {
      const r = await tollgate([command, "early.yaml"], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    const late = await tollgate(["run", "late.yaml"], { cwd: dir });
    expect(late.code).toBe(0);
    expect(late.stderr).toContain("LATE: Pending action store unavailable for custom tools in this runtime.");
  });

  it("a module named twice in tools (./t.ts and t.ts) is loaded once, not a name conflict", async () => {
    const dir = await project();
    const recipe = (await readFile(path.join(dir, "recipe.yaml"), "utf8")).replace("tools: [./tools/shout.ts,", "tools: [./tools/shout.ts, tools/shout.ts,");
    await writeFile(path.join(dir, "twice.yaml"), recipe);
    const r = await tollgate(["validate", "twice.yaml"], { cwd: dir });
    expect(r.stderr.trim()).toBe("twice.yaml: valid (2 steps)");
    expect(r.code).toBe(0);
  });

  it("tool details the JSON report cannot hold as-is (BigInt, cycles) do not cost the run its report", async () => {
    const dir = await testdir({
      "tools/odd.js": `export default (pi) => ({ name: "odd", label: "O", description: "d", parameters: pi.typebox.Type.Object({}),
  execute: async () => { const d = { n: 10n, list: [1, 2] }; d.self = d; d.again = d.list; return { content: [{ type: "text", text: "ok" }], details: d }; } });`,
      "recipe.yaml": "version: 1\ntools: [./tools/odd.js]\nsteps:\n  - tool: odd\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--report", "report.json"], { cwd: dir });
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(0);
    expect((await report(dir)).steps[0].details).toEqual({ n: "10", list: [1, 2], self: "[Circular]", again: [1, 2] });
  });

  it("pi.logger writes the run log to stderr, never to stdout", async () => {
    const dir = await testdir({
      "tools/chatty.ts": `import type { CustomToolFactory } from "tollgate";
const f: CustomToolFactory = (pi) => ({ name: "chatty", label: "C", description: "d", parameters: pi.typebox.Type.Object({}),
  execute: async () => { pi.logger.info("scanned 3 files"); pi.logger.warn("one was odd"); return { content: [{ type: "text", text: "ok" }] }; } });
export default f;`,
      "recipe.yaml": "version: 1\ntools: [./tools/chatty.ts]\nsteps:\n  - tool: chatty\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).steps[0].resultText).toBe("ok");
    expect(r.stderr).toContain("scanned 3 files\n");
    expect(r.stderr).toContain("warning: one was odd\n");
  });

  it("what a custom tool prints (console.log, process.stdout.write) goes to stderr: --format json and tools --json stay JSON", async () => {
    const dir = await testdir({
      "tools/noisy.mjs": `export default (pi) => { console.log("factory"); return { name: "noisy", label: "N", description: "d", parameters: pi.typebox.Type.Object({}), execute: async () => { console.log("from execute"); process.stdout.write("raw write\\n"); return { content: [{ type: "text", text: "ok" }] }; } }; };`,
      "r.yaml": "version: 1\ntools: [./tools/noisy.mjs]\nsteps:\n  - tool: noisy\n",
    });
    const r = await tollgate(["run", "r.yaml", "--format", "json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).steps[0].resultText).toBe("ok");
    expect(r.stderr).toContain("factory\nfrom execute\nraw write\n");
    const tools = await tollgate(["tools", "r.yaml", "--json"], { cwd: dir });
    expect(JSON.parse(tools.stdout).map((t: { name: string }) => t.name)).toContain("noisy");
    expect(tools.stderr).toContain("factory");
  });

  it("--version answers without loading the CLI", async () => {
    const dir = await testdir();
    const r = await tollgate(["--version"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
