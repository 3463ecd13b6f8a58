// SIGKILL during an apply, then during `recover`, at every mutating file operation: a child
// process (the built workspace module in dist/) kills itself with SIGKILL just before, just
// after, or half-way through (a temp file half-written, or created empty) the N-th
// writeNew/rename/unlink/mkdir/rmdir. Whatever was killed, the next `recover` ends in the tree
// as it was before the apply, with no temp file of tollgate's left anywhere, journal included.
//
// The default sweep kills the apply at a few points and recover at every point after each;
// TOLLGATE_CRASH_SWEEP=full kills the apply at every point and recover at every point, once
// and twice in a row.
import { spawn } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recover } from "../../src/workspace/recover.js";
import { REPO, cleanupTempDirs, snapshotTree, tempDir, writeTree, type TreeSpec } from "../workspace/helpers.js";

afterAll(cleanupTempDirs);

const FULL = process.env.TOLLGATE_CRASH_SWEEP === "full";
const BOM = "\uFEFF";
const TREE: TreeSpec = {
  "src/a.ts": "export const a = 1;\nexport const b = 2;\n",
  "src/b.ts": { content: `${BOM}line one\r\nline two\r\n`, mode: 0o755 },
  "src/k/f43.ts": "x".repeat(5000),
  "lib/old.txt": "to be deleted\n",
  "ro.txt": { content: "read only\n", mode: 0o444 },
};
const EDITS = [
  { path: "src/a.ts", content: "export const a = 10;\nexport const b = 2;\n" },
  { path: "src/b.ts", content: `${BOM}line one\r\nline 2\r\n` },
  { path: "src/k/f43.ts", content: "y".repeat(6000) },
  { path: "lib/old.txt", content: null },
  { path: "new/deep/c.ts", content: "created\n" },
  { path: "ro.txt", content: "still read only\n" },
];

type When = "before" | "after" | "partial";
interface Kill {
  at: number;
  when: When;
}

/**
 * The child: `apply` stages and applies EDITS, `recover` recovers; with `kill`, the process
 * SIGKILLs itself at that mutating operation. Prints `DONE <ops>` when it was not killed.
 */
const CHILD = `
const [{ Workspace, createNodeWorkspaceFs, recover }] = await Promise.all([import(${JSON.stringify(path.join(REPO, "dist/workspace/index.js"))})]);
const { mode, root, kill, edits } = JSON.parse(process.env.CRASH_CASE);
const MUTATING = ["writeNew", "rename", "unlink", "mkdir", "rmdir"];
let n = 0;
const die = () => process.kill(process.pid, "SIGKILL");
const fs = Object.fromEntries(Object.entries(createNodeWorkspaceFs()).map(([name, fn]) => [name, async (...args) => {
  if (!MUTATING.includes(name) || !kill || ++n !== kill.at) return fn(...args);
  if (kill.when === "before") die();
  if (kill.when === "partial" && name === "writeNew") {
    const data = args[1];
    const bytes = typeof data === "string" || data instanceof Uint8Array ? Buffer.from(data) : Buffer.from([...data].join(""));
    await fn(args[0], bytes.subarray(0, Math.floor(bytes.length / 2)), args[2]);
    die();
  }
  if (kill.when === "partial") die();
  try {
    await fn(...args);
  } finally {
    die();
  }
}]));
if (mode === "apply") {
  const ws = new Workspace({ root, fs });
  await ws.apply(await ws.stage(edits));
} else {
  await recover(root, { fs });
}
if (!kill) n = -1;
console.log("DONE " + n);
`;

interface ChildEnd {
  killed: boolean;
  stdout: string;
  stderr: string;
}

function child(mode: "apply" | "recover", root: string, state: string, kill?: Kill): Promise<ChildEnd> {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
    env: { ...process.env, XDG_STATE_HOME: state, CRASH_CASE: JSON.stringify({ mode, root, kill, edits: EDITS }) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => proc.on("close", (_code, signal) => resolve({ killed: signal === "SIGKILL", stdout, stderr })));
}

/** Every entry under `dir` (files with bytes and mode, directories), to put a crashed state back. */
interface Entry {
  rel: string;
  mode: number;
  bytes?: Buffer;
}
function capture(dir: string): Entry[] {
  const out: Entry[] = [];
  const walk = (abs: string, rel: string) => {
    for (const name of readdirSync(abs).sort()) {
      const a = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(a);
      if (st.isDirectory()) {
        out.push({ rel: r, mode: st.mode & 0o7777 });
        walk(a, r);
      } else out.push({ rel: r, mode: st.mode & 0o7777, bytes: readFileSync(a) });
    }
  };
  walk(dir, "");
  return out;
}
function putBack(dir: string, entries: readonly Entry[]): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const e of entries) {
    const abs = path.join(dir, e.rel);
    if (e.bytes) {
      writeFileSync(abs, e.bytes);
      chmodSync(abs, e.mode);
    } else mkdirSync(abs, { mode: e.mode });
  }
}

