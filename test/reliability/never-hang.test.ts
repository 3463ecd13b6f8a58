import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/testdir.js";
import { cleanupTempDirs, tempDir, waitFor } from "../workspace/helpers.js";

// Never hang: FIFOs and devices in the tree, custom code that leaves handles or never
// settles, late actions after a timeout, exec children that outlive their command. Every case
// runs the real CLI as a child process with a hard timeout far above what the case needs.

afterAll(cleanupTempDirs);

const isRoot = process.getuid?.() === 0;
const AUTO = "version: 1\ndefault: auto-apply\n";

function project(files: Record<string, string>): string {
  const dir = tempDir("tollgate-hang-");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

async function cli(args: string[], cwd: string, env: Record<string, string> = {}, timeout = 30_000) {
  const started = Date.now();
  const r = await execa(process.execPath, [CLI, ...args], {
    cwd,
    reject: false,
    stdin: "ignore",
    env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "", ...env },
    timeout,
  });
  const out = { code: r.exitCode, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started, timedOut: r.timedOut };
  expect(out.timedOut, out.stderr).toBe(false);
  expect(out.stderr).not.toMatch(/\n\s+at |internal error/);
  return out;
}

const tool = (name: string, body: string, extra = "") => `${extra}
export default (pi) => ({
  name: "${name}", label: "${name}", description: "test tool",
  parameters: pi.typebox.Type.Object({}),
  async execute() { ${body} },
});
`;

describe("non-regular files are never read", () => {
  it("write and edit on a FIFO in the tree are refused at once (exit 3), nothing written", async () => {
    const dir = project({
      "w.yaml": "version: 1\nsteps:\n  - tool: write\n    with: { path: pipe, content: x }\n",
      "e.yaml": "version: 1\nsteps:\n  - tool: edit\n    with: { path: pipe, oldText: a, newText: b }\n",
      "p.yaml": AUTO,
    });
    await execa("mkfifo", [path.join(dir, "pipe")]);
    for (const recipe of ["w.yaml", "e.yaml"]) {
      const r = await cli(["run", recipe, "--policy", "p.yaml"], dir);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/Not a regular file: pipe \(not a regular file \(a FIFO\)\)/);
    }
  });

  it("an ast_scan rule file that is a FIFO is refused at once with its name (exit 2), in run and validate", async () => {
    const dir = project({ "a.ts": "foo(1);\n", "r.yaml": "version: 1\nsteps:\n  - tool: ast_scan\n    with: { rules: [rule.yml] }\n" });
    await execa("mkfifo", [path.join(dir, "rule.yml")]);
    for (const cmd of ["run", "validate"]) {
      const r = await cli([cmd, "r.yaml"], dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/rule\.yml.*a FIFO, not a regular file/);
    }
  });

  it("a FIFO .gitignore does not hang discovery: without git it is skipped and listed; in a git repo git's hang is cut short", async () => {
    const dir = project({
      "a.ts": "foo(1);\n",
      "sub/b.ts": "foo(2);\n",
      "r.yaml": 'version: 1\nsteps:\n  - tool: ast_grep\n    with: { pat: ["foo($A)"], lang: ts }\n',
    });
    await execa("mkfifo", [path.join(dir, "sub/.gitignore")]);
    const walk = await cli(["run", "r.yaml", "--format", "json"], dir);
    expect(walk.code, walk.stderr).toBe(0);
    const step = JSON.parse(walk.stdout).steps[0];
    expect(step.resultText).toMatch(/2 matches|foo\(2\)/);
    expect(step.resultText).toMatch(/sub\/\.gitignore: unreadable \(not a regular file \(a FIFO\): its ignore rules were not read\)/);
    await execa("git", ["init", "-q"], { cwd: dir });
    const git = await cli(["run", "r.yaml", "--format", "json"], dir, { TOLLGATE_GIT_TIMEOUT_MS: "1500" });
    expect(git.code, git.stderr).toBe(0);
    expect(JSON.parse(git.stdout).steps[0].resultText).toMatch(/sub\/\.gitignore: unreadable/);
  });

  it.skipIf(!isRoot)("a character device (a /dev/zero node) in the tree is skipped and listed, and refused by edit (needs root for mknod)", async () => {
    const dir = project({
      "a.ts": "foo(1);\n",
      "r.yaml": 'version: 1\nsteps:\n  - tool: ast_grep\n    with: { pat: ["foo($A)"], lang: ts }\n',
      "e.yaml": "version: 1\nsteps:\n  - tool: edit\n    with: { path: zero.ts, oldText: a, newText: b }\n",
    });
    await execa("mknod", [path.join(dir, "zero.ts"), "c", "1", "5"]);
    const r = await cli(["run", "r.yaml", "--format", "json"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).steps[0].resultText).toMatch(/zero\.ts: unreadable \(a character device, not a regular file: never read\)/);
    const e = await cli(["run", "e.yaml"], dir);
    expect(e.code).toBe(3);
    expect(e.stderr).toMatch(/Not a regular file: zero\.ts \(not a regular file \(a character device\)\)/);
  });

  it("a file name that is not valid UTF-8 is skipped and listed, with and without git", async () => {
    const dir = project({ "a.ts": "foo(1);\n", "r.yaml": 'version: 1\nsteps:\n  - tool: ast_grep\n    with: { pat: ["foo($A)"], lang: ts }\n' });
    writeFileSync(Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.from([0xe9]), Buffer.from(".ts")]), "foo(2);\n");
    for (const withGit of [false, true]) {
      if (withGit) await execa("git", ["init", "-q"], { cwd: dir });
      const r = await cli(["run", "r.yaml", "--format", "json"], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).steps[0].resultText, `git: ${withGit}`).toMatch(/caf\uFFFD\.ts: unreadable \(its name is not valid UTF-8/);
    }
  });
});

