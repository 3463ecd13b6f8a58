import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StaleError } from "../../src/errors.js";
import { journalPath } from "../../src/workspace/journal.js";
import { RolledBackError, Workspace } from "../../src/workspace/workspace.js";
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
    await ws.apply(await ws.stage([{ path: "a.ts", content: "AA\n" }, { path: "new/c.ts", content: "c\n" }]));
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
    const staged = await ws.stage([{ path: "a.ts", content: "A\n" }, { path: "b.ts", content: "B\n" }]);
    const err = await ws.apply(staged).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolledBackError);
    const ops = faulty.log.slice(0, 6).map((l) => l.split(":").slice(1).join(":"));
    expect(ops.slice(0, 2).map((o) => o.split(":")[0])).toEqual(["writeNew", "rename"]);
    expect(ops.slice(2, 6).map((o) => o.split(":")[0]).sort()).toEqual(["rename", "rename", "writeNew", "writeNew"]);
    expect(ops.slice(2, 6).map((o) => o.split(":")[1]!.split(".tollgate-")[0]).sort()).toEqual([".a.ts", ".a.ts", ".b.ts", ".b.ts"]);
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