/** Names of tollgate temp files anywhere under root, `.tollgate/` included. */
function tempsIn(root: string): string[] {
  return capture(root)
    .map((e) => e.rel)
    .filter((rel) => /\.tollgate-[^/]*\.tmp$/.test(rel));
}

/** Runs `fn` with the journal records kept under `state` (as the children keep them). */
async function inStateDir<T>(state: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = state;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = saved;
  }
}

interface Tally {
  applyKills: number;
  recoverKills: number;
  recovers: number;
  restored: number;
  nothingToDo: number;
}

/** Kills recover at every operation (then, in the full sweep, once more), then lets one finish. */
async function sweepRecover(root: string, state: string, before: Record<string, string>, label: string, defaultWhen: When, tally: Tally): Promise<void> {
  const crashed = { tree: capture(root), state: capture(state) };
  const whens: When[] = FULL ? ["before", "after", "partial"] : [defaultWhen];
  for (const when of whens) {
    for (let at = 1; ; at++) {
      putBack(root, crashed.tree);
      putBack(state, crashed.state);
      const first = await child("recover", root, state, { at, when });
      tally.recovers++;
      if (!first.killed) {
        expect(first.stdout, `${label}; recover ${when} op ${at}: ${first.stderr}`).toMatch(/^DONE/);
        expect(snapshotTree(root), label).toEqual(before);
        expect(tempsIn(root), label).toEqual([]);
        break;
      }
      tally.recoverKills++;
      if (FULL) {
        const second = await child("recover", root, state, { at: Math.max(1, at - 1), when });
        tally.recovers++;
        if (second.killed) tally.recoverKills++;
      }
      // The recover that finishes runs here (the same module, from src/), with the same state directory.
      const where = `${label}; recover killed ${when} op ${at}`;
      await inStateDir(state, () => recover(root));
      tally.recovers++;
      expect(snapshotTree(root), where).toEqual(before);
      expect(tempsIn(root), where).toEqual([]);
      tally.restored++;
    }
  }
}

const figures: Tally = { applyKills: 0, recoverKills: 0, recovers: 0, restored: 0, nothingToDo: 0 };

describe("SIGKILL anywhere in an apply and in the recover after it", () => {
  // Mutating operations of the apply: 2 mkdir, the journal's writeNew + rename, a writeNew and
  // a rename per rewritten file, an unlink for the delete, the journal's unlink.
  const APPLY_OPS = 16;
  // By default: the journal just in place, nothing written yet (recover killed after its
  // operations); a user file's temp half-written (recover's own temp files half-written); the
  // apply killed with most files written (recover killed before its operations).
  const applyKills: Array<Kill & { recoverWhen: When }> = FULL
    ? Array.from({ length: APPLY_OPS }, (_, i) => (["before", "after", "partial"] as const).map((when) => ({ at: i + 1, when, recoverWhen: when }))).flat()
    : [
        { at: 4, when: "after", recoverWhen: "after" },
        { at: 5, when: "partial", recoverWhen: "partial" },
        { at: 13, when: "before", recoverWhen: "before" },
      ];
  for (const kill of applyKills) {
    it(`apply killed ${kill.when} its operation ${kill.at}; recover killed at each of its own`, { timeout: FULL ? 600_000 : 60_000 }, async () => {
      const root = tempDir("tollgate-crash-");
      const state = tempDir("tollgate-crash-state-");
      writeTree(root, TREE);
      const before = snapshotTree(root);
      const applied = await child("apply", root, state, kill);
      const label = `apply killed ${kill.when} op ${kill.at}`;
      if (!applied.killed) {
        // The apply ended before that operation: nothing to recover, the apply is whole.
        expect(applied.stdout, applied.stderr).toMatch(/^DONE/);
        return;
      }
      figures.applyKills++;
      await sweepRecover(root, state, before, label, kill.recoverWhen, figures);
    });
  }

  it("the apply takes the operations the sweep assumes, and a recover after a whole apply finds nothing", async () => {
    const root = tempDir("tollgate-crash-");
    const state = tempDir("tollgate-crash-state-");
    writeTree(root, TREE);
    const done = await child("apply", root, state, { at: APPLY_OPS + 1, when: "before" });
    expect(done.killed, done.stderr).toBe(false);
    expect(done.stdout.trim()).toBe(`DONE ${APPLY_OPS}`);
    expect(tempsIn(root)).toEqual([]);
    const rec = await child("recover", root, state);
    expect(rec.stdout).toMatch(/^DONE/);
    figures.nothingToDo++;
  });

  it("the CLI's recover removes the temp files a killed apply left, the half-written one included, and says so", async () => {
    const { execa } = await import("execa");
    const root = tempDir("tollgate-crash-");
    const state = tempDir("tollgate-crash-state-");
    writeTree(root, TREE);
    const before = snapshotTree(root);
    // Killed half-way through writing src/k/f43.ts's temp file, after two others were written.
    const applied = await child("apply", root, state, { at: 5, when: "partial" });
    expect(applied.killed).toBe(true);
    // The apply writes several files at once, so which temp files are left depends on the order
    // the writes reached the disk: each is one of the journaled files' own names.
    const left = tempsIn(root).map((t) => t.replace(/tollgate-[0-9a-f]{16}/, "tollgate-T"));
    expect(left.length).toBeGreaterThan(0);
    for (const t of left) expect(["src/.a.ts.tollgate-T.tmp", "src/.b.ts.tollgate-T.tmp", "src/k/.f43.ts.tollgate-T.tmp"]).toContain(t);
    const r = await execa(process.execPath, [path.join(REPO, "bin/tollgate.js"), "recover"], {
      cwd: root,
      env: { ...process.env, XDG_STATE_HOME: state },
      reject: false,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`restored \\d+ files from the apply interrupted at .*; removed ${left.length} temp files? of interrupted writes`));
    expect(snapshotTree(root)).toEqual(before);
    expect(tempsIn(root)).toEqual([]);
  });

  it("reports the figures", () => {
    // Printed for docs/reliability.md.
    console.log(`recover-kill figures: ${JSON.stringify({ sweep: FULL ? "full" : "default", ...figures })}`);
    expect(figures.recoverKills).toBeGreaterThan(FULL ? 1000 : 50);
  });
});

