import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { RollbackError, Workspace } from "../../src/workspace/workspace.js";
import { recover } from "../../src/workspace/recover.js";
import { cleanupTempDirs, faultyFs, snapshotTree, tempDir, writeTree } from "./helpers.js";
import { readFileSync, existsSync, statSync } from "node:fs";
import path from "node:path";

afterAll(cleanupTempDirs);

const name = fc.constantFrom("a.ts", "b.txt", "dir/c.ts", "dir/sub/d.md", "e", "ü-ñ.txt", "sp ace.js", "x/y/z/w.ts");
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ maxLength: 40 }).map((s) => `\uFEFF${s}`),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 5 }).map((l) => l.join("\r\n")),
  fc.constant(""),
);
const tree = fc.dictionary(name, fc.record({ content: text, mode: fc.constantFrom(0o644, 0o600, 0o755) }), { maxKeys: 6 });
const edits = fc.uniqueArray(fc.record({ path: name, content: fc.option(text, { nil: null }) }), { selector: (e) => e.path, maxLength: 6 });
const fault = fc.option(
  fc.record({
    failAt: fc.integer({ min: 1, max: 40 }),
    count: fc.constantFrom(1, 2, 3, Infinity),
    when: fc.constantFrom("before" as const, "after" as const, "partial" as const),
  }),
  { nil: undefined },
);

let cases = 0;
let faults = 0;

describe("property: random edit sets on random trees", () => {
  it("either exactly the staged content is written, or the tree is byte-identical", async () => {
    await fc.assert(
      fc.asyncProperty(tree, edits, fault, async (spec, edit, plan) => {
        cases++;
        const root = tempDir();
        // A file and a directory of the same name cannot both exist: skip such trees.
        const names = Object.keys(spec);
        if (names.some((a) => names.some((b) => b.startsWith(`${a}/`)))) return;
        writeTree(root, spec);
        const before = snapshotTree(root);
        const faulty = faultyFs(plan);
        const ws = new Workspace({ root, fs: faulty.fs, durableJournal: false });
        const usable = edit.filter((e) => !names.some((n) => n.startsWith(`${e.path}/`) || e.path.startsWith(`${n}/`)));
        let changes;
        try {
          changes = await ws.stage(usable);
        } catch {
          expect(snapshotTree(root)).toEqual(before);
          return;
        }
        let error: unknown;
        try {
          await ws.apply(changes);
        } catch (err) {
          error = err;
        }
        faults += faulty.failed;
        if (error === undefined) {
          for (const e of usable) {
            const abs = path.join(root, e.path);
            if (e.content === null) expect(existsSync(abs)).toBe(false);
            else {
              expect(readFileSync(abs, "utf8")).toBe(e.content);
              const old = spec[e.path];
              if (old) expect(statSync(abs).mode & 0o777).toBe(old.mode);
            }
          }
          for (const n of names) if (!usable.some((e) => e.path === n)) expect(readFileSync(path.join(root, n), "utf8")).toBe(spec[n]!.content);
        } else {
          if (error instanceof RollbackError) await recover(root);
          expect(snapshotTree(root)).toEqual(before);
        }
      }),
      { numRuns: 300 },
    );
    console.log(`property figures: ${cases} random cases, ${faults} faults injected`);
  });
});
