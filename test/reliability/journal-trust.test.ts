import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/testdir.js";
import { cleanupTempDirs, snapshotTree, tempDir } from "../workspace/helpers.js";

// A branch can commit anything under .tollgate/, and every run tells the user to run
// `tollgate recover` when a journal is there. A journal is honoured only if this machine wrote it
// (a nonce matching a record kept outside the workspace, not tracked by git), and even then every
// entry is checked before anything is written. A refused journal is kept; nothing is written.

let state: string;
beforeAll(() => {
  state = mkdtempSync(path.join(tmpdir(), "tollgate-state-"));
});
afterAll(cleanupTempDirs);

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

/** Writes the machine-side record for `root` (what a real apply writes before its journal). */
function vouch(root: string, nonce: string): void {
  const real = realpathSync(root);
  const dir = path.join(state, "tollgate", "journals");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${sha(real).slice(0, 32)}.json`), JSON.stringify({ root: real, nonce, pid: 1, createdAt: "x" }));
}

type Entry = { path: string; existed: boolean; mode?: number; base64?: string; sha256?: string };
function plantJournal(root: string, entries: Entry[], dirs: string[] = [], nonce = "n".repeat(48)): string {
  mkdirSync(path.join(root, ".tollgate"), { recursive: true });
  const text = JSON.stringify({ version: 1, tool: "tollgate", pid: 999_999, createdAt: "2026-01-01T00:00:00.000Z", atomic: false, nonce, entries, dirs });
  writeFileSync(path.join(root, ".tollgate/journal.json"), text);
  return text;
}
const content = (text: string): Pick<Entry, "base64" | "sha256"> => ({ base64: Buffer.from(text).toString("base64"), sha256: sha(text) });

async function cli(args: string[], cwd: string) {
  const r = await execa(process.execPath, [CLI, ...args], {
    cwd,
    reject: false,
    stdin: "ignore",
    env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "", XDG_STATE_HOME: state },
    timeout: 30_000,
  });
  expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
  return { code: r.exitCode, stderr: r.stderr };
}

function workspace(): { root: string; outside: string } {
  const root = tempDir("tollgate-jt-");
  const outside = tempDir("tollgate-jt-out-");
  mkdirSync(path.join(root, "src"));
  writeFileSync(path.join(root, "src/a.ts"), "export const a = 1;\n");
  writeFileSync(path.join(root, "r.yaml"), "version: 1\nsteps:\n  - tool: write\n    with: { path: src/a.ts, content: x }\n");
  mkdirSync(path.join(outside, "victim"));
  writeFileSync(path.join(outside, "victim/keep.txt"), "keep\n");
  return { root, outside };
}

/** recover refuses (exit 3, the reason on stderr), the journal stays, nothing inside or outside changed. */
async function refused(root: string, outside: string, reason: RegExp): Promise<void> {
  const inside = snapshotTree(root);
  const out = snapshotTree(outside);
  const journal = readFileSync(path.join(root, ".tollgate/journal.json"), "utf8");
  const r = await cli(["recover"], root);
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toMatch(/Refusing to use the apply journal .*journal\.json:/);
  expect(r.stderr).toMatch(reason);
  expect(r.stderr).toContain("Nothing was restored and the journal is kept");
  expect(r.stderr).not.toMatch(/restoring:/);
  expect(snapshotTree(root)).toEqual(inside);
  expect(snapshotTree(outside)).toEqual(out);
  expect(readFileSync(path.join(root, ".tollgate/journal.json"), "utf8")).toBe(journal);
  // and a run does not send the user to `recover` for it
  const run = await cli(["run", "r.yaml"], root);
  expect(run.code).toBe(3);
  expect(run.stderr).toMatch(/Refusing to use the apply journal/);
  expect(run.stderr).not.toMatch(/Run `tollgate recover`/);
}

describe("recover trusts nothing it reads back", () => {
  it("a journal this machine did not write (no matching record) is refused, even when every entry looks fine", async () => {
    const { root, outside } = workspace();
    plantJournal(root, [{ path: "src/a.ts", existed: true, mode: 0o644, ...content("PLANTED\n") }]);
    await refused(root, outside, /not written by tollgate on this machine/);
    vouch(root, "m".repeat(48)); // a record for another journal
    await refused(root, outside, /not written by tollgate on this machine/);
  });

  it("a `dirs` entry through a symlink to an outside directory is refused; the outside directory survives", async () => {
    const { root, outside } = workspace();
    symlinkSync(outside, path.join(root, "linkout"));
    plantJournal(root, [], ["linkout/victim"]);
    vouch(root, "n".repeat(48));
    await refused(root, outside, /directory linkout\/victim: Path resolves outside the workspace/);
    expect(existsSync(path.join(outside, "victim/keep.txt"))).toBe(true);
  });

  it("entries for .git/hooks/pre-commit (0755) and .git/config (existed: false) are refused: no hook planted, config kept", async () => {
    const { root, outside } = workspace();
    mkdirSync(path.join(root, ".git/hooks"), { recursive: true });
    writeFileSync(path.join(root, ".git/config"), "[core]\n");
    plantJournal(root, [
      { path: ".git/hooks/pre-commit", existed: true, mode: 0o755, ...content("#!/bin/sh\necho pwned\n") },
      { path: ".git/config", existed: false },
    ]);
    vouch(root, "n".repeat(48));
    await refused(root, outside, /file \.git\/hooks\/pre-commit is inside \.git\/ or \.tollgate\//);
    expect(existsSync(path.join(root, ".git/hooks/pre-commit"))).toBe(false);
    expect(readFileSync(path.join(root, ".git/config"), "utf8")).toBe("[core]\n");
  });

  it("invalid base64 or content that does not match its sha256 is refused before anything is written", async () => {
    const { root, outside } = workspace();
    plantJournal(root, [{ path: "src/a.ts", existed: true, mode: 0o644, base64: "!!not*base64!!", sha256: sha("x") }]);
    vouch(root, "n".repeat(48));
    let r = await cli(["recover"], root);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("invalid base64 for src/a.ts");
    plantJournal(root, [{ path: "src/a.ts", existed: true, mode: 0o644, base64: content("B\n").base64!, sha256: sha("A\n") }]);
    r = await cli(["recover"], root);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("content of src/a.ts does not match its sha256");
    expect(readFileSync(path.join(root, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(existsSync(path.join(root, ".tollgate/journal.json"))).toBe(true);
    expect(readFileSync(path.join(outside, "victim/keep.txt"), "utf8")).toBe("keep\n");
  });

  it("a journal tracked by git (committed) is refused even with a matching record", async () => {
    const { root, outside } = workspace();
    plantJournal(root, [{ path: "src/a.ts", existed: true, mode: 0o644, ...content("PLANTED\n") }]);
    vouch(root, "n".repeat(48));
    const git = (...a: string[]) => execa("git", a, { cwd: root });
    await git("init", "-q");
    await git("add", "-f", ".tollgate/journal.json");
    await refused(root, outside, /tracked by git/);
  });

  it("a policy's protect globs are honoured: `recover --policy` refuses an entry under one", async () => {
    const { root, outside } = workspace();
    writeFileSync(path.join(root, "p.yaml"), 'version: 1\nprotect: ["src/**"]\n');
    plantJournal(root, [{ path: "src/a.ts", existed: true, mode: 0o644, ...content("PLANTED\n") }]);
    vouch(root, "n".repeat(48));
    const r = await cli(["recover", "--policy", "p.yaml"], root);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("file src/a.ts is protected by the policy");
    expect(readFileSync(path.join(root, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(readFileSync(path.join(outside, "victim/keep.txt"), "utf8")).toBe("keep\n");
  });

  it("a journal this machine wrote is restored, and recover lists what it will restore before it does", async () => {
    const { root } = workspace();
    writeFileSync(path.join(root, "src/a.ts"), "half-written");
    writeFileSync(path.join(root, "src/new.ts"), "created by the apply\n");
    plantJournal(root, [
      { path: "src/a.ts", existed: true, mode: 0o644, ...content("export const a = 1;\n") },
      { path: "src/new.ts", existed: false },
    ]);
    vouch(root, "n".repeat(48));
    const r = await cli(["recover"], root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /left 2 files to put back:\nrestoring:\n {2}src\/a\.ts\nremoving \(created by the apply\):\n {2}src\/new\.ts\n[^]*restored 2 files/,
    );
    expect(readFileSync(path.join(root, "src/a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(existsSync(path.join(root, "src/new.ts"))).toBe(false);
    expect(existsSync(path.join(root, ".tollgate/journal.json"))).toBe(false);
  });

  it("a journal that is a directory or a FIFO gets one clear message (exit 3), not EISDIR or a hang", async () => {
    const { root } = workspace();
    mkdirSync(path.join(root, ".tollgate/journal.json"), { recursive: true });
    let r = await cli(["run", "r.yaml"], root);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/journal\.json is a directory, not an apply journal/);
    r = await cli(["recover"], root);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/journal\.json is a directory, not an apply journal/);
    const fifoRoot = workspace().root;
    mkdirSync(path.join(fifoRoot, ".tollgate"));
    await execa("mkfifo", [path.join(fifoRoot, ".tollgate/journal.json")]);
    r = await cli(["recover"], fifoRoot);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/journal\.json is not a regular file/);
  });
});
