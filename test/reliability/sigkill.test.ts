import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RunError } from "../../src/errors.js";
import { assertNoPendingJournal, journalPath } from "../../src/workspace/journal.js";
import { recover } from "../../src/workspace/recover.js";
import { startRun } from "../../src/workspace/recover.js";
import { cleanupTempDirs, collect, snapshotTree, spawnScript, tempDir, waitFor, writeTree } from "../workspace/helpers.js";
import { recordDir } from "../../src/workspace/journal-record.js";

afterAll(cleanupTempDirs);

const FILES = 12;

function tree(root: string) {
  const spec: Record<string, string | { content: string; mode: number }> = {};
  for (let i = 0; i < FILES; i++) spec[`src/f${i}.ts`] = i % 3 === 0 ? { content: `original ${i}\r\n`, mode: 0o755 } : `original ${i}\n`;
  writeTree(root, spec);
}

/** A child that takes the lock and applies one action of FILES modifies + 2 creates + 1 delete, slowly. */
function applier(root: string, atomic: boolean) {
  return spawnScript(`
    const { Workspace, createNodeWorkspaceFs, startRun } = await load("src/workspace/index.ts");
    // A slow disk that renames and unlinks one at a time (the apply issues several at once).
    let queue = Promise.resolve();
    const slow = Object.fromEntries(Object.entries(createNodeWorkspaceFs()).map(([k, fn]) => [k, async (...a) => {
      if (k === "rename" || k === "unlink") {
        const turn = queue.then(() => new Promise((r) => setTimeout(r, 60)));
        queue = turn;
        await turn;
      }
      return fn(...a);
    }]));
    const root = ${JSON.stringify(root)};
    startRun(root, { command: "tollgate run slow.yaml" });
    const ws = new Workspace({ root, fs: slow, atomic: ${atomic} });
    const edits = [];
    for (let i = 0; i < ${FILES}; i++) edits.push({ path: "src/f" + i + ".ts", content: "CHANGED " + i + "\\n" });
    edits.push({ path: "src/new/created.ts", content: "new\\n" }, { path: "created2.ts", content: "new\\n" });
    if (${atomic}) {
      const first = ws.transaction.beginAction();
      await ws.apply(await ws.stage(edits.slice(0, 4)));
      await first.end();
      console.log("FIRST-DONE");
      const second = ws.transaction.beginAction();
      await ws.apply(await ws.stage(edits.slice(4)));
      await second.end();
    } else {
      await ws.apply(await ws.stage(edits));
    }
    console.log("FINISHED");
  `);
}

describe("SIGKILL mid-apply", () => {
  for (const atomic of [false, true]) {
    it(`${atomic ? "--atomic run" : "single action"}: leaves the journal, the next run refuses, recover restores byte-identical`, async () => {
      const root = tempDir();
      tree(root);
      const before = snapshotTree(root);
      const child = applier(root, atomic);
      const done = collect(child);
      let out = "";
      child.stdout!.on("data", (d) => (out += d));
      // Wait until the apply is visibly half-way: journal there, some files already changed.
      const changed = () => {
        let n = 0;
        for (let i = 0; i < FILES; i++) if (readFileSync(path.join(root, `src/f${i}.ts`), "utf8").startsWith("CHANGED")) n++;
        return n;
      };
      await waitFor(() => existsSync(journalPath(root)) && changed() >= (atomic ? 6 : 3), 20_000, "half-way apply");
      child.kill("SIGKILL");
      const result = await done;
      expect(result.signal).toBe("SIGKILL");
      expect(out).not.toContain("FINISHED");
      expect(changed()).toBeGreaterThan(0);
      expect(changed()).toBeLessThan(FILES);

      // The next run refuses to start: exit 3, a clear message naming the way out.
      expect(() => assertNoPendingJournal(root, recordDir(process.env))).toThrow(RunError);
      let err: unknown;
      try {
        startRun(root);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RunError);
      expect((err as RunError).exitCode).toBe(3);
      expect((err as Error).message).toMatch(/needs recovery.*tollgate recover/s);

      const rec = await recover(root);
      expect(rec.found).toBe(true);
      expect(snapshotTree(root)).toEqual(before);
      expect(existsSync(journalPath(root))).toBe(false);
      // And recover is idempotent; the workspace is usable again.
      expect((await recover(root)).found).toBe(false);
      startRun(root).release();
    });
  }
});
