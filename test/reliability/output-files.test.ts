// The CLI's output files (--report, --patch, --summary, --sarif, plan --out) on a filesystem
// that cannot take them: full (a small tmpfs, /dev/full), read-only (a read-only tmpfs), or a
// directory this process may not write (the CLI run as `nobody`). Each is one line naming the
// flag, the file and the reason, exit 3, and no file — whole or half — nor temp file is left.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, testdir, tollgate } from "../helpers/testdir.js";

const RECIPE = 'version: 1\nsteps:\n  - tool: write\n    with: { path: big.txt, content: "${{ vars.text }}" }\nvars:\n  text: small\n';
const FLAGS = [
  ["run", "--report"],
  ["run", "--patch"],
  ["run", "--summary"],
  ["run", "--sarif"],
  ["plan", "--out"],
] as const;

const base = mkdtempSync(path.join(tmpdir(), "tollgate-outputs-"));
const mounts: string[] = [];

/** A tmpfs of `size` at a new directory, or why one cannot be had here. */
function tmpfs(name: string, options: string): { dir: string } | { unavailable: string } {
  const dir = path.join(base, name);
  mkdirSync(dir);
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) return { unavailable: `cannot mount a tmpfs here (${(r.stderr || r.error?.message || "").trim() || `exit ${r.status}`})` };
  mounts.push(dir);
  return { dir };
}

let full: ReturnType<typeof tmpfs>;
let small: ReturnType<typeof tmpfs>;
let readOnly: ReturnType<typeof tmpfs>;
beforeAll(() => {
  full = tmpfs("full", "size=16k");
  if ("dir" in full) writeFileSync(path.join(full.dir, "fill"), Buffer.alloc(64 * 1024).subarray(0, 16 * 1024), { flag: "w" });
  small = tmpfs("small", "size=64k");
  readOnly = tmpfs("ro", "ro,size=16k");
});
afterAll(() => {
  for (const dir of mounts) spawnSync("umount", [dir]);
  rmSync(base, { recursive: true, force: true });
});

function expectRefused(r: { code: number | undefined; stderr: string }, flag: string, file: string, why: string): void {
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(`tollgate: cannot write ${flag} ${file}: ${why}`);
  expect(r.code).toBe(3);
}

/** Nothing of tollgate's in `dir` but what was there before. */
function leftIn(dir: string, before: readonly string[]): string[] {
  return readdirSync(dir).filter((n) => !before.includes(n));
}

describe("output files that cannot be written", () => {
  for (const [command, flag] of FLAGS) {
    it(`${command} ${flag} on a full filesystem: one line naming it, exit 3, nothing left`, async (ctx) => {
      if ("unavailable" in full) return ctx.skip(full.unavailable);
      const dir = await testdir({ "r.yaml": RECIPE });
      const file = path.join(full.dir, "out.json");
      const r = await tollgate([command, "r.yaml", ...(command === "run" ? ["--dry-run"] : []), flag, file], { cwd: dir });
      expectRefused(r, flag, file, "no space left on device");
      expect(leftIn(full.dir, ["fill"])).toEqual([]);
    });
  }

  it("a report larger than the space left: refused part-way, no half-written report or temp file left", async (ctx) => {
    if ("unavailable" in small) return ctx.skip(small.unavailable);
    const dir = await testdir({ "r.yaml": RECIPE });
    const file = path.join(small.dir, "r.json");
    const r = await tollgate(["run", "r.yaml", "--dry-run", "--var", `text=${"x".repeat(100_000)}`, "--report", file], { cwd: dir });
    expectRefused(r, "--report", file, "no space left on device");
    expect(leftIn(small.dir, [])).toEqual([]);
    // The same run with room to spare writes it: the refusal was the disk's, not the report's.
    const ok = await tollgate(["run", "r.yaml", "--dry-run", "--report", file], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(execFileSync("cat", [file], { encoding: "utf8" })).schemaVersion).toBe(1);
  });

  it("a read-only filesystem: exit 3 naming the file", async (ctx) => {
    if ("unavailable" in readOnly) return ctx.skip(readOnly.unavailable);
    const dir = await testdir({ "r.yaml": RECIPE });
    const file = path.join(readOnly.dir, "sub/r.json");
    const r = await tollgate(["run", "r.yaml", "--dry-run", "--report", file], { cwd: dir });
    expectRefused(r, "--report", file, "read-only file system");
  });

  it("/dev/full: ENOSPC on a device is refused the same way, and the device is written into, never replaced", async (ctx) => {
    if (!existsSync("/dev/full")) return ctx.skip("no /dev/full on this system");
    const dir = await testdir({ "r.yaml": RECIPE });
    const r = await tollgate(["run", "r.yaml", "--dry-run", "--report", "/dev/full"], { cwd: dir });
    expectRefused(r, "--report", "/dev/full", "no space left on device");
    expect(statSync("/dev/full").isCharacterDevice()).toBe(true);
    const ok = await tollgate(["run", "r.yaml", "--dry-run", "--summary", "/dev/null", "--patch", "/dev/null"], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
    expect(readdirSync("/dev").filter((n) => n.includes(".tollgate-"))).toEqual([]);
  });

  it("a directory this process may not write (the CLI run as nobody): exit 3, permission denied", async (ctx) => {
    const dir = await testdir({ "r.yaml": RECIPE });
    const locked = path.join(base, "locked");
    mkdirSync(locked);
    for (const d of [base, dir, locked]) chmodSync(d, 0o755);
    const file = path.join(locked, "r.json");
    const probe = spawnSync("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, "-e", ""], { encoding: "utf8" });
    if (probe.status !== 0) return ctx.skip(`cannot run as nobody here (setpriv: ${(probe.stderr || probe.error?.message || "").trim()})`);
    if (process.getuid?.() !== 0) return ctx.skip("not root: setpriv cannot switch users");
    const r = spawnSync(
      "setpriv",
      ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, CLI, "run", "r.yaml", "--dry-run", "--report", file],
      {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: locked, CI: "true", NO_COLOR: "1" },
        timeout: 60_000,
      },
    );
    expectRefused({ code: r.status ?? undefined, stderr: r.stderr }, "--report", file, "permission denied");
    expect(readdirSync(locked)).toEqual([]);
  });
});
