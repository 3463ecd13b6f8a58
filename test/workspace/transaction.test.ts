import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StaleError } from "../../src/errors.js";
import { journalPath } from "../../src/workspace/journal.js";
import { readRecord, recordDir } from "../../src/workspace/journal-record.js";
import { realRoot } from "../../src/workspace/paths.js";
import { recover } from "../../src/workspace/recover.js";
import { RollbackError, RolledBackError, Workspace, createNodeWorkspaceFs } from "../../src/workspace/workspace.js";
import { cleanupTempDirs, faultyFs, tempDir, writeTree } from "./helpers.js";

afterAll(cleanupTempDirs);

function tree() {
  const root = tempDir();
  writeTree(root, { "a.ts": "a\n", "b.ts": "b\n" });
  return root;
}
const read = (root: string, rel: string) => readFileSync(path.join(root, rel), "utf8");

describe("the run's transaction: one API, beginAction … end", () => {
  it("an action's writes are one unit: end() commits them (and lists them as written), end(error) restores them all", async () => {
    const root = tree();
    const ws = new Workspace({ root, durableJournal: false });
    const ok = ws.transaction.beginAction({ owner: "s#1" });
    await ws.apply(await ws.stage([{ path: "a.ts", content: "A\n" }]));
    await ws.apply(await ws.stage([{ path: "b.ts", content: "B\n" }]));
    const done = await ok.end();
    expect(done.error).toBeUndefined();
    expect(done.written.map((c) => c.path)).toEqual(["a.ts", "b.ts"]);
    expect(existsSync(journalPath(root))).toBe(false);

    const bad = ws.transaction.beginAction({ owner: "s#2" });
    await ws.apply(
      await ws.stage([
        { path: "a.ts", content: "AA\n" },
        { path: "new/c.ts", content: "c\n" },
      ]),
    );
    const failed = await bad.end(new Error("the custom apply threw"));
    expect(failed.error).toBeInstanceOf(RolledBackError);
    expect(failed.error?.message).toBe("the custom apply threw");
    expect(failed.written).toEqual([]);
    expect([read(root, "a.ts"), existsSync(path.join(root, "new"))]).toEqual(["A\n", false]);
    // ending twice changes nothing
    expect(await bad.end()).toEqual({ written: [] });
  });

  it("a begin inside an open action joins it: only the outer end commits or rolls back", async () => {
    const root = tree();
    const ws = new Workspace({ root, durableJournal: false });
    const outer = ws.transaction.beginAction();
    const inner = ws.transaction.beginAction();
    await ws.apply(await ws.stage([{ path: "a.ts", content: "A\n" }]));
    expect((await inner.end(new Error("inner"))).error?.message).toBe("inner");
    expect(read(root, "a.ts")).toBe("A\n");
    const ended = await outer.end(new Error("outer"));
    expect(ended.error).toBeInstanceOf(RolledBackError);
    expect(read(root, "a.ts")).toBe("a\n");
  });

  it("apply outside an action is its own: a write that fails midway restores what it wrote (RolledBackError); a stale change writes nothing", async () => {
    const root = tree();
    // mutating ops: the journal (writeNew, rename), then a.ts and b.ts (writeNew, rename each;
    // the two files are written concurrently): the last rename fails, after the other file's
    const faulty = faultyFs({ failAt: 6 });
    const ws = new Workspace({ root, fs: faulty.fs, durableJournal: false });
    const staged = await ws.stage([
      { path: "a.ts", content: "A\n" },
      { path: "b.ts", content: "B\n" },
    ]);
    const err = await ws.apply(staged).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolledBackError);
    const ops = faulty.log.slice(0, 6).map((l) => l.split(":").slice(1).join(":"));
    expect(ops.slice(0, 2).map((o) => o.split(":")[0])).toEqual(["writeNew", "rename"]);
    expect(
      ops
        .slice(2, 6)
        .map((o) => o.split(":")[0])
        .sort(),
    ).toEqual(["rename", "rename", "writeNew", "writeNew"]);
    expect(
      ops
        .slice(2, 6)
        .map((o) => o.split(":")[1]!.split(".tollgate-")[0])
        .sort(),
    ).toEqual([".a.ts", ".a.ts", ".b.ts", ".b.ts"]);
    expect(ops[5]).toMatch(/^rename:/);
    expect([read(root, "a.ts"), read(root, "b.ts")]).toEqual(["a\n", "b\n"]);
    expect(ws.transaction.needsRecovery).toBeUndefined();

    const clean = new Workspace({ root, durableJournal: false });
    const change = await clean.stage([{ path: "a.ts", content: "A\n" }]);
    writeTree(root, { "a.ts": "moved\n" });
    await expect(clean.apply(change)).rejects.toBeInstanceOf(StaleError);
    expect(read(root, "a.ts")).toBe("moved\n");
  });
});

describe("the journal's record written ahead (prepare … close)", () => {
  const withState = async (fn: (records: () => string[]) => Promise<void>) => {
    const saved = process.env.XDG_STATE_HOME;
    const state = tempDir();
    process.env.XDG_STATE_HOME = state;
    const dir = path.join(state, "tollgate", "journals");
    try {
      await fn(() => (existsSync(dir) ? readdirSync(dir) : []));
    } finally {
      if (saved === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = saved;
    }
  };

  it("a run that applies nothing leaves no record; one that applies has the record before its journal and none after", async () => {
    await withState(async (records) => {
      const idle = new Workspace({ root: tree() });
      idle.transaction.prepare();
      await idle.transaction.close();
      expect(records()).toEqual([]);

      const root = tree();
      const seen: Array<string | null> = [];
      // At every user-file rename, the journal's nonce must already be the recorded one.
      const fs = {
        ...createNodeWorkspaceFs(),
        rename: async (from: string, to: string) => {
          if (!to.endsWith("journal.json"))
            seen.push(JSON.parse(readFileSync(journalPath(root), "utf8")).nonce === readRecord(recordDir(process.env), realRoot(root)) ? "ok" : null);
          return createNodeWorkspaceFs().rename(from, to);
        },
      };
      const ws = new Workspace({ root, fs });
      ws.transaction.prepare();
      const tx = ws.transaction.beginAction();
      await ws.apply(
        await ws.stage([
          { path: "a.ts", content: "A\n" },
          { path: "b.ts", content: "B\n" },
        ]),
      );
      expect((await tx.end()).error).toBeUndefined();
      await ws.transaction.close();
      expect(seen).toEqual(["ok", "ok"]);
      expect(records()).toEqual([]);
      expect([read(root, "a.ts"), existsSync(journalPath(root))]).toEqual(["A\n", false]);
    });
  });

  it("a journal kept after a failed rollback keeps its record, so recover honours it", async () => {
    await withState(async (records) => {
      const root = tree();
      // the journal (writeNew, rename), a.ts's temp file; its rename is done and reported failed,
      // and so is everything after it: the rollback cannot restore a.ts
      const ws = new Workspace({ root, fs: faultyFs({ failAt: 4, count: Infinity, when: "after" }).fs });
      ws.transaction.prepare();
      const tx = ws.transaction.beginAction();
      const err = await ws.apply(await ws.stage([{ path: "a.ts", content: "A\n" }])).catch((e: unknown) => e);
      expect((await tx.end(err)).error).toBeInstanceOf(RollbackError);
      await ws.transaction.close();
      expect(records()).toHaveLength(1);
      expect((await recover(root)).found).toBe(true);
      expect(read(root, "a.ts")).toBe("a\n");
      expect(records()).toEqual([]);
    });
  });
});