describe("through the CLI: a killed run, a killed recover, then recover", () => {
  const FILES = 120;
  const TOOL = `
export default (pi) => ({
  name: "rewrite_all", label: "Rewrite all", description: "rewrites every file under src/", parameters: pi.typebox.Type.Object({}),
  async execute() {
    const changes = [];
    for (let i = 0; i < ${FILES}; i++) changes.push({ path: "src/k/f" + i + ".ts", content: "export const v" + i + " = 2;\\n" + "/* changed */\\n".repeat(8000) });
    await pi.files.stage({ label: "Rewrite ${FILES} files", changes });
    return { content: [{ type: "text", text: "staged" }] };
  },
});
`;

  it(
    `a ${FILES}-file apply killed once its journal is there, recover killed while it restores: the next recover leaves git status clean`,
    { timeout: 180_000 },
    async () => {
      const { execa } = await import("execa");
      const { existsSync } = await import("node:fs");
      const root = tempDir("tollgate-crash-cli-");
      const state = tempDir("tollgate-crash-state-");
      const spec: TreeSpec = { "tools/t.mjs": TOOL, "r.yaml": "version: 1\ntools: [./tools/t.mjs]\nsteps:\n  - tool: rewrite_all\n" };
      for (let i = 0; i < FILES; i++) spec[`src/k/f${i}.ts`] = `export const v${i} = 1;\n${"/* original */\n".repeat(8000)}`;
      writeTree(root, spec);
      const git = (...args: string[]) => execa("git", args, { cwd: root });
      await git("init", "-q", "-b", "main");
      await git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init");
      await git("add", "-A");
      await git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "tree");
      const before = snapshotTree(root);
      const env = { ...process.env, XDG_STATE_HOME: state, CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "" };
      const cli = path.join(REPO, "bin/tollgate.js");
      const journal = path.join(root, ".tollgate/journal.json");

      const run = spawn(process.execPath, [cli, "run", "r.yaml", "--mode", "auto-apply"], { cwd: root, env, stdio: "ignore" });
      const ran = new Promise<NodeJS.Signals | null>((resolve) => run.on("close", (_c, signal) => resolve(signal)));
      while (!existsSync(journal) && run.exitCode === null) await new Promise((r) => setTimeout(r, 1));
      run.kill("SIGKILL");
      expect(await ran).toBe("SIGKILL");
      expect(existsSync(journal)).toBe(true);

      // recover is killed a little later each time (from the moment it says what it will restore,
      // before it writes), until one gets to finish: kills land all through the restore.
      let kills = 0;
      let leftTemps = 0;
      for (let delay = 0; ; delay += 25) {
        const rec = spawn(process.execPath, [cli, "recover"], { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
        const recovered = new Promise<NodeJS.Signals | null>((resolve) => rec.on("close", (_c, signal) => resolve(signal)));
        let said = "";
        rec.stderr.on("data", (d) => {
          if (said.includes("restoring:")) return;
          said += d;
          if (said.includes("restoring:")) setTimeout(() => rec.kill("SIGKILL"), delay);
        });
        if ((await recovered) !== "SIGKILL") break;
        kills++;
        if (tempsIn(root).length > 0) leftTemps++;
        expect(said).toMatch(/left 120 files to put back/);
      }
      expect(kills).toBeGreaterThan(0);
      console.log(`CLI recover: killed ${kills} time(s), ${leftTemps} of them leaving a temp file behind`);

      const again = await execa(process.execPath, [cli, "recover"], { cwd: root, env, reject: false });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(snapshotTree(root)).toEqual(before);
      expect(tempsIn(root)).toEqual([]);
      expect((await git("status", "--porcelain", "--untracked-files=all")).stdout).toBe("");
    },
  );
});
