// `tollgate recover` and a dry-run while another process holds the workspace lock: the journal
// belongs to that live run, so it is not read (let alone called unreadable) and nothing is written.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tollgate } from "../helpers/testdir.js";
import { cleanupTempDirs, collect, snapshotTree, spawnScript, tempDir, waitFor, writeTree } from "../workspace/helpers.js";

afterAll(cleanupTempDirs);

function holder(root: string) {
  return spawnScript(
    `const { acquireLock } = await load("src/workspace/lock.ts");
     const { nodeProcess } = await load("src/process-host.ts");
     acquireLock(${JSON.stringify(root)}, nodeProcess(), { command: "tollgate run live.yaml" });
     console.log("locked");
     setTimeout(() => {}, 60000);`,
  );
}

/** A journal as a live run may have it mid-rewrite: its content does not match its sha256. */
const JOURNAL = JSON.stringify({
  version: 1,
  tool: "tollgate",
  pid: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  atomic: false,
  nonce: "00",
  entries: [{ path: "a.txt", existed: true, mode: 0o644, base64: Buffer.from("old\n").toString("base64"), sha256: "0".repeat(64) }],
  dirs: [],
});

describe("the lock is checked before the journal is read", () => {
  it(
    "recover while a live run holds the workspace names that run, reads and writes nothing; once it is gone the journal is judged",
    { timeout: 60_000 },
    async () => {
      const root = tempDir();
      writeTree(root, { "a.txt": "new\n", "r.yaml": "version: 1\nsteps:\n  - tool: write\n    with: { path: b.txt, content: x }\n" });
      mkdirSync(path.join(root, ".tollgate"));
      writeFileSync(path.join(root, ".tollgate/journal.json"), JOURNAL);
      const child = holder(root);
      const done = collect(child);
      let out = "";
      child.stdout!.on("data", (d) => (out += d));
      await waitFor(() => out.includes("locked"), 20_000, "child to lock");
      const before = snapshotTree(root);

      const r = await tollgate(["recover"], { cwd: root });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(new RegExp(`locked by another tollgate run \\(pid ${child.pid}, started .*, tollgate run live\\.yaml\\)`));
      expect(r.stderr).not.toMatch(/unreadable|sha256|delete the journal/);
      expect(snapshotTree(root)).toEqual(before);
      expect(readFileSync(path.join(root, ".tollgate/journal.json"), "utf8")).toBe(JOURNAL);

      // A dry-run takes no lock; it leaves the live run's journal alone instead of judging it.
      const dry = await tollgate(["run", "r.yaml", "--dry-run"], { cwd: root });
      expect(dry.stderr).not.toMatch(/unreadable|needs recovery|sha256/);
      expect(dry.code).toBe(0);
      expect(snapshotTree(root)).toEqual(before);

      child.kill("SIGKILL");
      await done;
      // No live run now: the journal is read, and this one does not verify.
      const after = await tollgate(["recover"], { cwd: root });
      expect(after.code).toBe(3);
      expect(after.stderr).toMatch(/does not match its sha256/);
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("new\n");
    },
  );

  it("recover in a tree without .tollgate/ creates nothing", async () => {
    const root = tempDir();
    writeTree(root, { "a.txt": "x\n" });
    const before = snapshotTree(root);
    const r = await tollgate(["recover"], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/nothing to recover/);
    expect(snapshotTree(root)).toEqual(before);
  });
});