describe("files named on the command line may be pipes", () => {
  it("--approvals <(...) (a pipe from bash process substitution) is read once and honoured", async () => {
    const dir = project({
      "a.txt": "original",
      "r.yaml": 'version: 1\nsteps:\n  - id: w\n    tool: write\n    with: { path: a.txt, content: "changed" }\n',
      "p.yaml": "version: 1\ndefault: require-approval\n",
    });
    const plan = await cli(["plan", "r.yaml", "--policy", "p.yaml", "--format", "json"], dir);
    const fingerprint = JSON.parse(plan.stdout).outcomes[0].fingerprint as string;
    const r = await execa("bash", ["-c", `"${process.execPath}" "${CLI}" run r.yaml --policy p.yaml --approvals <(printf -- '- ${fingerprint}\\n')`], {
      cwd: dir,
      reject: false,
      env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "" },
      timeout: 30_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("changed");
  });
});

describe("a run ends when its work ends", () => {
  it("the CLI exits with its code and report although a custom tool left a timer running", async () => {
    const dir = project({
      "tools/t.mjs": tool("t", "setInterval(() => {}, 1000); return { content: [{ type: 'text', text: 'ok' }] };"),
      "r.yaml": "version: 1\ntools: [./tools/t.mjs]\nsteps:\n  - tool: t\n",
    });
    const r = await cli(["run", "r.yaml", "--report", "rep.json"], dir, {}, 20_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.ms).toBeLessThan(15_000);
    expect(JSON.parse(readFileSync(path.join(dir, "rep.json"), "utf8")).exitCode).toBe(0);
  });

  it("a step whose promise can never settle (no timeout) is a step error with a report, not Node's silent exit 13", async () => {
    const dir = project({
      "tools/t.mjs": tool("t", "return new Promise(() => {});"),
      "r.yaml": "version: 1\ntools: [./tools/t.mjs]\nsteps:\n  - tool: t\n  - tool: write\n    with: { path: b.txt, content: after }\n",
    });
    const r = await cli(["run", "r.yaml", "--report", "rep.json", "--mode", "auto-apply"], dir);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/Step 0-t can never finish/);
    const rep = JSON.parse(readFileSync(path.join(dir, "rep.json"), "utf8"));
    expect(rep.steps.map((s: { status: string }) => s.status)).toEqual(["error", "ok"]);
    expect(readFileSync(path.join(dir, "b.txt"), "utf8")).toBe("after"); // the run went on
  });

  it("a factory that never settles is a load error (exit 2), not a run that never starts", async () => {
    const dir = project({
      "tools/t.mjs": "export default () => new Promise(() => {});\n",
      "r.yaml": "version: 1\ntools: [./tools/t.mjs]\nsteps:\n  - tool: t\n",
    });
    const r = await cli(["run", "r.yaml"], dir);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/Failed to load tool: the factory can never settle/);
  });

  it("an opaque apply that never settles fails; one that keeps a timer alive is bounded by applyTimeout", async () => {
    const push = (apply: string) => tool("t", `pi.pushPendingAction({ label: "Opaque", apply: async () => { ${apply} } }); return { content: [] };`);
    const dir = project({
      "tools/t.mjs": push("return new Promise(() => {});"),
      "tools/u.mjs": push("setInterval(() => {}, 1000); return new Promise(() => {});").replace('"t"', '"u"').replace('"t"', '"u"'),
      "r.yaml": "version: 1\ntools: [./tools/t.mjs]\nsteps:\n  - tool: t\n",
      "s.yaml": "version: 1\napplyTimeout: 700\ntools: [./tools/u.mjs]\nsteps:\n  - tool: u\n",
      "p.yaml": AUTO,
    });
    const stuck = await cli(["run", "r.yaml", "--policy", "p.yaml"], dir);
    expect(stuck.code, stuck.stderr).toBe(3);
    expect(stuck.stderr).toMatch(/The apply of 0-t#1 can never finish/);
    const slow = await cli(["run", "s.yaml", "--policy", "p.yaml", "--format", "json"], dir);
    expect(slow.code, slow.stderr).toBe(3);
    expect(JSON.parse(slow.stdout).outcomes[0]).toMatchObject({ outcome: "failed", error: "The apply of 0-u#1 timed out after 700 ms (recipe applyTimeout)" });
  });

  it("what a step does after its timeout is refused: a late pi.files.stage is not attributed to the next step nor applied", async () => {
    const late = tool(
      "late",
      "setTimeout(() => pi.files.stage({ label: 'LATE', changes: [{ path: 'c.txt', content: 'LATE' }] }).then(() => pi.logger.info('late stage accepted'), (e) => pi.logger.info('late: ' + e.message)), 400); return new Promise((r) => setTimeout(r, 5000));",
    );
    const slow = tool("slow", "await new Promise((r) => setTimeout(r, 1500)); return { content: [{ type: 'text', text: 'slow done' }] };").replace(
      /"late"/g,
      '"slow"',
    );
    const dir = project({
      "c.txt": "original",
      "tools/late.mjs": late,
      "tools/slow.mjs": slow.replace(/name: "late"/, 'name: "slow"'),
      "p.yaml": AUTO,
      "r.yaml": "version: 1\ntools: [./tools/late.mjs, ./tools/slow.mjs]\nsteps:\n  - tool: late\n    timeout: 200\n  - tool: slow\n",
    });
    const r = await cli(["run", "r.yaml", "--policy", "p.yaml", "--format", "json"], dir);
    expect(r.code, r.stderr).toBe(3); // the timeout is a step error
    const rep = JSON.parse(r.stdout);
    expect(rep.outcomes).toEqual([]);
    expect(rep.steps[0].resultText).toMatch(/timed out after 200 ms/);
    expect(r.stderr).toMatch(/late: Refused: step 0-late is over \(Step 0-late timed out after 200 ms\)/);
    expect(readFileSync(path.join(dir, "c.txt"), "utf8")).toBe("original");
  });

  it("a second SIGTERM ends the process even while a custom tool blocks the main thread (a synchronous read of a FIFO)", async () => {
    const dir = project({
      "tools/t.mjs": tool(
        "t",
        "writeFileSync('started', 'x'); readFileSync('pipe'); return { content: [] };",
        'import { readFileSync, writeFileSync } from "node:fs";',
      ),
      "r.yaml": "version: 1\ntools: [./tools/t.mjs]\nsteps:\n  - tool: t\n",
    });
    await execa("mkfifo", [path.join(dir, "pipe")]);
    const child = execa(process.execPath, [CLI, "run", "r.yaml"], { cwd: dir, reject: false, stdin: "ignore", env: { CI: "true" }, timeout: 30_000 });
    await waitFor(() => existsSync(path.join(dir, "started")), 15_000, "tool started");
    await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    child.kill("SIGTERM");
    const r = await child;
    expect(r.timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.signal ?? r.exitCode).toBeTruthy();
  });
});

