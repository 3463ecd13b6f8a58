import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { StaleError } from "../../src/errors.js";
import { testdir } from "../helpers/testdir.js";
import { makeHost } from "./helpers.js";

const read = (dir: string, rel: string) => readFileSync(path.join(dir, rel), "utf8");

describe("write", () => {
  it("stages a create with a diff, writes on apply", async () => {
    const dir = await testdir({});
    const t = makeHost(dir);
    const { text, details } = await t.call("write", { path: "src/new.ts", content: "export const x = 1\n" });
    expect(t.actions[0]!.label).toBe("Write: create src/new.ts");
    expect(t.actions[0]!.sourceToolName).toBe("write");
    expect(details).toEqual({ path: "src/new.ts", change: "created", bytes: 19 });
    expect(text).toContain("+export const x = 1");
    expect(text.split("\n")[0]).toBe("Write: create src/new.ts (19 bytes)");
    expect(text).toContain("no file has been modified yet");
    expect((await t.call("write", { path: "one.txt", content: "x" })).text.split("\n")[0]).toBe("Write: create one.txt (1 byte)");
    t.actions.pop();
    expect(existsSync(path.join(dir, "src/new.ts"))).toBe(false);
    expect((await t.actions[0]!.apply("r")).content[0]).toMatchObject({ text: "Created src/new.ts." });
    expect(read(dir, "src/new.ts")).toBe("export const x = 1\n");
  });

  it("overwrite keeps the mode; stale when the file changed; unchanged content pushes nothing", async () => {
    const dir = await testdir({ "a.sh": "echo 1\n", "same.txt": "x" });
    chmodSync(path.join(dir, "a.sh"), 0o755);
    const t = makeHost(dir);
    await t.call("write", { path: "a.sh", content: "echo 2\n" });
    expect(t.actions[0]!.label).toBe("Write: overwrite a.sh");
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.sh")).toBe("echo 2\n");
    expect(statSync(path.join(dir, "a.sh")).mode & 0o777).toBe(0o755);

    await t.call("write", { path: "a.sh", content: "echo 3\n" });
    writeFileSync(path.join(dir, "a.sh"), "echo changed\n");
    await expect(t.actions[1]!.apply("r")).rejects.toBeInstanceOf(StaleError);
    expect(read(dir, "a.sh")).toBe("echo changed\n");

    const { text } = await t.call("write", { path: "same.txt", content: "x" });
    expect(text).toBe("No changes: same.txt already has this content");
    expect(t.actions).toHaveLength(2);
  });

  it("refuses paths outside the workspace", async () => {
    const dir = await testdir({});
    const t = makeHost(dir);
    await expect(t.call("write", { path: "../escape.txt", content: "x" })).rejects.toThrow(/outside the workspace/);
    await expect(t.call("write", { path: "/tmp/escape.txt", content: "x" })).rejects.toThrow(/outside the workspace/);
  });

  it("an overwrite keeps the file's CRLF line endings and BOM; explicit CRLF content is taken as is", async () => {
    const dir = await testdir({});
    writeFileSync(path.join(dir, "w.txt"), "\uFEFFa\r\nb\r\n");
    writeFileSync(path.join(dir, "mixed.txt"), "a\r\nb\n");
    writeFileSync(path.join(dir, "lf.txt"), "a\nb\n");
    const t = makeHost(dir);
    await t.call("write", { path: "w.txt", content: "x\ny\n" });
    await t.call("write", { path: "mixed.txt", content: "x\ny\n" });
    await t.call("write", { path: "lf.txt", content: "x\r\ny\r\n" });
    for (const a of [...t.actions].reverse()) await a.apply("r");
    expect(read(dir, "w.txt")).toBe("\uFEFFx\r\ny\r\n");
    expect(read(dir, "mixed.txt")).toBe("x\ny\n");
    expect(read(dir, "lf.txt")).toBe("x\r\ny\r\n");
  });

  it("a directory, a path below a file, or a trailing slash is one clear error (no errno text)", async () => {
    const dir = await testdir({ "d/x.txt": "x\n", "f.txt": "x\n" });
    const t = makeHost(dir);
    await expect(t.call("write", { path: "d", content: "x" })).rejects.toThrow(/^Not a file: d is a directory$/);
    await expect(t.call("write", { path: "f.txt/sub.txt", content: "x" })).rejects.toThrow(/^Not a file path: f\.txt\/sub\.txt \(a parent of it is a file\)$/);
    await expect(t.call("write", { path: "newdir/", content: "x" })).rejects.toThrow(/^Not a file path: newdir\/$/);
    await expect(t.call("edit", { path: "d", oldText: "x", newText: "y" })).rejects.toThrow(/^Not a file: d is a directory$/);
    expect(t.actions).toHaveLength(0);
  });
});

