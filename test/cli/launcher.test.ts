// The launcher (bin/tollgate.js) over a copy of the built package: its V8 code cache changes how
// fast a command starts, never what it answers. Needs `npm run build` (dist/bundle/cli.cjs).
import { copyFile, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";

const RECIPE = `version: 1
name: launcher
steps:
  - tool: ast_edit
    with:
      ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }]
      lang: ts
      path: src
`;

/** A copy of the package (launcher, bundle, package.json; node_modules linked) and a work tree. */
async function install() {
  const root = await testdir({ "work/recipe.yaml": RECIPE, "work/src/a.ts": 'import { Effect } from "effect"\nexport const a = Effect.map(x, f)\n' });
  const pkg = path.join(root, "pkg");
  await mkdir(path.join(pkg, "bin"), { recursive: true });
  await mkdir(path.join(pkg, "dist", "bundle"), { recursive: true });
  for (const file of await readdir(path.join(REPO_ROOT, "bin"))) await copyFile(path.join(REPO_ROOT, "bin", file), path.join(pkg, "bin", file));
  await copyFile(path.join(REPO_ROOT, "dist", "bundle", "cli.cjs"), path.join(pkg, "dist", "bundle", "cli.cjs"));
  await copyFile(path.join(REPO_ROOT, "package.json"), path.join(pkg, "package.json"));
  await symlink(path.join(REPO_ROOT, "node_modules"), path.join(pkg, "node_modules"));
  const cacheDir = path.join(pkg, "dist", "bundle", ".code-cache");
  const run = async (args = ["run", "recipe.yaml", "src/a.ts", "--check"], env: Record<string, string> = {}) => {
    const r = await execa(process.execPath, [path.join(pkg, "bin", "tollgate.js"), ...args], {
      cwd: path.join(root, "work"),
      reject: false,
      stdin: "ignore",
      env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "", ...env },
    });
    return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  };
  const cacheFiles = async () => (await readdir(cacheDir).catch(() => [] as string[])).sort();
  return { pkg, cacheDir, run, cacheFiles };
}

describe("the launcher's code cache", () => {
  it("the first run of a command writes its cache, later runs use it unchanged and answer the same", async () => {
    const { cacheDir, run, cacheFiles } = await install();
    const first = await run();
    expect(first.code).toBe(1);
    expect(first.stderr).toContain("+export const a = Effect.andThen(x, f)");
    const files = await cacheFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/-run\.bin$/);
    const written = await readFile(path.join(cacheDir, files[0]!));
    const before = await stat(path.join(cacheDir, files[0]!));
    expect(await run()).toEqual(first);
    // Accepted by V8, so not written again.
    expect((await stat(path.join(cacheDir, files[0]!))).mtimeMs).toBe(before.mtimeMs);
    expect(await readFile(path.join(cacheDir, files[0]!))).toEqual(written);
    // Another command gets a file of its own.
    expect((await run(["tools"])).code).toBe(0);
    expect((await cacheFiles()).filter((f) => f.endsWith("-tools.bin"))).toHaveLength(1);
  });

  it("only a run that got through writes the command's cache; --help has a file of its own", async () => {
    const { run, cacheFiles } = await install();
    expect((await run(["run", "missing.yaml"])).code).toBe(2);
    expect(await cacheFiles()).toEqual([]);
    expect((await run(["run", "--help"])).code).toBe(0);
    expect(await cacheFiles()).toEqual([expect.stringMatching(/-run-help\.bin$/)]);
    expect((await run()).code).toBe(1);
    expect((await cacheFiles()).filter((f) => f.endsWith("-run.bin"))).toHaveLength(1);
  });

  it("a corrupt cache file is refused, the answer is the same, and the file is replaced", async () => {
    const { cacheDir, run, cacheFiles } = await install();
    const plain = await run(undefined, { TOLLGATE_CODE_CACHE: "0" });
    const first = await run();
    const [file] = await cacheFiles();
    const garbage = Buffer.from("not a V8 code cache".repeat(100));
    await writeFile(path.join(cacheDir, file!), garbage);
    expect(await run()).toEqual(plain);
    expect(first).toEqual(plain);
    expect(await readFile(path.join(cacheDir, file!))).not.toEqual(garbage);
  });

  it("without a writable cache directory, or with TOLLGATE_CODE_CACHE=0, a run answers the same and writes nothing", async () => {
    const { pkg, cacheDir, run, cacheFiles } = await install();
    const off = await run(undefined, { TOLLGATE_CODE_CACHE: "0" });
    expect(off.code).toBe(1);
    expect(await cacheFiles()).toEqual([]);
    await rm(cacheDir, { recursive: true, force: true });
    // A plain file where the directory would be: no directory can be made there, root or not.
    await writeFile(cacheDir, "");
    expect(await run()).toEqual(off);
    expect((await stat(cacheDir)).isFile()).toBe(true);
    expect(await readdir(path.join(pkg, "dist", "bundle"))).toEqual([".code-cache", "cli.cjs"]);
  });

  it("--version answers from package.json without the bundle", async () => {
    const { pkg, run } = await install();
    const version = (JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
    await rm(path.join(pkg, "dist", "bundle", "cli.cjs"));
    expect(await run(["--version"])).toEqual({ code: 0, stdout: version, stderr: "" });
  });
});
