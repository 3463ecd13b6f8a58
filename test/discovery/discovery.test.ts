import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { discoverFiles, shardOf } from "../../src/discovery/index.js";
import { gitdir, testdir } from "../helpers/testdir.js";

const rels = async (root: string, opts: Partial<Parameters<typeof discoverFiles>[0]> = {}) => (await discoverFiles({ root, ...opts })).files.map((f) => f.rel);

describe("discovery", () => {
  it("git work tree: tracked + untracked-not-ignored, nested .gitignore, info/exclude, deleted-but-tracked skipped", async () => {
    const dir = await gitdir({ ".gitignore": "*.log\n", "a.ts": "", "sub/.gitignore": "gen/\n", "sub/gen/x.ts": "", "sub/b.ts": "", "gone.ts": "" });
    writeFileSync(path.join(dir, "new.ts"), "");
    writeFileSync(path.join(dir, "debug.log"), "");
    writeFileSync(path.join(dir, ".git/info/exclude"), "secret.ts\n");
    writeFileSync(path.join(dir, "secret.ts"), "");
    rmSync(path.join(dir, "gone.ts"));
    mkdirSync(path.join(dir, "node_modules/m"), { recursive: true });
    writeFileSync(path.join(dir, "node_modules/m/i.ts"), "");
    const d = await discoverFiles({ root: dir });
    expect(d.source).toBe("git");
    expect(d.files.map((f) => f.rel)).toEqual([".gitignore", "a.ts", "new.ts", "sub/.gitignore", "sub/b.ts"]);
  });

  it("a tracked file stays listed even if it matches .gitignore (git's semantics)", async () => {
    const dir = await gitdir({ "keep.gen.ts": "" });
    writeFileSync(path.join(dir, ".gitignore"), "*.gen.ts\n");
    expect(await rels(dir)).toEqual([".gitignore", "keep.gen.ts"]);
  });

  it("outside git: nested .gitignore files, negation, ignored directories pruned, symlinks not followed", async () => {
    const dir = await testdir({
      ".gitignore": "build/\n*.tmp\n!keep.tmp\n",
      "src/a.ts": "",
      "src/x.tmp": "",
      "src/keep.tmp": "",
      "build/out.ts": "",
      "src/.gitignore": "local/\n",
      "src/local/l.ts": "",
      ".tollgate/state": "",
      ".git/HEAD": "",
    });
    symlinkSync(path.join(dir, "src"), path.join(dir, "link"));
    const d = await discoverFiles({ root: dir });
    expect(d.source).toBe("walk");
    expect(d.files.map((f) => f.rel)).toEqual([".gitignore", "src/.gitignore", "src/a.ts", "src/keep.tmp"]);
    // a sub-directory scope still honours the root .gitignore
    expect(await rels(dir, { path: "src" })).toEqual(["src/.gitignore", "src/a.ts", "src/keep.tmp"]);
  });

  it("path: file, directory, glob, comma list; glob filter relative to path; sorted", async () => {
    const dir = await testdir({ "src/b.ts": "", "src/a.ts": "", "src/d/c.ts": "", "src/d/c.js": "", "test/t.ts": "", "z.md": "" });
    expect(await rels(dir, { path: "src/d/c.ts" })).toEqual(["src/d/c.ts"]);
    expect(await rels(dir, { path: "src" })).toEqual(["src/a.ts", "src/b.ts", "src/d/c.js", "src/d/c.ts"]);
    expect(await rels(dir, { path: "src/**/*.ts" })).toEqual(["src/a.ts", "src/b.ts", "src/d/c.ts"]);
    expect(await rels(dir, { path: "src/d, test" })).toEqual(["src/d/c.js", "src/d/c.ts", "test/t.ts"]);
    expect(await rels(dir, { path: "src", glob: "*.js" })).toEqual(["src/d/c.js"]);
    expect(await rels(dir, { path: "src", glob: "d/*" })).toEqual(["src/d/c.js", "src/d/c.ts"]);
    const d = await discoverFiles({ root: dir, path: "src" });
    expect(d.scopePath).toBe("src");
    expect(d.baseDir).toBe("src");
  });

  it("errors: missing path, escapes refused", async () => {
    const dir = await testdir({ "a.ts": "" });
    await expect(discoverFiles({ root: dir, path: "nope" })).rejects.toThrow("Path not found: nope");
    await expect(discoverFiles({ root: dir, path: "../" })).rejects.toThrow(/outside the workspace/);
    await expect(discoverFiles({ root: dir, path: "/" })).rejects.toThrow(/outside the workspace/);
    const outside = await testdir({ "o.ts": "" });
    symlinkSync(outside, path.join(dir, "out"));
    await expect(discoverFiles({ root: dir, path: "out" })).rejects.toThrow(/outside the workspace/);
  });

  it("scope: positional files only (inside the path), shards partition independently of order", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`d/f${i}.ts`] = "";
    const dir = await testdir(files);
    expect(await rels(dir, { scope: { files: ["d/f2.ts", "./d/f1.ts", "nope.ts", "../x.ts"] } })).toEqual(["d/f1.ts", "d/f2.ts"]);
    expect(await rels(dir, { path: "e", scope: { files: ["d/f2.ts"] } }).catch((e) => e.message)).toBe("Path not found: e");
    const parts = await Promise.all([1, 2, 3, 4].map((index) => rels(dir, { scope: { shard: { index, count: 4 } } })));
    expect(parts.flat().sort()).toEqual(Object.keys(files).sort());
    expect(parts.every((p) => p.length > 0)).toBe(true);
    const reordered = await rels(dir, { scope: { files: [...Object.keys(files)].reverse(), shard: { index: 2, count: 4 } } });
    expect(reordered).toEqual(parts[1]);
  });

  it("a file's shard is pinned: the same path lands in the same shard in every version (golden values for 2, 3, 4 and 7 shards)", () => {
    const golden: Record<string, number[]> = {
      "d/f1.ts": [1, 3, 1, 1],
      "src/index.ts": [1, 2, 3, 2],
      "src/a/b.tsx": [2, 2, 4, 7],
      "README.md": [2, 2, 4, 6],
      "lib/日本.ts": [1, 2, 3, 6],
    };
    for (const [rel, shards] of Object.entries(golden))
      expect(
        [2, 3, 4, 7].map((count) => shardOf(rel, count)),
        rel,
      ).toEqual(shards);
  });

  it("a workspace that is a sub-directory of a git repository lists paths relative to itself", async () => {
    const dir = await gitdir({ "pkg/a.ts": "", "pkg/ignored.ts": "", "other/b.ts": "", ".gitignore": "ignored.ts\n" });
    await execa("git", ["status"], { cwd: dir });
    expect(await rels(path.join(dir, "pkg"))).toEqual(["a.ts"]);
  });
});
