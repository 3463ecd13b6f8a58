/**
 * The `jscodeshift` tool on real transform modules in temp workspaces: the tool
 * in-process for its results, the real CLI for exit codes, policy gating and plan/apply.
 */
import { readdir, readFile, realpath, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { availableParallelism, freemem, totalmem } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { gitdir, REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";
import { ORACLE_ENV } from "../helpers/jscodeshift-oracle.js";
import { makeHost, stagedText } from "./helpers.js";
import { machineWorkers, workerExecArgv, workerSettings, workersFor } from "../../src/tools/jscodeshift/workers.js";

const JSCODESHIFT_CLI = path.join(REPO_ROOT, "node_modules/jscodeshift/bin/jscodeshift.js");

/** The jscodeshift CLI (the oracle) in `cwd`. */
function jscodeshiftCli(args: string[], cwd: string) {
  return execa(process.execPath, [JSCODESHIFT_CLI, ...args], { cwd, env: ORACLE_ENV });
}

// A CommonJS transform: skip (undefined) for files without `foo`, the same source for files
// marked `keep`, otherwise renames every identifier `foo` to `bar`.
const RENAME_CJS = `module.exports = function (file, api, options) {
  const j = api.jscodeshift;
  if (!file.source.includes("foo")) return undefined;
  if (file.source.includes("keep")) return file.source;
  if (file.source.includes("boom")) throw new Error("boom in " + file.path + "\\nsecond line");
  if (file.source.includes("empty")) return "";
  return j(file.source).find(j.Identifier, { name: "foo" }).forEach((p) => { p.node.name = options.to || "bar"; }).toSource();
};
`;

function recipe(steps: string): string {
  return `version: 1\nsteps:\n${steps}`;
}

describe("jscodeshift tool", () => {
  it("skip, unchanged and changed files; a throw and an empty string; one action for every changed file", async () => {
    const root = await testdir({
      "t.cjs": RENAME_CJS,
      "src/a.js": "const foo = 1;\nfoo + foo;\n",
      "src/b.js": "const x = 1;\n",
      "src/c.js": "const foo = 1; // keep\n",
      "src/d.js": "const foo = 2; // boom\n",
      "src/e.js": "const foo = 3; // empty\n",
      "src/f.ts": "const foo: number = 1;\n",
      "src/g.txt": "foo\n",
    });
    const t = makeHost(root);
    const { result, details, text } = await t.call("jscodeshift", { transform: "./t.cjs", path: "src", parser: "ts", options: { to: "baz" } });
    expect((result as { isError?: boolean }).isError).toBe(true);
    expect(details.changed).toEqual(["src/a.js", "src/f.ts"]);
    expect(details.skipped).toEqual(["src/b.js", "src/e.js"]);
    expect(details.filesUnchanged).toBe(1);
    expect(details.errors).toEqual([{ path: "src/d.js", error: "boom in src/d.js" }]);
    expect(details.filesSearched).toBe(6); // g.txt: not an extension jscodeshift transforms
    expect(details.jscodeshift.version).toBe("17.4.0");
    expect(text).toContain("- src/d.js: boom in src/d.js");
    expect(text).toContain("allowErrors: true");
    expect(t.actions).toHaveLength(1);
    expect(t.actions[0]!.label).toBe("Jscodeshift: ./t.cjs: 2 files");
    expect(t.actions[0]!.sourceToolName).toBe("jscodeshift");
    expect(t.actions[0]!.changes!.map((c) => stagedText(root, c))).toEqual(["const baz = 1;\nbaz + baz;\n", "const baz: number = 1;\n"]);
    // Nothing written before the action is applied.
    expect(await readFile(path.join(root, "src/a.js"), "utf8")).toBe("const foo = 1;\nfoo + foo;\n");
    await t.actions[0]!.apply("test");
    expect(await readFile(path.join(root, "src/a.js"), "utf8")).toBe("const baz = 1;\nbaz + baz;\n");
  });

  it("allowErrors: true lists the failures and the step is not an error", async () => {
    const root = await testdir({ "t.cjs": RENAME_CJS, "a.js": "foo;\n", "d.js": "foo; // boom\n" });
    const t = makeHost(root);
    const { result, details } = await t.call("jscodeshift", { transform: "t.cjs", allowErrors: true });
    expect((result as { isError?: boolean }).isError).toBeUndefined();
    expect(details.errors).toEqual([{ path: "d.js", error: "boom in d.js" }]);
    expect(t.actions[0]!.label).toBe("Jscodeshift: t.cjs: 1 file");
  });

  it("async, ES module (.mjs), TypeScript and Babel-compiled (export default + require) transforms; api.report and api.stats", async () => {
    const root = await testdir({
      "async.js": `module.exports = async (file, api) => { await new Promise((r) => setTimeout(r, 5)); api.report("seen " + file.path); api.stats("files"); api.stats("weight", 2); return file.source.replace("old", "new"); };\n`,
      "esm.mjs": `import { createRequire } from "node:module";\nexport const parser = "tsx";\nexport default function (file, { j }) { return j(file.source).find(j.Identifier, { name: "old" }).forEach((p) => { p.node.name = "esm"; }).toSource(); }\n`,
      "typed.ts": `import type { API, FileInfo } from "jscodeshift";\ninterface Opts { to?: string }\nexport default function transform(file: FileInfo, api: API, options: Opts): string { const j = api.j; return j(file.source).find(j.Identifier, { name: "old" }).forEach((p) => { p.node.name = options.to ?? "typed"; }).toSource(); }\n`,
      "mixed.js": `const path = require("node:path");\nexport default (file) => file.source.replace("old", path.posix.basename("x/mixed"));\n`,
      "src/a.tsx": "const old = <div />;\n",
    });
    const t = makeHost(root);
    const a = await t.call("jscodeshift", { transform: "async.js", path: "src" });
    expect(a.details.changed).toEqual(["src/a.tsx"]);
    expect(a.details.reports).toEqual([{ path: "src/a.tsx", message: "seen src/a.tsx" }]);
    expect(a.details.stats).toEqual({ files: 1, weight: 2 });
    expect(a.text).toContain("src/a.tsx: seen src/a.tsx");
    expect(a.text).toMatch(/Stats:\nfiles: 1\nweight: 2/);
    const e = await t.call("jscodeshift", { transform: "esm.mjs", path: "src" });
    expect(e.details.transformParser).toBe("tsx");
    expect(stagedText(root, t.actions[1]!.changes![0]!)).toBe("const esm = <div />;\n");
    const ts = await t.call("jscodeshift", { transform: "typed.ts", path: "src", parser: "tsx", options: { to: "viaOptions" } });
    expect(ts.details.errors).toEqual([]);
    expect(stagedText(root, t.actions[2]!.changes![0]!)).toBe("const viaOptions = <div />;\n");
    await t.call("jscodeshift", { transform: "mixed.js", path: "src" });
    expect(stagedText(root, t.actions[3]!.changes![0]!)).toBe("const mixed = <div />;\n");
  });

  it("a parser the transform exports wins over the step's, as in jscodeshift", async () => {
    const root = await testdir({
      "flowy.js": `module.exports = (file, { j }) => j(file.source).find(j.Identifier, { name: "a" }).forEach((p) => { p.node.name = "b"; }).toSource();\nmodule.exports.parser = "flow";\n`,
      "src/x.js": "type T = { a: number };\nconst a: T = { a: 1 };\n",
    });
    const t = makeHost(root);
    // The step's parser (babel) cannot parse Flow's `type T`: only the exported flow parser can.
    const { details } = await t.call("jscodeshift", { transform: "flowy.js", path: "src", parser: "babel" });
    expect(details.transformParser).toBe("flow");
    expect(details.errors).toEqual([]);
    expect(stagedText(root, t.actions[0]!.changes![0]!)).toBe("type T = { b: number };\nconst b: T = { b: 1 };\n");
  });

  it("passes the jscodeshift CLI's options and fileInfo exactly as its worker does (oracle: the jscodeshift CLI)", { timeout: 90_000 }, async () => {
    const probe = `module.exports = (file, api, options) => { api.report(JSON.stringify({ path: file.path, options, keys: Object.keys(api).sort() })); return null; };\n`;
    const root = await testdir({ "probe.js": probe, "src/a.js": "x;\n" });
    const t = makeHost(root);
    const ours = await t.call("jscodeshift", { transform: "./probe.js", path: "src", parser: "flow", options: { foo: "bar" } });
    const theirs = await jscodeshiftCli(["-t", "./probe.js", "--parser", "flow", "--foo=bar", "src/a.js"], root);
    const line = theirs.stdout.split("\n").find((l) => l.includes('"options"'))!;
    const cli = JSON.parse(line.slice(line.indexOf("{"))) as { path: string; options: Record<string, unknown>; keys: string[] };
    const mine = JSON.parse(ours.details.reports[0].message) as typeof cli;
    expect(mine.options).toEqual(cli.options);
    expect(mine.path).toBe(cli.path);
    expect(mine.keys).toEqual(["j", "jscodeshift", "report", "stats"]);
    expect(cli.keys).toEqual(mine.keys);
  });

  it("output is byte-identical to the jscodeshift CLI's on the same files (CRLF, BOM, unicode)", async () => {
    const transform = `module.exports = (file, { j }) => j(file.source).find(j.CallExpression, { callee: { name: "f" } }).forEach((p) => { p.node.arguments.reverse(); }).toSource({ quote: "single" });\n`;
    const files = {
      "src/a.js": "f(1, 'ü');\r\nconst x = () => f(\"a\", b);\r\n",
      "src/b.jsx": "\uFEFFf(<A b={1} />, 2);\n",
      "src/c.js": "// no calls\n",
    };
    const root = await testdir({ "t.js": transform, ...files });
    const copy = await testdir({ "t.js": transform, ...files });
    const t = makeHost(root);
    await t.call("jscodeshift", { transform: "t.js", path: "src" });
    await t.actions[0]!.apply("test");
    await jscodeshiftCli(["-t", "t.js", "src"], copy);
    for (const name of Object.keys(files)) {
      expect(await readFile(path.join(root, name))).toEqual(await readFile(path.join(copy, name)));
    }
  });

  it("clear errors: a missing module, a module that does not export a function, a module that throws on load", async () => {
    const root = await testdir({ "obj.js": "module.exports = { notAFunction: 1 };\n", "bad.js": "throw new Error('load failed');\n", "a.js": "x;\n" });
    const t = makeHost(root);
    const tool = t.tool("jscodeshift");
    expect(await tool.check!({ transform: "./nope.js" }, { paths: false })).toEqual([
      { message: expect.stringContaining("jscodeshift transform not found: ./nope.js") },
    ]);
    expect(await tool.check!({ transform: "no-such-package/t.js" }, { paths: false })).toEqual([
      { message: expect.stringContaining("not found: no-such-package/t.js") },
    ]);
    expect(await tool.check!({ transform: "obj.js" }, { paths: false })).toEqual([{ message: expect.stringContaining("does not export a function") }]);
    expect(await tool.check!({ transform: "bad.js" }, { paths: false })).toEqual([{ message: "Failed to load jscodeshift transform bad.js: load failed" }]);
    await expect(t.call("jscodeshift", { transform: "obj.js" })).rejects.toThrow(/does not export a function/);
  });

  it("CLI: exit 3 on a failed file with the others staged; validate; allow.customTools: false refuses (exit 2); a package specifier", async () => {
    const dir = await gitdir({
      "codemods/t.cjs": RENAME_CJS,
      "recipe.yaml": recipe(`  - id: rename\n    tool: jscodeshift\n    with: { transform: ./codemods/t.cjs, path: src }\n`),
      "strict.yaml": "version: 1\ndefault: auto-apply\nallow: { customTools: false }\n",
      "auto.yaml": "version: 1\ndefault: auto-apply\n",
      "src/a.js": "foo();\n",
      "src/d.js": "foo(); // boom\n",
    });
    const run = await tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", "r.json"], { cwd: dir });
    expect(run.code).toBe(3);
    const report = JSON.parse(await readFile(path.join(dir, "r.json"), "utf8"));
    expect(report.steps[0].status).toBe("error");
    expect(report.steps[0].resultText).toContain("- src/d.js: boom in src/d.js");
    expect(report.outcomes.map((o: { label: string; outcome: string }) => [o.label, o.outcome])).toEqual([
      ["Jscodeshift: ./codemods/t.cjs: 1 file", "applied"],
    ]);
    expect(await readFile(path.join(dir, "src/a.js"), "utf8")).toBe("bar();\n");
    expect(run.stdout).toBe("");

    const refused = await tollgate(["run", "recipe.yaml", "--policy", "strict.yaml"], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("allow.customTools: false");
    const validRefused = await tollgate(["validate", "recipe.yaml", "--policy", "strict.yaml"], { cwd: dir });
    expect(validRefused.code).toBe(2);

    await writeFile(path.join(dir, "bad.yaml"), recipe(`  - tool: jscodeshift\n    with: { transform: ./codemods/missing.js }\n`));
    const invalid = await tollgate(["validate", "bad.yaml"], { cwd: dir });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/bad\.yaml:\d+:\d+.*jscodeshift transform not found: \.\/codemods\/missing\.js/);
    expect(invalid.stderr).not.toMatch(/\n\s+at /);
    expect((await tollgate(["validate", "recipe.yaml"], { cwd: dir })).code).toBe(0);

    await execa("ln", ["-s", path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules")]);
    await writeFile(path.join(dir, "src/k.js"), "class A extends React.Component { componentWillMount() {} }\n");
    await writeFile(
      path.join(dir, "pkg.yaml"),
      recipe(`  - tool: jscodeshift\n    with: { transform: react-codemod/transforms/rename-unsafe-lifecycles.js, path: src/k.js }\n`),
    );
    const pkg = await tollgate(["run", "pkg.yaml", "--dry-run", "--report", "p.json"], { cwd: dir });
    expect(pkg.code).toBe(0);
    const p = JSON.parse(await readFile(path.join(dir, "p.json"), "utf8"));
    expect(p.outcomes[0].label).toBe("Jscodeshift: react-codemod/transforms/rename-unsafe-lifecycles.js: 1 file");
    expect(p.outcomes[0].diff).toContain("+class A extends React.Component { UNSAFE_componentWillMount() {} }");
  }, 120_000);

  it("plan, then a file changes, then apply: the action is stale and nothing is written", async () => {
    const dir = await gitdir({
      "t.cjs": RENAME_CJS,
      "recipe.yaml": recipe(`  - id: rename\n    tool: jscodeshift\n    with: { transform: t.cjs, path: src }\n`),
      "policy.yaml": "version: 1\ndefault: require-approval\n",
      "src/a.js": "foo();\n",
      "src/b.js": "foo(1);\n",
    });
    const plan = await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir });
    expect(plan.code).toBe(0);
    await writeFile(path.join(dir, "src/b.js"), "foo(2);\n");
    const apply = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--approve-all", "--report", "r.json"], { cwd: dir });
    expect(apply.code).toBe(3);
    const report = JSON.parse(await readFile(path.join(dir, "r.json"), "utf8"));
    expect(report.outcomes[0].outcome).toBe("stale");
    expect(await readFile(path.join(dir, "src/a.js"), "utf8")).toBe("foo();\n");

    // Unchanged since the plan: the approved action applies.
    const dir2 = await gitdir({
      "t.cjs": RENAME_CJS,
      "recipe.yaml": recipe(`  - id: rename\n    tool: jscodeshift\n    with: { transform: t.cjs, path: src }\n`),
      "policy.yaml": "version: 1\ndefault: require-approval\n",
      "src/a.js": "foo();\n",
    });
    expect((await tollgate(["plan", "recipe.yaml", "--policy", "policy.yaml", "--out", "plan.json"], { cwd: dir2 })).code).toBe(0);
    const ok = await tollgate(["apply", "plan.json", "--policy", "policy.yaml", "--approve-all"], { cwd: dir2 });
    expect(ok.code).toBe(0);
    expect(await readFile(path.join(dir2, "src/a.js"), "utf8")).toBe("bar();\n");
  }, 120_000);

  it("policy decides per action: a paths rule applies the action, a discard rule leaves the files", async () => {
    const dir = await gitdir({
      "t.cjs": RENAME_CJS,
      "recipe.yaml": recipe(
        `  - id: lib\n    tool: jscodeshift\n    with: { transform: t.cjs, path: lib }\n  - id: app\n    tool: jscodeshift\n    with: { transform: t.cjs, path: app }\n`,
      ),
      "policy.yaml": `version: 1\ndefault: discard\nrules:\n  - name: codemods in lib\n    match: { tool: jscodeshift, paths: ["lib/**"] }\n    decision: auto-apply\n`,
      "lib/a.js": "foo();\n",
      "app/b.js": "foo();\n",
    });
    const r = await tollgate(["run", "recipe.yaml", "--policy", "policy.yaml", "--format", "json"], { cwd: dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.outcomes.map((o: { id: string; outcome: string }) => [o.id, o.outcome])).toEqual([
      ["app#1", "discarded"],
      ["lib#1", "applied"],
    ]);
    expect(await readFile(path.join(dir, "lib/a.js"), "utf8")).toBe("bar();\n");
    expect(await readFile(path.join(dir, "app/b.js"), "utf8")).toBe("foo();\n");
  }, 60_000);

  it("a transform runs with the workspace root as its working directory, as jscodeshift run from the project root (oracle: the CLI), and tollgate's own never changes", async () => {
    // Reads fileInfo.path as given (relative), resolves it against process.cwd(), and reports both.
    const probe = `const fs = require("node:fs"); const path = require("node:path");\nmodule.exports = (file, api) => { api.report(JSON.stringify({ cwd: fs.realpathSync(process.cwd()), readsSame: fs.readFileSync(file.path, "utf8") === file.source, resolved: fs.realpathSync(path.resolve(file.path)) })); return null; };\n`;
    const root = await testdir({ "probe.js": probe, "src/a.js": "x;\n" });
    const real = await realpath(root);
    const before = process.cwd();
    expect(before).not.toBe(real);
    const seen = new Set<string>();
    const sampler = setInterval(() => seen.add(process.cwd()), 1);
    const t = makeHost(root);
    const ours = await t.call("jscodeshift", { transform: "./probe.js", path: "src" }).finally(() => clearInterval(sampler));
    expect([...seen, process.cwd()].every((c) => c === before)).toBe(true);
    const mine = JSON.parse(ours.details.reports[0].message) as Record<string, unknown>;
    expect(mine).toEqual({ cwd: real, readsSame: true, resolved: path.join(real, "src/a.js") });
    const theirs = await jscodeshiftCli(["-t", "./probe.js", "src"], root);
    const line = theirs.stdout.split("\n").find((l) => l.includes('"cwd"'))!;
    expect(JSON.parse(line.slice(line.indexOf("{")))).toEqual(mine);
  });

  it("workers get a smaller young generation (--max-semi-space-size=8), and --single-threaded when they fill the CPUs, unless the user chose them", async () => {
    const probe = `module.exports = (file, api) => { api.report(JSON.stringify(process.execArgv.filter((a) => /semi|single/.test(a)))); return null; };\n`;
    const root = await gitdir({
      "probe.js": probe,
      "src/a.js": "x;\n",
      "recipe.yaml": "version: 1\nsteps:\n  - tool: jscodeshift\n    with: { transform: ./probe.js, path: src }\n",
    });
    const machine = { cpus: availableParallelism(), totalMemory: totalmem(), freeMemory: freemem() };
    const single = workerSettings(machine).execArgv.includes("--single-threaded") ? ["--single-threaded"] : [];
    // The flags a worker runs with, for the settings the CLI derives from its own flags, NODE_OPTIONS
    // and TOLLGATE_JSCODESHIFT_WORKERS: the tool in this process, its workers real processes.
    const flagsFor = async (choices: Parameters<typeof workerSettings>[1]) => {
      const t = makeHost(root, {}, { jscodeshift: workerSettings(machine, choices) });
      const { details } = await t.call("jscodeshift", { transform: "./probe.js", path: "src" });
      return JSON.parse(details.reports[0].message) as string[];
    };
    expect(await flagsFor({})).toEqual(["--max-semi-space-size=8", ...single]);
    expect(await flagsFor({ execArgv: ["--max-semi-space-size=32"] })).toEqual(["--max-semi-space-size=32", ...single]);
    expect(await flagsFor({ nodeOptions: "--max-semi-space-size=2" })).toEqual(single);
    expect(await flagsFor({ execArgv: ["--no-single-threaded"] })).toEqual(["--no-single-threaded", "--max-semi-space-size=8"]);
    // Two workers on one or two CPUs fill them; on more, the helper threads have CPUs to use.
    expect(await flagsFor({ workers: "64" })).toEqual(["--max-semi-space-size=8", "--single-threaded"]);

    // The CLI reads those choices from its process: its Node flags, NODE_OPTIONS, TOLLGATE_JSCODESHIFT_WORKERS.
    const cliFlags = async (env: Record<string, string>, args: string[] = []) => {
      const r = await execa(process.execPath, [...args, path.join(REPO_ROOT, "bin/tollgate.js"), "run", "recipe.yaml", "--format", "json"], {
        cwd: root,
        env,
        reject: false,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(JSON.parse(r.stdout).steps[0].details.reports[0].message) as string[];
    };
    expect(await cliFlags({ TOLLGATE_JSCODESHIFT_WORKERS: "64" }, ["--max-semi-space-size=32"])).toEqual(["--max-semi-space-size=32", "--single-threaded"]);
    expect(await cliFlags({ NODE_OPTIONS: "--max-semi-space-size=2" })).toEqual(single);
  });

  it("workers: one per CPU within the memory budget, fewer for few files; TOLLGATE_JSCODESHIFT_WORKERS taken as is", () => {
    const GiB = 1024 ** 3;
    expect(machineWorkers({ cpus: 2, totalMemory: 8 * GiB, freeMemory: 4 * GiB })).toBe(2);
    expect(machineWorkers({ cpus: 16, totalMemory: 64 * GiB, freeMemory: 32 * GiB })).toBe(16);
    // Memory bounds it: half the free memory, at most a quarter of all, at 192 MiB a worker.
    expect(machineWorkers({ cpus: 16, totalMemory: 4 * GiB, freeMemory: 4 * GiB })).toBe(5);
    expect(machineWorkers({ cpus: 16, totalMemory: 64 * GiB, freeMemory: 1 * GiB })).toBe(2);
    expect(machineWorkers({ cpus: 4, totalMemory: 64 * GiB, freeMemory: 0 })).toBe(1);
    const two = workerSettings({ cpus: 2, totalMemory: 8 * GiB, freeMemory: 4 * GiB });
    expect(two).toEqual({ max: 2, explicit: false, execArgv: ["--max-semi-space-size=8", "--single-threaded"] });
    expect(workerSettings({ cpus: 8, totalMemory: 8 * GiB, freeMemory: 1 * GiB }, { execArgv: ["--inspect"] }).execArgv).toEqual([
      "--inspect",
      "--max-semi-space-size=8",
    ]);
    expect(workersFor(5, two)).toBe(1);
    expect(workersFor(25, two)).toBe(2);
    const chosen = workerSettings({ cpus: 2, totalMemory: 8 * GiB, freeMemory: 4 * GiB }, { workers: " 3 " });
    expect(chosen).toMatchObject({ max: 3, explicit: true });
    expect([workersFor(2, chosen), workersFor(100, chosen)]).toEqual([2, 3]);
    expect(workerSettings({ cpus: 2, totalMemory: GiB, freeMemory: GiB }, { workers: "many" })).toMatchObject({ explicit: false });
  });

  it("workerExecArgv: --single-threaded only when the workers fill the CPUs and the user did not choose it", () => {
    expect(workerExecArgv([], "", true)).toEqual(["--max-semi-space-size=8", "--single-threaded"]);
    expect(workerExecArgv([], "", false)).toEqual(["--max-semi-space-size=8"]);
    expect(workerExecArgv(["--single-threaded-gc"], "", true)).toEqual(["--single-threaded-gc", "--max-semi-space-size=8"]);
    expect(workerExecArgv(["--single_threaded"], "", true)).toEqual(["--single_threaded", "--max-semi-space-size=8"]);
  });

  it("fileTimeout: a transform that never returns (a busy loop, a promise that never settles) fails that file with the reason; its worker is replaced and the other files run", async () => {
    const hangs = `module.exports = (file) => {\n  if (file.source.includes("spin")) for (;;) {}\n  if (file.source.includes("wait")) return new Promise(() => {});\n  if (file.source.includes("die")) process.exit(7);\n  return file.source.replace("foo", "bar");\n};\n`;
    const files = {
      "t.cjs": hangs,
      "src/a.js": "foo;\n",
      "src/b.js": "foo; // spin\n",
      "src/c.js": "foo; // wait\n",
      "src/d.js": "foo; // die\n",
      "src/e.js": "foo(1);\n",
    };
    const root = await testdir(files);
    const t = makeHost(root);
    const started = Date.now();
    const { result, details, text } = await t.call("jscodeshift", { transform: "t.cjs", path: "src", fileTimeout: 600 });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect((result as { isError?: boolean }).isError).toBe(true);
    expect(details.changed).toEqual(["src/a.js", "src/e.js"]);
    const timedOut = "The transform did not finish within 600 ms (fileTimeout); its worker was stopped";
    expect(details.errors).toEqual([
      { path: "src/b.js", error: timedOut },
      { path: "src/c.js", error: timedOut },
      { path: "src/d.js", error: "jscodeshift worker exited (code 7)" },
    ]);
    expect(text).toContain(`- src/b.js: ${timedOut}`);
    expect(stagedText(root, t.actions[0]!.changes![1]!)).toBe("bar(1);\n");
    await expect(t.call("jscodeshift", { transform: "t.cjs", fileTimeout: 0 })).rejects.toThrow(
      "`fileTimeout` must be a positive whole number of milliseconds",
    );

    // The CLI: exit 3 (allowErrors: true makes it 0), and tollgate ends: its workers are gone.
    const dir = await gitdir({ ...files, "recipe.yaml": recipe(`  - tool: jscodeshift\n    with: { transform: t.cjs, path: src, fileTimeout: 600 }\n`) });
    const run = await tollgate(["run", "recipe.yaml", "--dry-run", "--report", "r.json"], { cwd: dir });
    expect(run.code).toBe(3);
    const report = JSON.parse(await readFile(path.join(dir, "r.json"), "utf8"));
    expect(report.steps[0].details.errors.map((e: { path: string }) => e.path)).toEqual(["src/b.js", "src/c.js", "src/d.js"]);
    expect(report.steps[0].details.changed).toEqual(["src/a.js", "src/e.js"]);
  }, 60_000);

  it("Babel's cache: a cached transform runs without Babel; a module compiled afresh while one Babel needs is half loaded still works", async () => {
    // `debug` as @babel/core requires it: a transform requiring it makes the worker compile it
    // (jscodeshift's hook compiles node_modules too) while it is being loaded.
    const debugPath = createRequire(createRequire(path.join(REPO_ROOT, "node_modules/jscodeshift/src/Worker.js")).resolve("@babel/core")).resolve("debug");
    const transform = `module.exports = (file) => { if (file.source.includes("debug")) require(${JSON.stringify(debugPath)})("t"); return file.source.replace("foo", "bar"); };\n`;
    const root = await testdir({ "t.js": transform, "a.js": "foo;\n", "b.js": "foo; // debug\n" });
    const cache = await testdir();
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    try {
      const t = makeHost(root);
      // A miss: the transform is compiled (and cached).
      expect((await t.call("jscodeshift", { transform: "t.js", path: "a.js" })).details.changed).toEqual(["a.js"]);
      expect((await readdir(path.join(cache, "tollgate/jscodeshift-babel"))).length).toBeGreaterThan(0);
      // A new worker finds the transform cached, so it has not loaded Babel when `debug` must be compiled.
      const { details } = await t.call("jscodeshift", { transform: "t.js", path: "b.js" });
      expect(details.errors).toEqual([]);
      expect(details.changed).toEqual(["b.js"]);
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
  });

  it("a step over a few files uses one worker; over many, up to what the machine holds (the CLI's world; a library caller that says nothing gets one)", async () => {
    const many: Record<string, string> = { "t.cjs": RENAME_CJS };
    for (let i = 0; i < 25; i++) many[`src/f${i}.js`] = "foo;\n";
    const root = await testdir(many);
    const t = makeHost(root);
    const few = await t.call("jscodeshift", { transform: "t.cjs", path: "src/f1.js" });
    expect(few.details.workers).toBe(1);
    const lots = await t.call("jscodeshift", { transform: "t.cjs", path: "src" });
    expect(lots.details.workers).toBe(1);
    expect(lots.details.changed).toHaveLength(25);
    // The CLI starts them while the recipe is checked (the check counts the files).
    const dir = await gitdir({ ...many, "recipe.yaml": recipe(`  - tool: jscodeshift\n    with: { transform: t.cjs, path: src }\n`) });
    const run = await tollgate(["run", "recipe.yaml", "--dry-run", "--report", "r.json"], { cwd: dir });
    expect(run.stderr).not.toContain("internal error");
    expect(run.code).toBe(0);
    const d = JSON.parse(await readFile(path.join(dir, "r.json"), "utf8")).steps[0].details;
    const machine = { cpus: availableParallelism(), totalMemory: totalmem(), freeMemory: freemem() };
    expect(d.workers).toBe(workersFor(25, workerSettings(machine)));
    expect(d.workers).toBe(Math.min(2, availableParallelism()));
    expect(d.changed).toHaveLength(25);
  }, 60_000);

  it("tollgate --version and a recipe without jscodeshift never load jscodeshift", async () => {
    const dir = await testdir({ "recipe.yaml": recipe(`  - tool: write\n    with: { path: a.txt, content: "x" }\n`) });
    const probe = `const M = require("node:module"); const orig = M._load; M._load = function (req, ...rest) { if (/jscodeshift|@babel[\\\\/]register/.test(req)) { process.stderr.write("LOADED " + req + "\\n"); } return orig.call(this, req, ...rest); };`;
    await writeFile(path.join(dir, "probe.cjs"), probe);
    const run = (args: string[]) =>
      execa(process.execPath, ["--require", path.join(dir, "probe.cjs"), path.join(REPO_ROOT, "bin/tollgate.js"), ...args], {
        cwd: dir,
        reject: false,
        env: { CI: "true" },
      });
    for (const args of [["--version"], ["run", "recipe.yaml", "--dry-run"]]) {
      const r = await run(args);
      expect(r.exitCode).toBe(0);
      expect(r.stderr).not.toContain("LOADED");
    }
    // The probe does see a recipe that uses the tool load it (in the worker process, which inherits --require).
    await writeFile(path.join(dir, "t.cjs"), RENAME_CJS);
    await writeFile(path.join(dir, "a.js"), "foo;\n");
    await writeFile(path.join(dir, "uses.yaml"), recipe(`  - tool: jscodeshift\n    with: { transform: t.cjs, path: a.js }\n`));
    const uses = await run(["run", "uses.yaml", "--dry-run"]);
    expect(uses.exitCode).toBe(0);
    expect(uses.stderr).toContain("LOADED");
  });
});
