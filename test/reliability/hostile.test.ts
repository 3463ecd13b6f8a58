import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { tollgateInProcess, type CliResult } from "../helpers/inprocess.js";
import { CLI } from "../helpers/testdir.js";
import { cleanupTempDirs, snapshotTree, tempDir } from "../workspace/helpers.js";
import { HOSTILE, type HostileCase } from "./hostile-cases.js";

afterAll(cleanupTempDirs);

/**
 * Cases refused during validation (exit 2, nothing runs, no custom module executes) run
 * through the built CLI's `main()` in this process: a child process costs ~0.5-1 s of CPU
 * each, which on a loaded machine made this table take ~100 s. Everything that runs tools,
 * loads custom modules or waits goes through a real child process, a few at a time.
 */
const inProcess = (c: HostileCase) => c.code === 2 && c.area !== "custom-tool";

const SPAWN_CONCURRENCY = 3;
let running = 0;
const waiting: Array<() => void> = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= SPAWN_CONCURRENCY) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

async function spawnCli(args: string[], cwd: string, tmp: string, timeout: number): Promise<CliResult & { timedOut: boolean }> {
  const r = await limited(() =>
    execa(process.execPath, [CLI, ...args], {
      cwd,
      reject: false,
      stdin: "ignore",
      env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "", TMPDIR: tmp },
      timeout,
      stripFinalNewline: false,
    }),
  );
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut };
}

async function prepare(c: HostileCase): Promise<{ dir: string; outside: string }> {
  const dir = tempDir("tollgate-hostile-");
  const outside = tempDir("tollgate-hostile-out-");
  writeFileSync(path.join(dir, "a.txt"), "original\n");
  for (const [name, content] of Object.entries(c.files ?? {})) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  await c.setup?.(dir);
  return { dir, outside };
}

async function check(c: HostileCase, via: "in-process" | "child process"): Promise<void> {
  const { dir, outside } = await prepare(c);
  const before = snapshotTree(dir);
  const outsideBefore = snapshotTree(outside);
  const started = Date.now();
  const timeout = c.timeoutMs ?? 30_000;
  const r =
    via === "in-process"
      ? { ...(await tollgateInProcess(c.args, { cwd: dir, env: { TMPDIR: outside } })), timedOut: false }
      : await spawnCli(c.args, dir, outside, timeout);
  const info = `${via}: exit ${r.code} in ${Date.now() - started} ms\nstderr: ${r.stderr.slice(0, 2000)}\nstdout: ${r.stdout.slice(0, 500)}`;
  expect(r.timedOut, info).toBe(false);
  expect(r.code, info).toBe(c.code);
  expect(r.stderr, info).not.toMatch(/\n\s+at .+:\d+/);
  expect(r.stderr, info).not.toMatch(/internal error/);
  expect(r.stderr, info).toMatch(c.message);
  expect(r.stderr.length, info).toBeLessThan(20_000);
  expect(snapshotTree(dir), info).toEqual(before);
  expect(snapshotTree(outside), info).toEqual(outsideBefore);
}

const title = `hostile input table (${HOSTILE.length} cases): one clear message, right exit code, no stack, no hang, nothing changed`;

describe(title, () => {
  describe("refused at validation (built CLI main() in process, one at a time)", () => {
    for (const c of HOSTILE.filter(inProcess)) {
      it(`[${c.area}] ${c.name}`, () => check(c, "in-process"));
    }
  });

  describe.concurrent("everything else (child process)", () => {
    for (const c of HOSTILE.filter((c) => !inProcess(c))) {
      it(`[${c.area}] ${c.name}`, { timeout: (c.timeoutMs ?? 30_000) * 3 }, () => check(c, "child process"));
    }
  });

  // The in-process shortcut is only sound if it is indistinguishable from the real thing.
  it.concurrent("in-process and child-process runs give identical exit code, stdout and stderr (one case per area)", { timeout: 120_000 }, async () => {
    const sample = [HOSTILE.find((c) => c.name.startsWith("10 MB recipe"))!];
    for (const area of ["policy", "cli"]) sample.push(HOSTILE.find((c) => inProcess(c) && c.area === area)!);
    for (const c of sample) {
      const { dir, outside } = await prepare(c);
      const a = await tollgateInProcess(c.args, { cwd: dir, env: { TMPDIR: outside } });
      const { timedOut, ...b } = await spawnCli(c.args, dir, outside, 60_000);
      expect(timedOut).toBe(false);
      expect(a, c.name).toEqual(b);
    }
  });
});
