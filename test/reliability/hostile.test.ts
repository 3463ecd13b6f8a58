import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/testdir.js";
import { cleanupTempDirs, snapshotTree, tempDir } from "../workspace/helpers.js";
import { HOSTILE } from "./hostile-cases.js";

afterAll(cleanupTempDirs);

describe.concurrent(`hostile input table (${HOSTILE.length} cases): one clear message, right exit code, no stack, no hang, nothing changed`, () => {
  for (const c of HOSTILE) {
    it(`[${c.area}] ${c.name}`, { timeout: (c.timeoutMs ?? 30_000) + 30_000 }, async () => {
      const dir = tempDir("tollgate-hostile-");
      const outside = tempDir("tollgate-hostile-out-");
      writeFileSync(path.join(dir, "a.txt"), "original\n");
      for (const [name, content] of Object.entries(c.files ?? {})) {
        mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        writeFileSync(path.join(dir, name), content);
      }
      await c.setup?.(dir);
      const before = snapshotTree(dir);
      const outsideBefore = snapshotTree(outside);
      const started = Date.now();
      const r = await execa(process.execPath, [CLI, ...c.args], {
        cwd: dir,
        reject: false,
        stdin: "ignore",
        env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "", TMPDIR: outside },
        timeout: c.timeoutMs ?? 30_000,
      });
      const stderr = String(r.stderr);
      const info = `exit ${r.exitCode} in ${Date.now() - started} ms\nstderr: ${stderr.slice(0, 2000)}\nstdout: ${String(r.stdout).slice(0, 500)}`;
      expect(r.timedOut, info).toBe(false);
      expect(r.exitCode, info).toBe(c.code);
      expect(stderr, info).not.toMatch(/\n\s+at .+:\d+/);
      expect(stderr, info).not.toMatch(/internal error/);
      expect(stderr, info).toMatch(c.message);
      expect(stderr.length, info).toBeLessThan(20_000);
      expect(snapshotTree(dir), info).toEqual(before);
      expect(snapshotTree(outside), info).toEqual(outsideBefore);
    });
  }
});
