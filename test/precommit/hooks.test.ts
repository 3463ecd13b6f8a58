import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { gitdir, REPO_ROOT } from "../helpers/testdir.js";

interface Hook {
  id: string;
  entry: string;
  language: string;
  pass_filenames?: boolean;
  require_serial?: boolean;
}

// The package as pre-commit installs a `language: node` hook: `npm pack` of the repository, then
// `npm install -g` of the tarball into an isolated prefix. (`npm test` has just built dist/, so
// packing skips the prepack build; the install resolves dependencies from the npm cache.)
let prefix: string;
let hooks: Hook[];
beforeAll(async () => {
  prefix = await mkdtemp(path.join(tmpdir(), "tollgate-precommit-"));
  // prepack's lockfile copy without prepack's build (dist/ is built; other tests are using it).
  await execa(process.execPath, ["scripts/shrinkwrap.mjs"], { cwd: REPO_ROOT });
  try {
    await execa("npm", ["pack", "--ignore-scripts", "--pack-destination", prefix], { cwd: REPO_ROOT, stdin: "ignore", timeout: 60_000 });
  } finally {
    await execa(process.execPath, ["scripts/shrinkwrap.mjs", "--remove"], { cwd: REPO_ROOT });
  }
  const tgz = (await readdir(prefix)).find((f) => f.endsWith(".tgz"))!;
  await execa("npm", ["install", "-g", "--prefix", path.join(prefix, "env"), path.join(prefix, tgz), "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: prefix,
    stdin: "ignore", // npm waits on an open stdin pipe
    timeout: 100_000,
  });
  hooks = parse(await readFile(path.join(REPO_ROOT, ".pre-commit-hooks.yaml"), "utf8"));
  tarball = path.join(prefix, tgz);
}, 120_000);
let tarball: string;
afterAll(() => rm(prefix, { recursive: true, force: true }));

/** Runs a hook as pre-commit does: entry + args + file names, PRE_COMMIT=1, no TTY. */
async function runHook(id: string, args: string[], files: string[], cwd: string) {
  const hook = hooks.find((h) => h.id === id)!;
  const [bin, ...entryArgs] = hook.entry.split(" ");
  const r = await execa(path.join(prefix, "env/bin", bin!), [...entryArgs, ...args, ...files], {
    cwd,
    reject: false,
    stdin: "ignore",
    env: { PRE_COMMIT: "1", NO_COLOR: "1", GITHUB_ACTIONS: "" },
  });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const RECIPE = "version: 1\nsteps:\n  - tool: ast_edit\n    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: . }\n";

describe("the packed package", () => {
  it("needs no install-time build (no prepare/install scripts), ships dist, LICENSE and the schemas", async () => {
    const manifest = JSON.parse((await execa("tar", ["-xOzf", tarball, "package/package.json"])).stdout);
    for (const script of ["prepare", "preinstall", "install", "postinstall"]) expect(manifest.scripts?.[script], script).toBeUndefined();
    const files = (await execa("tar", ["-tzf", tarball])).stdout.split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package/LICENSE",
        "package/npm-shrinkwrap.json",
        "package/bin/tollgate.js",
        "package/bin/package.json",
        "package/dist/bundle/cli.cjs",
        "package/dist/index.d.ts",
        "package/schema/recipe.schema.json",
      ]),
    );
    // The launcher's code cache is written beside the bundle by runs, never shipped.
    expect(files.filter((f) => f.includes(".code-cache"))).toEqual([]);
    expect((await execa("tar", ["-xOzf", tarball, "package/LICENSE"])).stdout).toMatch(/^MIT License/);
  });
});

describe(".pre-commit-hooks.yaml, run from the installed package", () => {
  it("declares a check hook and an apply hook as pre-commit expects", () => {
    expect(hooks.map((h) => h.id)).toEqual(["tollgate-check", "tollgate-apply"]);
    for (const h of hooks) {
      expect(h).toMatchObject({ language: "node", pass_filenames: true, require_serial: true });
      expect(h.entry.startsWith("tollgate run ")).toBe(true);
    }
  });

  it("check: exit 1 when the recipe would change the given files, 0 when not; nothing written", async () => {
    const dir = await gitdir({
      "src/old.ts": "export const a = Effect.map(x, f);\n",
      "src/clean.ts": "export const b = Effect.andThen(y, g);\n",
      ".recipes/migrate.yaml": RECIPE,
    });
    const args = ["--recipe", ".recipes/migrate.yaml"];
    const clean = await runHook("tollgate-check", args, ["src/clean.ts"], dir);
    expect(clean.stderr).not.toMatch(/\n\s+at /);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toBe("");
    const dirty = await runHook("tollgate-check", args, ["src/clean.ts", "src/old.ts"], dir);
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain("-export const a = Effect.map(x, f);");
    expect((await execa("git", ["status", "--porcelain"], { cwd: dir })).stdout).toBe("");
  });

  it("apply: writes the change to the given files only (pre-commit then fails on the modification)", async () => {
    const dir = await gitdir({
      "src/one.ts": "Effect.map(x, f);\n",
      "src/two.ts": "Effect.map(y, g);\n",
      ".recipes/migrate.yaml": RECIPE,
    });
    const r = await runHook("tollgate-apply", ["--recipe", ".recipes/migrate.yaml"], ["src/one.ts"], dir);
    expect(r.code).toBe(0);
    expect(await readFile(path.join(dir, "src/one.ts"), "utf8")).toBe("Effect.andThen(x, f);\n");
    expect(await readFile(path.join(dir, "src/two.ts"), "utf8")).toBe("Effect.map(y, g);\n");
    expect((await execa("git", ["status", "--porcelain"], { cwd: dir })).stdout).toBe(" M src/one.ts");
  });

  it("a bad recipe is exit 2 with one clear line, no stack", async () => {
    const dir = await gitdir({ "bad.yaml": "version: 1\nsteps: [{ tool: nope }]\n", "a.ts": "x\n" });
    const r = await runHook("tollgate-check", ["--recipe", "bad.yaml"], ["a.ts"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("bad.yaml");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
