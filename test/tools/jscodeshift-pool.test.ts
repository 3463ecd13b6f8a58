/**
 * The jscodeshift pool over real worker processes: how it hooks into the process tollgate runs
 * in (one exit hook for its live workers, gone when they are) and how its files are fed.
 */
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.js";
import { collect, spawnScript, waitFor } from "../workspace/helpers.js";
import { nodeProcess } from "../../src/process-host.js";
import { TransformPool, type FileOutcome } from "../../src/tools/jscodeshift/pool.js";

const UPPER = `module.exports = (file) => (file.source.includes("skip") ? undefined : file.source.toUpperCase());\n`;

describe("jscodeshift pool", () => {
  it("one exit hook of the host for all its live workers, removed once they have exited; every file settles once", async () => {
    const root = await testdir({ "t.cjs": UPPER });
    const names = ["a.js", "b.js", "c.js", "d.js", "e.js", "skip.js"];
    for (const n of names) await writeFile(path.join(root, n), `const ${n.replace(/\W/g, "")} = "${n}";\n`);
    const base = process.listenerCount("exit");
    const pool = new TransformPool([], nodeProcess());
    const seen: number[] = [];
    const outcomes = new Map<number, FileOutcome>();
    await pool.run(
      { file: path.join(root, "t.cjs"), key: "t" },
      names.map((rel) => ({ rel, read: async () => (await import("node:fs/promises")).readFile(path.join(root, rel), "utf8") })),
      {},
      { cwd: root, workers: 3 },
      (index, outcome) => {
        expect(outcomes.has(index)).toBe(false);
        outcomes.set(index, outcome);
        seen.push(process.listenerCount("exit"));
      },
    );
    await pool.close();
    expect(seen.length).toBe(names.length);
    // Three workers, one hook: not one per worker.
    expect(seen.every((n) => n <= base + 1)).toBe(true);
    expect(seen.some((n) => n === base + 1)).toBe(true);
    expect(process.listenerCount("exit")).toBe(base);
    const status = names.map((_, i) => {
      const o = outcomes.get(i);
      return o?.type === "done" ? o.status : o?.type;
    });
    expect(status).toEqual(["changed", "changed", "changed", "changed", "changed", "skip"]);
    expect(outcomes.get(0)).toMatchObject({ output: `CONST AJS = "A.JS";\n` });
  });

  it("an aborted run throws and leaves no exit hook behind", async () => {
    const root = await testdir({
      "slow.cjs": `module.exports = (file) => { const end = Date.now() + 60000; while (Date.now() < end); return file.source; };\n`,
      "a.js": "x\n",
    });
    const base = process.listenerCount("exit");
    const pool = new TransformPool([], nodeProcess());
    const controller = new AbortController();
    const running = pool.run(
      { file: path.join(root, "slow.cjs"), key: "slow" },
      [{ rel: "a.js", read: async () => "x\n" }],
      {},
      { cwd: root, workers: 1, signal: controller.signal },
      () => {},
    );
    setTimeout(() => controller.abort(), 300);
    await expect(running).rejects.toThrow("Aborted");
    await pool.close();
    expect(process.listenerCount("exit")).toBe(base);
  });

  it("a worker busy in a transform is killed when tollgate's process exits", async () => {
    const root = await testdir({ "a.js": "x\n" });
    const pidFile = path.join(root, "worker.pid");
    await writeFile(
      path.join(root, "busy.cjs"),
      // Written aside and renamed: whoever sees the file sees the whole pid.
      `module.exports = (file) => { const fs = require("fs"); fs.writeFileSync(${JSON.stringify(pidFile + ".tmp")}, String(process.pid)); fs.renameSync(${JSON.stringify(pidFile + ".tmp")}, ${JSON.stringify(pidFile)}); for (;;); };\n`,
    );
    const child = spawnScript(
      `const { TransformPool } = await load("src/tools/jscodeshift/pool.ts");
       const { nodeProcess } = await load("src/process-host.ts");
       const { existsSync } = await import("node:fs");
       const pool = new TransformPool([], nodeProcess());
       void pool.run({ file: ${JSON.stringify(path.join(root, "busy.cjs"))}, key: "busy" }, [{ rel: "a.js", read: async () => "x\\n" }], {}, { cwd: ${JSON.stringify(root)}, workers: 1 }, () => {});
       const until = () => (existsSync(${JSON.stringify(pidFile)}) ? process.exit(0) : setTimeout(until, 20));
       until();`,
    );
    const done = collect(child);
    await waitFor(() => existsSync(pidFile), 60_000, "the worker to start the transform");
    const worker = Number(readFileSync(pidFile, "utf8"));
    expect(worker).toBeGreaterThan(0);
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    const alive = () => {
      try {
        process.kill(worker, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await waitFor(() => !alive(), 10_000, "the worker to be gone");
    } finally {
      // A worker left spinning (the test failing) is not left to the machine.
      if (alive()) process.kill(worker, "SIGKILL");
    }
  });
});
