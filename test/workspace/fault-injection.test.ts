import { afterAll, describe, expect, it } from "vitest";
import { RunError } from "../../src/errors.js";
import { assertNoPendingJournal, journalPath } from "../../src/workspace/journal.js";
import { recover } from "../../src/workspace/recover.js";
import { RollbackError, Workspace, type WorkspaceFs } from "../../src/workspace/workspace.js";
import { existsSync } from "node:fs";
import { cleanupTempDirs, faultyFs, inAction, snapshotTree, tempDir, writeTree, type FaultPlan, type TreeSpec } from "./helpers.js";
import { recordDir } from "../../src/workspace/journal-record.js";

afterAll(cleanupTempDirs);

const BOM = "\uFEFF";
const TREE: TreeSpec = {
  "src/a.ts": "export const a = 1;\nexport const b = 2;\n",
  "src/b.ts": { content: `${BOM}line one\r\nline two\r\n`, mode: 0o755 },
  "lib/old.txt": "to be deleted\n",
  "lib/keep.txt": "untouched\n",
  "e.sh": { content: "#!/bin/sh\necho hi\n", mode: 0o750 },
  "ro.txt": { content: "read only\n", mode: 0o444 },
};
const EDITS = [
  { path: "src/a.ts", content: "export const a = 10;\nexport const b = 2;\n" },
  { path: "src/b.ts", content: `${BOM}line one\r\nline 2\r\n` },
  { path: "lib/old.txt", content: null },
  { path: "new/deep/c.ts", content: "created\n" },
  { path: "d.txt", content: "no trailing newline" },
  { path: "e.sh", content: "#!/bin/sh\necho bye\n" },
  { path: "ro.txt", content: "still read only\n" },
];

function fixture(): { root: string; before: Record<string, string> } {
  const root = tempDir();
  writeTree(root, TREE);
  return { root, before: snapshotTree(root) };
}

const expected = (() => {
  const { root } = fixture();
  return (async () => {
    const ws = new Workspace({ root });
    await ws.apply(await ws.stage(EDITS));
    return { after: snapshotTree(root), ops: 0 };
  })();
})();

type Scenario = (ws: Workspace) => Promise<void>;

/** One action, one apply (built-in tools, pi.files). */
const single: Scenario = async (ws) => {
  await ws.apply(await ws.stage(EDITS));
};
/** A custom action's apply that writes in two batches through the workspace. */
const twoBatches: Scenario = async (ws) => {
  await inAction(ws, async () => {
    await ws.apply(await ws.stage(EDITS.slice(0, 3)));
    await ws.apply(await ws.stage(EDITS.slice(3)));
  });
};
/** --atomic: two actions in a run, committed at the end. */
const atomicRun: Scenario = async (ws) => {
  try {
    await inAction(ws, async () => ws.apply(await ws.stage(EDITS.slice(0, 4))));
    await inAction(ws, async () => ws.apply(await ws.stage(EDITS.slice(4))));
    await ws.transaction.commit();
  } catch (err) {
    if (err instanceof RollbackError) throw err;
    await ws.transaction.rollback();
    throw err;
  }
};

interface Tally {
  runs: number;
  faults: number;
  applied: number;
  rolledBack: number;
  untouched: number;
  recovered: number;
}

async function sweep(scenario: Scenario, atomic: boolean, plan: Omit<FaultPlan, "failAt">, tally: Tally): Promise<void> {
  const { after } = await expected;
  // How many mutating operations does a clean run take?
  const probe = fixture();
  const counter = faultyFs(undefined);
  await scenario(new Workspace({ root: probe.root, fs: counter.fs, atomic, durableJournal: false }));
  expect(snapshotTree(probe.root)).toEqual(after);
  const total = counter.count;
  expect(total).toBeGreaterThan(10);
  for (let n = 1; n <= total + 1; n++) {
    const { root, before } = fixture();
    const faulty = faultyFs({ ...plan, failAt: n });
    const ws = new Workspace({ root, fs: faulty.fs, atomic, durableJournal: false });
    let error: unknown;
    try {
      await scenario(ws);
    } catch (err) {
      error = err;
    }
    tally.runs++;
    tally.faults += faulty.failed;
    const label = `fault at op ${n}/${total} ${JSON.stringify(plan)}: ${faulty.log.slice(n - 1, n + 1).join(" ")}`;
    if (error === undefined) {
      // The fault hit something retried or best-effort (journal write, temp cleanup): done.
      expect(snapshotTree(root), label).toEqual(after);
      expect(existsSync(journalPath(root)), label).toBe(false);
      tally.applied++;
    } else if (error instanceof RollbackError) {
      // Rolling back failed as well: the journal stays, the next run refuses, recover fixes it.
      expect(existsSync(journalPath(root)), label).toBe(true);
      expect(() => assertNoPendingJournal(root, recordDir(process.env))).toThrow(RunError);
      const result = await recover(root);
      expect(result.found).toBe(true);
      expect(snapshotTree(root), label).toEqual(before);
      tally.recovered++;
    } else {
      expect(snapshotTree(root), label).toEqual(before);
      expect(existsSync(journalPath(root)), label).toBe(false);
      if ((error as { rolledBack?: boolean }).rolledBack) tally.rolledBack++;
      else tally.untouched++;
    }
  }
}

const PLANS: Array<Omit<FaultPlan, "failAt">> = [
  { count: 1, when: "before" },
  { count: 1, when: "after" },
  { count: 1, when: "partial" },
  { count: 2, when: "before" },
  { count: 3, when: "partial" },
  { count: Infinity, when: "before" },
  { count: Infinity, when: "after" },
];

export const faultTotals: Tally = { runs: 0, faults: 0, applied: 0, rolledBack: 0, untouched: 0, recovered: 0 };

describe("fault injection: fail the N-th write/rename/unlink/mkdir/rmdir for every N", () => {
  for (const [name, scenario, atomic] of [
    ["one apply", single, false],
    ["one action, two applies (beginAction … end)", twoBatches, false],
    ["--atomic run of two actions", atomicRun, true],
  ] as const) {
    for (const plan of PLANS) {
      it(`${name}; ${plan.count} fault(s) ${plan.when}`, async () => {
        const tally: Tally = { runs: 0, faults: 0, applied: 0, rolledBack: 0, untouched: 0, recovered: 0 };
        await sweep(scenario, atomic, plan, tally);
        expect(tally.rolledBack + tally.recovered).toBeGreaterThan(0);
        for (const k of Object.keys(tally) as Array<keyof Tally>) faultTotals[k] += tally[k];
      });
    }
  }

  it("reports the figures", () => {
    // Printed for docs/reliability.md.
    console.log(`fault-injection figures: ${JSON.stringify(faultTotals)}`);
    expect(faultTotals.runs).toBeGreaterThan(300);
  });
});

describe("reads failing", () => {
  it("a failing stat/read while snapshotting writes nothing", async () => {
    for (let n = 1; n <= 12; n++) {
      const { root, before } = fixture();
      const ws0 = new Workspace({ root });
      const changes = await ws0.stage(EDITS);
      const faulty = faultyFs({ failAt: n, ops: ["readFile", "stat"] as Array<keyof WorkspaceFs> });
      const ws = new Workspace({ root, fs: faulty.fs });
      await ws.apply(changes).catch(() => undefined);
      const now = snapshotTree(root);
      const { after } = await expected;
      expect([JSON.stringify(before), JSON.stringify(after)]).toContain(JSON.stringify(now));
    }
  });
});
