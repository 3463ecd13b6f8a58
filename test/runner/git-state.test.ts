import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitState } from "../../src/git.js";
import { gitdir, testdir } from "../helpers/testdir.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

describe("the tree a run starts from (report's git fields)", () => {
  it("names HEAD and whether tracked files differ from it, as git itself says", async () => {
    const dir = await gitdir({ "a.ts": "export const a = 1\n" });
    const head = git(dir, "rev-parse", "HEAD");
    expect(await gitState(dir, {})).toEqual({ head, dirty: false });
    await writeFile(path.join(dir, "new.ts"), "untracked\n");
    expect(await gitState(dir, {})).toEqual({ head, dirty: false }); // untracked files do not count
    await writeFile(path.join(dir, "a.ts"), "export const a = 2\n");
    expect(await gitState(dir, {})).toEqual({ head, dirty: true });
    git(dir, "add", "a.ts");
    expect(await gitState(dir, {})).toEqual({ head, dirty: true }); // staged but not committed
  });

  it("has no HEAD before the first commit, and nothing outside a work tree", async () => {
    const outside = await testdir({ "a.ts": "x\n" });
    expect(await gitState(outside, {})).toEqual({ head: null, dirty: null });
    git(outside, "init", "-q");
    git(outside, "add", "a.ts");
    expect(await gitState(outside, {})).toEqual({ head: null, dirty: null });
  });
});
