import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RunError } from "../../src/errors.js";
import { acquireLock, readLockInfo } from "../../src/workspace/lock.js";
import { cleanupTempDirs, collect, spawnScript, tempDir, waitFor } from "../workspace/helpers.js";
import { nodeProcess } from "../../src/process-host.js";

afterAll(cleanupTempDirs);

const host = nodeProcess();

function holder(root: string) {
  return spawnScript(
    `const { acquireLock } = await load("src/workspace/lock.ts");
     const { nodeProcess } = await load("src/process-host.ts");
     acquireLock(${JSON.stringify(root)}, nodeProcess(), { command: "tollgate run holder.yaml" });
     console.log("locked");
     setTimeout(() => {}, 60000);`,
  );
}

describe("one run per workspace (two processes)", () => {
  it("a second run fails at once naming the holder; after the holder is killed the stale lock is taken over", async () => {
    const root = tempDir();
    const child = holder(root);
    const done = collect(child);
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    await waitFor(() => out.includes("locked"), 20_000, "child to lock");
    const started = Date.now();
    let err: unknown;
    try {
      acquireLock(root, host);
    } catch (e) {
      err = e;
    }
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(RunError);
    expect((err as RunError).exitCode).toBe(3);
    expect((err as Error).message).toContain(`pid ${child.pid}`);
    expect((err as Error).message).toContain("tollgate run holder.yaml");
    expect((err as Error).message).toMatch(/locked by another tollgate run/);
    child.kill("SIGKILL");
    await done;
    expect(readLockInfo(root)?.pid).toBe(child.pid); // left behind by the killed process
    const lock = acquireLock(root, host);
    expect(readLockInfo(root)?.pid).toBe(process.pid);
    lock.release();
    expect(existsSync(path.join(root, ".tollgate/lock"))).toBe(false);
    expect(readFileSync(path.join(root, ".tollgate/.gitignore"), "utf8")).toContain("*");
  });

  // No timing assumptions: a file barrier starts the racers together once all are loaded, and
  // the winner holds the lock until every racer has tried (a winner that exited early would
  // free the lock and let a slow racer "win" too).
  it("several processes racing for one stale lock: exactly one wins", { timeout: 120_000 }, async () => {
    const root = tempDir();
    const barrier = tempDir("tollgate-barrier-");
    mkdirSync(path.join(root, ".tollgate"));
    writeFileSync(path.join(root, ".tollgate/lock"), JSON.stringify({ pid: 2 ** 22 + 7, hostname: (await import("node:os")).hostname(), startedAt: "then" }));
    const RACERS = 6;
    const outputs = Array.from({ length: RACERS }, () => ({ text: "" }));
    const racers = outputs.map((out, i) => {
      const child = spawnScript(
        `const { existsSync, writeFileSync } = await import("node:fs");
         const { acquireLock } = await load("src/workspace/lock.ts");
         const at = (f) => ${JSON.stringify(barrier)} + "/" + f;
         const until = async (f) => { while (!existsSync(at(f))) await new Promise((r) => setTimeout(r, 5)); };
         writeFileSync(at("ready-${i}"), "");
         await until("go");
         let lock;
         const { nodeProcess } = await load("src/process-host.ts");
         try { lock = acquireLock(${JSON.stringify(root)}, nodeProcess()); console.log("WON"); }
         catch (e) { console.log("LOST " + e.message); }
         if (lock) { await until("done"); lock.release(); }`,
      );
      child.stdout!.on("data", (d) => (out.text += d));
      return collect(child);
    });
    const { existsSync: exists } = await import("node:fs");
    await waitFor(() => outputs.every((_, i) => exists(path.join(barrier, `ready-${i}`))), 90_000, "all racers to load");
    writeFileSync(path.join(barrier, "go"), "");
    await waitFor(() => outputs.every((o) => /WON|LOST/.test(o.text)), 60_000, "every racer to try");
    writeFileSync(path.join(barrier, "done"), "");
    const results = await Promise.all(racers);
    const all = results.map((r) => r.stdout + r.stderr).join("\n");
    expect(
      results.every((r) => r.code === 0),
      all,
    ).toBe(true);
    expect(results.filter((r) => r.stdout.includes("WON")).length, all).toBe(1);
    expect(results.filter((r) => /LOST (Workspace is locked by another tollgate run|Could not take the workspace lock)/.test(r.stdout)).length, all).toBe(
      RACERS - 1,
    );
  });

  it("an unreadable lock file is treated as stale once it is not brand new; a symlinked .tollgate is refused", async () => {
    const root = tempDir();
    mkdirSync(path.join(root, ".tollgate"));
    writeFileSync(path.join(root, ".tollgate/lock"), "garbage");
    expect(() => acquireLock(root, host)).toThrow(/starting/);
    const { utimesSync, symlinkSync } = await import("node:fs");
    utimesSync(path.join(root, ".tollgate/lock"), new Date(0), new Date(0));
    acquireLock(root, host).release();
    const other = tempDir();
    const evil = tempDir();
    symlinkSync(evil, path.join(other, ".tollgate"));
    expect(() => acquireLock(other, host)).toThrow(/not a plain directory/);
  });

  it("a lock its process never released is gone once that process exits; a released one leaves no exit hook", async () => {
    const root = tempDir();
    const base = process.listenerCount("exit");
    acquireLock(root, host).release();
    expect(process.listenerCount("exit")).toBe(base);
    const r = await collect(
      spawnScript(
        `const { acquireLock } = await load("src/workspace/lock.ts");
         const { nodeProcess } = await load("src/process-host.ts");
         acquireLock(${JSON.stringify(root)}, nodeProcess());
         console.log((await import("node:fs")).existsSync(${JSON.stringify(path.join(root, ".tollgate/lock"))}) ? "held" : "missing");`,
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("held");
    expect(existsSync(path.join(root, ".tollgate/lock"))).toBe(false);
  });
});
