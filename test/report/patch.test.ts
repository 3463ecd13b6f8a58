import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { combinePreviews, type Preview } from "../../src/report/patch.js";
import { memorySpill } from "../../src/spill/store.js";
import { sha256 } from "../../src/util/hash.js";
import { buildChange, editBetween } from "../../src/workspace/change.js";
import { gitdir } from "../helpers/testdir.js";

/** A preview as the runner keeps one: edits, hashes and a diff, built from the texts. */
function preview(id: string, changes: Array<{ path: string; before: string | null; after: string | null }>): Preview {
  const spill = memorySpill();
  return {
    id,
    files: changes.map((c) =>
      buildChange(spill, {
        path: c.path,
        before: c.before,
        beforeSha256: c.before === null ? null : sha256(c.before),
        after: c.after,
        edits: c.after === null ? [] : c.before === null ? [{ start: 0, end: 0, text: c.after }] : editBetween(c.before, c.after),
      }),
    ),
  };
}

async function gitApply(dir: string, patch: string, check = true) {
  await writeFile(path.join(dir, "x.patch"), patch);
  return execa("git", ["apply", ...(check ? ["--check"] : []), "x.patch"], { cwd: dir, reject: false });
}

describe("combinePreviews (--patch)", () => {
  it("writes create, delete, no trailing newline and non-ASCII names as one patch git applies", async () => {
    const dir = await gitdir({ "gone.txt": "bye\n", "noeol.txt": "a\nb", "ünï cødé.ts": "x\n" });
    const current = (p: string) => ({ "gone.txt": "bye\n", "noeol.txt": "a\nb", "ünï cødé.ts": "x\n" })[p] ?? null;
    const { patch, skipped } = await combinePreviews(
      [
        preview("s#1", [{ path: "new/dir/created.txt", before: null, after: "hello\nno newline" }]),
        preview("s#2", [{ path: "gone.txt", before: "bye\n", after: null }]),
        preview("t#1", [
          { path: "noeol.txt", before: "a\nb", after: "a\nc" },
          { path: "ünï cødé.ts", before: "x\n", after: "y\n" },
        ]),
      ],
      current,
    );
    expect(skipped).toEqual([]);
    expect((await gitApply(dir, patch)).exitCode).toBe(0);
    expect((await gitApply(dir, patch, false)).exitCode).toBe(0);
    expect(await readFile(path.join(dir, "new/dir/created.txt"), "utf8")).toBe("hello\nno newline");
    expect(await readFile(path.join(dir, "noeol.txt"), "utf8")).toBe("a\nc");
    expect(await readFile(path.join(dir, "ünï cødé.ts"), "utf8")).toBe("y\n");
    await expect(readFile(path.join(dir, "gone.txt"), "utf8")).rejects.toThrow();
  });

  it("two previews of one file staged against the same original combine when independent", async () => {
    const original = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const dir = await gitdir({ "f.txt": original });
    const first = original.replace("line 2\n", "LINE 2\n");
    const second = original.replace("line 17\n", "LINE 17\n");
    const { patch, skipped } = await combinePreviews(
      [preview("a#1", [{ path: "f.txt", before: original, after: first }]), preview("b#1", [{ path: "f.txt", before: original, after: second }])],
      () => original,
    );
    expect(skipped).toEqual([]);
    expect((await gitApply(dir, patch, false)).exitCode).toBe(0);
    expect(await readFile(path.join(dir, "f.txt"), "utf8")).toBe(original.replace("line 2\n", "LINE 2\n").replace("line 17\n", "LINE 17\n"));
  });

  it("a conflicting preview of the same lines is left out and named, the rest still applies", async () => {
    const dir = await gitdir({ "f.txt": "one\n" });
    const { patch, skipped } = await combinePreviews(
      [preview("a#1", [{ path: "f.txt", before: "one\n", after: "two\n" }]), preview("b#1", [{ path: "f.txt", before: "one\n", after: "three\n" }])],
      () => "one\n",
    );
    expect(skipped).toEqual([{ id: "b#1", path: "f.txt" }]);
    expect((await gitApply(dir, patch, false)).exitCode).toBe(0);
    expect(await readFile(path.join(dir, "f.txt"), "utf8")).toBe("two\n");
  });

  it("is computed against the file as it is now (after applied actions), not the staged original", async () => {
    const { patch } = await combinePreviews([preview("a#1", [{ path: "f.txt", before: "a\nb\nc\nd\n", after: "a\nb\nc\nD\n" }])], () => "A\nb\nc\nd\n");
    expect(patch).toContain("-A\n b\n c\n-d\n+D\n".replace("-A\n", " A\n"));
  });

  it("no previews: an empty patch", async () => {
    expect(await combinePreviews([], () => null)).toEqual({ patch: "", skipped: [] });
  });
});