describe("exec never outlives its bounds", () => {
  it("the exec timeout kills the process group: sh -c 'sleep 25 & echo started' ends at the timeout", async () => {
    const dir = project({
      "r.yaml": 'version: 1\nsteps:\n  - tool: exec\n    with: { command: "sleep 25 & echo started; sleep 25", shell: true, timeout: 800 }\n',
    });
    const r = await cli(["run", "r.yaml"], dir);
    expect(r.code).toBe(3);
    expect(r.ms).toBeLessThan(10_000);
    expect(r.stderr).toMatch(/failed: killed \(timeout 800 ms\)/);
    // a command that exits at once is done then, whatever it left running in the background
    writeFileSync(path.join(dir, "q.yaml"), 'version: 1\nsteps:\n  - tool: exec\n    with: { command: "sleep 25 & echo started", shell: true }\n');
    const quick = await cli(["run", "q.yaml", "--format", "json"], dir);
    expect(quick.code, quick.stderr).toBe(0);
    expect(quick.ms).toBeLessThan(10_000);
    expect(JSON.parse(quick.stdout).steps[0].resultText).toMatch(/started\nexit code 0/);
  });

  it("a failed exec step says why on its one stderr line: command not found (ENOENT), exit 127", async () => {
    const dir = project({ "r.yaml": "version: 1\nsteps:\n  - tool: exec\n    with: { command: no-such-cmd-xyz, args: [a] }\n" });
    const r = await cli(["run", "r.yaml"], dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("$ no-such-cmd-xyz a failed: exit code 127 (command not found: no-such-cmd-xyz (ENOENT))");
  });
});

describe("work per input is bounded", () => {
  it("a dry-run write changing every line of a 12,000-line file diffs in near-linear time; the patch applies (was > 30 s)", async () => {
    const n = 12_000;
    const before = Array.from({ length: n }, (_, i) => `const value${i} = compute(${i}, "some text here");`).join("\n") + "\n";
    const after = Array.from({ length: n }, (_, i) => `let other${i} = different(${i * 7}, 'more words');`).join("\n");
    const dir = project({
      "big.ts": before,
      "after.txt": after,
      "r.yaml": 'version: 1\nsteps:\n  - tool: write\n    with: { path: big.ts, content: "${{ vars.after }}" }\n',
    });
    writeFileSync(path.join(dir, "r.yaml"), `version: 1\nsteps:\n  - tool: write\n    with: { path: big.ts, content: ${JSON.stringify(after)} }\n`);
    const r = await cli(["run", "r.yaml", "--dry-run", "--patch", "p.patch", "--report", "rep.json"], dir, {}, 60_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.ms).toBeLessThan(25_000);
    const rep = JSON.parse(readFileSync(path.join(dir, "rep.json"), "utf8"));
    expect(rep.outcomes[0].files[0]).toMatchObject({ additions: n, deletions: n });
    await execa("git", ["apply", "p.patch"], { cwd: dir });
    expect(readFileSync(path.join(dir, "big.ts"), "utf8")).toBe(after);
  });

  it("a recipe glob with exponential backtracking is refused at once, also under allow: { exec: false, customTools: false }", async () => {
    const dir = project({
      [`${"a".repeat(60)}.ts`]: "x\n",
      "r.yaml": 'version: 1\nsteps:\n  - tool: ast_grep\n    with: { pat: [x], lang: ts, glob: "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b" }\n',
      "p.yaml": "version: 1\nallow: { exec: false, customTools: false }\n",
      "bad-policy.yaml": 'version: 1\nrules:\n  - match: { paths: ["*a*a*a*a*a*a*a*a*b"] }\n    decision: auto-apply\n',
    });
    const r = await cli(["run", "r.yaml", "--policy", "p.yaml"], dir);
    expect(r.code, r.stderr).toBe(3);
    expect(r.ms).toBeLessThan(10_000);
    expect(r.stderr).toMatch(/is refused: too many wildcards: 15 "\*" in one path segment/);
    const p = await cli(["run", "r.yaml", "--policy", "bad-policy.yaml"], dir);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/bad-policy\.yaml:\d+:\d+.*too many wildcards/);
  });
});
