import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BlockedError } from "../../src/errors.js";
import { createFileAction } from "../../src/workspace/action.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { cleanupTempDirs, snapshotTree, tempDir, writeTree } from "./helpers.js";
import type { FileChange } from "../../src/domain/types.js";

afterAll(cleanupTempDirs);

/** A workspace with every kind of way out planted in it, and a secret outside. */
function hostileTree() {
  const outside = tempDir("tollgate-outside-");
  writeFileSync(path.join(outside, "secret.txt"), "top secret\n");
  const root = tempDir();
  writeTree(root, {
    "src/ok.ts": "ok\n",
    ".git/config": "[core]\n",
    "sub/.git/HEAD": "ref\n",
    "vendor/lib.js": "lib\n",
    "secrets/key.pem": "KEY\n",
  });
  symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link-out.txt"));
  symlinkSync(outside, path.join(root, "dir-out"));
  symlinkSync(path.join(outside, "missing.txt"), path.join(root, "dangling.txt"));
  symlinkSync(path.join(root, "src"), path.join(root, "src-alias"));
  symlinkSync(path.join(root, ".git"), path.join(root, "git-alias"));
  symlinkSync("/", path.join(root, "rootlink"));
  mkdirSync(path.join(root, "nested"));
  symlinkSync("../../", path.join(root, "nested/up"));
  return { root, outside };
}

// [path, why it must be refused]
const REFUSED: Array<[string, RegExp]> = [
  ["../escape.txt", /outside the workspace/],
  ["src/../../escape.txt", /outside the workspace/],
  ["/etc/passwd", /outside the workspace/],
  ["..", /outside the workspace/],
  ["link-out.txt", /resolves outside/],
  ["dir-out/secret.txt", /resolves outside/],
  ["dir-out/new-file.txt", /resolves outside/],
  ["dangling.txt", /dangling symlink/],
  ["rootlink/etc/hosts", /resolves outside/],
  ["nested/up/escape.txt", /resolves outside/],
  ["a\0b.txt", /NUL byte/],
  ["", /empty/],
  [".", /workspace root/],
  ["src/..", /workspace root/],
];

// Inside, but protected: always (.git/.tollgate at any depth, any case) or by policy globs.
const PROTECTED = [
  ".git/config",
  ".GIT/config",
  ".Git/hooks/pre-commit",
  ".git./config",
  "sub/.git/HEAD",
  ".git",
  ".tollgate/journal.json",
  ".TOLLGATE/lock",
  "git-alias/config",
  "vendor/lib.js",
  "secrets/key.pem",
];

const ALLOWED = ["src/ok.ts", "src/new.ts", "src-alias/ok.ts", "./src/ok.ts", "deep/new/dir/file.ts", ".github/workflows/x.yml", ".gitignore"];

describe("containment table", () => {
  for (const [p, why] of REFUSED) {
    it(`refuses ${JSON.stringify(p)} at stage, apply and read`, async () => {
      const { root } = hostileTree();
      const before = snapshotTree(root);
      const ws = new Workspace({ root });
      await expect(ws.stage([{ path: p, content: "pwned\n" }])).rejects.toThrow(why);
      await expect(ws.stage([{ path: p, content: "pwned\n" }])).rejects.toBeInstanceOf(BlockedError);
      await expect(ws.read(p)).rejects.toBeInstanceOf(BlockedError);
      // A change forged past staging (a custom tool building FileChanges by hand) is refused too.
      const forged: FileChange[] = [
        {
          path: p,
          kind: "created",
          beforeSha256: null,
          afterSha256: null,
          edits: [{ start: 0, end: 0, text: "pwned\n" }],
          additions: 1,
          deletions: 0,
          diff: { bytes: 0, text: () => "" },
        },
      ];
      await expect(ws.apply(forged)).rejects.toBeInstanceOf(BlockedError);
      const action = createFileAction(ws, { label: "Forged: x", sourceToolName: "custom_tool", changes: forged });
      await expect(action.apply("test")).rejects.toBeInstanceOf(BlockedError);
      expect(snapshotTree(root)).toEqual(before);
    });
  }

  for (const p of PROTECTED) {
    it(`never writes protected ${p}`, async () => {
      const { root } = hostileTree();
      const before = snapshotTree(root);
      const ws = new Workspace({ root, protect: ["vendor/**", "SECRETS/**"], caseInsensitive: true });
      const forged: FileChange[] = [
        {
          path: p,
          kind: "created",
          beforeSha256: null,
          afterSha256: null,
          edits: [{ start: 0, end: 0, text: "pwned\n" }],
          additions: 1,
          deletions: 0,
          diff: { bytes: 0, text: () => "" },
        },
      ];
      await expect(ws.apply(forged)).rejects.toThrow(/protected/);
      await expect(ws.apply(forged)).rejects.toBeInstanceOf(BlockedError);
      expect(snapshotTree(root)).toEqual(before);
    });
  }

  for (const p of ALLOWED) {
    it(`allows ${p}`, async () => {
      const { root } = hostileTree();
      const ws = new Workspace({ root, protect: ["vendor/**"] });
      const changes = await ws.stage([{ path: p, content: "fine\n" }]);
      await ws.apply(changes);
      expect((await ws.read(p)).text).toBe("fine\n");
    });
  }

  it("writes through an in-workspace symlink to its target and keeps the link", async () => {
    const { root } = hostileTree();
    const ws = new Workspace({ root });
    await ws.apply(await ws.stage([{ path: "src-alias/ok.ts", content: "via alias\n" }]));
    expect((await ws.read("src/ok.ts")).text).toBe("via alias\n");
    expect(snapshotTree(root)["src-alias"]).toBe("symlink");
  });

  it("protect globs match case-insensitively on case-insensitive filesystems", () => {
    const { root } = hostileTree();
    const ci = new Workspace({ root, protect: ["secrets/**"], caseInsensitive: true });
    expect(() => ci.assertWritable([{ path: "SECRETS/key.pem" }])).toThrow(BlockedError);
    const cs = new Workspace({ root, protect: ["secrets/**"], caseInsensitive: false });
    expect(() => cs.assertWritable([{ path: "SECRETS/key.pem" }])).not.toThrow();
  });
});
