import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { journalPath } from "../../src/workspace/journal.js";
import { createNodeWorkspaceFs, Workspace, type WorkspaceFs } from "../../src/workspace/workspace.js";
import { CLI } from "../helpers/testdir.js";
import { cleanupTempDirs, snapshotTree, tempDir } from "../workspace/helpers.js";

// Clear messages, right exit codes: odd state on disk gets one clear message and the
// right exit code, never `internal error` (exit 3 with a stack) or a silently created directory.

afterAll(cleanupTempDirs);

const RECIPE = 'version: 1\nsteps:\n  - tool: write\n    with: { path: a.txt, content: "changed" }\n';

async function cli(args: string[], cwd: string) {
  const r = await execa(process.execPath, [CLI, ...args], {
    cwd,
    reject: false,
    stdin: "ignore",
    env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "" },
    timeout: 30_000,
  });
  const out = { code: r.exitCode, stderr: r.stderr };
  expect(out.stderr).not.toMatch(/\n\s+at |internal error|EISDIR|ENOTDIR/);
  return out;
}

function project(): string {
  const dir = tempDir("tollgate-odd-");
  writeFileSync(path.join(dir, "a.txt"), "original");
  writeFileSync(path.join(dir, "r.yaml"), RECIPE);
  return dir;
}

describe("odd state in .tollgate/ and --cwd", () => {
  it(".tollgate/lock a directory: exit 3 naming it, nothing written", async () => {
    const dir = project();
    mkdirSync(path.join(dir, ".tollgate/lock"), { recursive: true });
    const r = await cli(["run", "r.yaml", "--mode", "auto-apply"], dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/\.tollgate\/lock is a directory, not a lock file tollgate wrote; remove it/);
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("original");
  });

  it(".tollgate/lock a FIFO: refused at once, not a blocked read", async () => {
    const dir = project();
    mkdirSync(path.join(dir, ".tollgate"));
    await execa("mkfifo", [path.join(dir, ".tollgate/lock")]);
    const r = await cli(["run", "r.yaml", "--mode", "auto-apply"], dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/\.tollgate\/lock is a FIFO, not a lock file tollgate wrote/);
  });

  it(".tollgate a plain file: exit 3 for run and recover, with the same clear message", async () => {
    const dir = project();
    writeFileSync(path.join(dir, ".tollgate"), "not a directory\n");
    for (const args of [["run", "r.yaml", "--mode", "auto-apply"], ["recover"]]) {
      const r = await cli(args, dir);
      expect(r.code, args.join(" ")).toBe(3);
      expect(r.stderr).toMatch(/\.tollgate (exists but )?is not a (plain )?directory.*tollgate keeps its state there\. Remove it\./);
    }
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("original");
  });

  it("--cwd naming a file, or a directory that does not exist: exit 2 naming it, nothing created", async () => {
    const dir = project();
    const before = snapshotTree(dir);
    for (const cmd of ["run", "plan", "validate"]) {
      const file = await cli([cmd, "r.yaml", "--cwd", "a.txt"], dir);
      expect(file.code, cmd).toBe(2);
      expect(file.stderr).toBe("--cwd a.txt: not a directory");
      const missing = await cli([cmd, "r.yaml", "--cwd", "no-such-dir"], dir);
      expect(missing.code, cmd).toBe(2);
      expect(missing.stderr).toBe("--cwd no-such-dir: no such directory");
    }
    const rec = await cli(["recover", "--cwd", "no-such-dir"], dir);
    expect(rec.code).toBe(2);
    expect(existsSync(path.join(dir, "no-such-dir"))).toBe(false);
    expect(snapshotTree(dir)).toEqual(before);
  });

  it("a lone surrogate in write content is refused (exit 3), not written as U+FFFD", async () => {
    const dir = project();
    writeFileSync(path.join(dir, "s.yaml"), 'version: 1\nsteps:\n  - tool: write\n    with: { path: a.txt, content: "x\\uD800y" }\n');
    const r = await cli(["run", "s.yaml", "--mode", "auto-apply"], dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("Content of a.txt is not valid Unicode: a lone surrogate (U+D800) at offset 1; refusing to write it as U+FFFD");
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("original");
  });
});

describe("a rollback restores only what the action actually wrote", () => {
  // Tests run as root, for whom a read-only directory is writable: the read-only src/ is
  // modelled with the workspace's own injectable fs, refusing every new file under src/ (EACCES)
  // as the kernel does for other users. The same on disk is checked below when not root.
  const readOnlySrc = (root: string): WorkspaceFs => ({
    ...createNodeWorkspaceFs(),
    writeNew: async (abs, data, options) => {
      if (abs.startsWith(path.join(root, "src") + path.sep)) throw Object.assign(new Error(`EACCES: permission denied, open '${abs}'`), { code: "EACCES" });
      return createNodeWorkspaceFs().writeNew(abs, data, options);
    },
  });

  it("an apply that failed before writing anything leaves no journal: its rollback does not rewrite the untouched files", async () => {
    const root = tempDir("tollgate-ro-");
    mkdirSync(path.join(root, "src"));
    for (const n of ["a", "b", "c"]) writeFileSync(path.join(root, `src/${n}.ts`), `export const ${n} = 1;\n`);
    const before = snapshotTree(root);
    const ws = new Workspace({ root, fs: readOnlySrc(root), durableJournal: false });
    const changes = await ws.stage(["a", "b", "c"].map((n) => ({ path: `src/${n}.ts`, content: `export const ${n} = 2;\n` })));
    const err = await ws.apply(changes).then(
      () => undefined,
      (e: Error & { rolledBack?: boolean; journalKept?: boolean }) => e,
    );
    expect(err?.message).toMatch(/EACCES/);
    expect(err?.rolledBack).toBe(true);
    expect(err?.journalKept ?? false).toBe(false);
    expect(ws.transaction.needsRecovery).toBeUndefined();
    expect(existsSync(journalPath(root))).toBe(false);
    const after = snapshotTree(root);
    delete after[".tollgate/"];
    delete after[".tollgate/.gitignore"];
    expect(after).toEqual(before);
  });

  it.skipIf(process.getuid?.() === 0)("the same with a real read-only src/ (needs a non-root user)", async () => {
    const dir = project();
    mkdirSync(path.join(dir, "src"));
    writeFileSync(path.join(dir, "src/a.ts"), "a\n");
    writeFileSync(path.join(dir, "w.yaml"), 'version: 1\nsteps:\n  - tool: write\n    with: { path: src/a.ts, content: "b\\n" }\n');
    chmodSync(path.join(dir, "src"), 0o555);
    try {
      const r = await cli(["run", "w.yaml", "--mode", "auto-apply"], dir);
      expect(r.code).toBe(3);
      expect(existsSync(path.join(dir, ".tollgate/journal.json"))).toBe(false);
    } finally {
      chmodSync(path.join(dir, "src"), 0o755);
    }
  });
});