describe("edit", () => {
  it("replaces a unique occurrence; label and applied text", async () => {
    const dir = await testdir({ "a.ts": "const a = 1\nconst b = 2\n" });
    const t = makeHost(dir);
    const { details } = await t.call("edit", { path: "a.ts", oldText: "const b = 2", newText: "const b = 3" });
    expect(details).toEqual({ path: "a.ts", replacements: 1 });
    expect(t.actions[0]!.label).toBe("Edit: 1 replacement in a.ts");
    expect(t.actions[0]!.replacements).toBe(1);
    expect((await t.actions[0]!.apply("r")).content[0]).toMatchObject({ text: "Applied 1 replacement in a.ts." });
    expect(read(dir, "a.ts")).toBe("const a = 1\nconst b = 3\n");
  });

  it("errors for zero or several occurrences (unless all: true)", async () => {
    const dir = await testdir({ "a.ts": "x\nx\n" });
    const t = makeHost(dir);
    await expect(t.call("edit", { path: "a.ts", oldText: "y", newText: "z" })).rejects.toThrow("oldText not found in a.ts");
    await expect(t.call("edit", { path: "a.ts", oldText: "x", newText: "z" })).rejects.toThrow(
      "oldText occurs 2 times in a.ts; make it unique or set `all: true`",
    );
    await expect(t.call("edit", { path: "missing.ts", oldText: "x", newText: "z" })).rejects.toThrow("File not found: missing.ts");
    await t.call("edit", { path: "a.ts", oldText: "x", newText: "z", all: true });
    expect(t.actions[0]!.label).toBe("Edit: 2 replacements in a.ts");
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("z\nz\n");
  });

  it("rebases onto unrelated changes, is stale when the pairs no longer hold, LIFO same-file edits both apply", async () => {
    const dir = await testdir({ "a.ts": "one\ntwo\n" });
    const t = makeHost(dir);
    await t.call("edit", { path: "a.ts", oldText: "one", newText: "ONE" });
    await t.call("edit", { path: "a.ts", oldText: "two", newText: "TWO" });
    await t.actions[1]!.apply("r");
    await t.actions[0]!.apply("r");
    expect(read(dir, "a.ts")).toBe("ONE\nTWO\n");

    await t.call("edit", { path: "a.ts", oldText: "ONE", newText: "1" });
    writeFileSync(path.join(dir, "a.ts"), "ONE\nONE\n"); // now ambiguous: stale
    await expect(t.actions[2]!.apply("r")).rejects.toBeInstanceOf(StaleError);
  });

  it("matches LF oldText in a CRLF file and keeps CRLF and BOM", async () => {
    const dir = await testdir({});
    writeFileSync(path.join(dir, "w.ts"), "\uFEFFa\r\nb\r\nc\r\n");
    const t = makeHost(dir);
    await t.call("edit", { path: "w.ts", oldText: "a\nb", newText: "A\nB" });
    await t.actions[0]!.apply("r");
    expect(read(dir, "w.ts")).toBe("\uFEFFA\r\nB\r\nc\r\n");
  });
});

describe("exec", () => {
  it("runs now (argv form) and returns output and exit code", async () => {
    const dir = await testdir({ "f.txt": "hello\n" });
    const t = makeHost(dir);
    const { text, details } = await t.call("exec", {
      command: process.execPath,
      args: ["-e", "process.stdout.write(require('fs').readFileSync('f.txt','utf8'))"],
    });
    expect(text).toContain("hello");
    expect(text).toMatch(/exit code 0$/);
    expect(details).toMatchObject({ code: 0, stdout: "hello\n", staged: false, shell: false, cwd: "." });
    expect(t.actions).toHaveLength(0);
  });

  it("a non-zero exit is an error; cwd is contained; env and shell work", async () => {
    const dir = await testdir({ "sub/x.txt": "" });
    const t = makeHost(dir);
    await expect(t.call("exec", { command: process.execPath, args: ["-e", "process.exit(3)"] })).rejects.toThrow(/exit code 3/);
    await expect(t.call("exec", { command: "ls", cwd: "../.." })).rejects.toThrow(/outside the workspace/);
    await expect(t.call("exec", { command: "ls", cwd: "nodir" })).rejects.toThrow(/^Working directory not found: nodir$/);
    await expect(t.call("exec", { command: "ls", cwd: "sub/x.txt", stage: true })).rejects.toThrow(/^Working directory is not a directory: sub\/x\.txt$/);
    expect(t.actions).toHaveLength(0);
    const { details } = await t.call("exec", {
      command: process.execPath,
      args: ["-e", "console.log(process.cwd().endsWith('sub'), process.env.TG_X)"],
      cwd: "sub",
      env: { TG_X: "yes" },
    });
    expect(details.stdout).toBe("true yes\n");
    const sh = await t.call("exec", { command: "echo $((1+2)) | tr 3 Z", shell: true });
    expect(sh.details.stdout).toBe("Z\n");
  });

  it("timeout kills the command", async () => {
    const dir = await testdir({});
    const t = makeHost(dir);
    await expect(t.call("exec", { command: process.execPath, args: ["-e", "setTimeout(() => {}, 10000)"], timeout: 200 })).rejects.toThrow(
      /killed \(timeout 200 ms\)/,
    );
  });

  it("stage: true pushes an action whose apply runs the command and throws on failure", async () => {
    const dir = await testdir({});
    const t = makeHost(dir);
    const { text } = await t.call("exec", { command: process.execPath, args: ["-e", "require('fs').writeFileSync('made.txt', 'x')"], stage: true });
    expect(text).toMatch(/^Staged: /);
    expect(existsSync(path.join(dir, "made.txt"))).toBe(false);
    expect(t.actions[0]!.label).toMatch(/^Exec: .*node.* -e /);
    expect(t.actions[0]!.sourceToolName).toBe("exec");
    await t.actions[0]!.apply("r");
    expect(existsSync(path.join(dir, "made.txt"))).toBe(true);
    await t.call("exec", { command: process.execPath, args: ["-e", "process.exit(2)"], stage: true });
    await expect(t.actions[1]!.apply("r")).rejects.toThrow(/Command failed: [\s\S]*exit code 2/);
  });
});
