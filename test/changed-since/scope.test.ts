import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { resolveChangedScope } from "../../src/changed/index.js";
import { InputError } from "../../src/errors.js";
import { scopeFiles, outsideScope } from "../../src/scope.js";
import { gitdir, testdir } from "../helpers/testdir.js";

const git = async (cwd: string, ...args: string[]) => (await execa("git", args, { cwd })).stdout;
const commitAll = async (cwd: string, message: string) => {
  await git(cwd, "add", "-A");
  await git(cwd, "commit", "-q", "-m", message);
};

const RECIPE = "version: 1\nsteps:\n  - tool: ast_grep\n    with: { pat: 'console.log($A)', lang: ts }\n";

/** A repository whose `feature` branch (checked out) differs from `main` in every way the scope must tell apart. */
async function branchedRepo(): Promise<string> {
  const dir = await gitdir({
    "recipe.yaml": RECIPE,
    "src/a.ts": "a();\n",
    "src/b.ts": "b();\n",
    "src/old.ts": "export const moved = 1;\n",
    "src/del.ts": "gone();\n",
    ".gitignore": "*.log\nignored/\n",
  });
  await git(dir, "checkout", "-q", "-b", "feature");
  await writeFile(path.join(dir, "src/a.ts"), "a(1);\n");
  await git(dir, "mv", "src/old.ts", "src/new.ts");
  await rm(path.join(dir, "src/del.ts"));
  await commitAll(dir, "feature");
  // Working-tree changes on top: untracked (kept), ignored (left out), an uncommitted edit.
  await writeFile(path.join(dir, "src/untracked.ts"), "u();\n");
  await writeFile(path.join(dir, "debug.log"), "x\n");
  await mkdir(path.join(dir, "ignored"));
  await writeFile(path.join(dir, "ignored/x.ts"), "x();\n");
  await writeFile(path.join(dir, "src/b.ts"), "b(2);\n");
  return dir;
}

describe("--changed-since scope", () => {
  it("lists modified, renamed (new path) and untracked files; leaves out deleted, ignored and unchanged ones", async () => {
    const dir = await branchedRepo();
    const scope = await resolveChangedScope({ cwd: dir, ref: "main", recipePath: path.join(dir, "recipe.yaml") });
    expect(scope.files).toEqual(["src/a.ts", "src/b.ts", "src/new.ts", "src/untracked.ts"]);
    expect(scope.base).toBe(await git(dir, "rev-parse", "main"));
  });

  it("compares against the merge-base: a change made on REF after the branch point is not in scope", async () => {
    const dir = await branchedRepo();
    const branchPoint = await git(dir, "rev-parse", "main");
    await git(dir, "stash", "-u", "-q");
    await git(dir, "checkout", "-q", "main");
    await writeFile(path.join(dir, "src/main-only.ts"), "m();\n");
    await commitAll(dir, "main moves on");
    await git(dir, "checkout", "-q", "feature");
    await git(dir, "stash", "pop", "-q");
    const scope = await resolveChangedScope({ cwd: dir, ref: "main", recipePath: path.join(dir, "recipe.yaml") });
    expect(scope.base).toBe(branchPoint);
    expect(scope.files).not.toContain("src/main-only.ts");
    expect(scope.files).toContain("src/a.ts");
  });

  it("leaves submodules out (an added one and a nested repository) but keeps .gitmodules", async () => {
    const sub = await gitdir({ "lib.ts": "lib();\n" });
    const dir = await gitdir({ "recipe.yaml": RECIPE, "a.ts": "a();\n" });
    await execa("git", ["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/sub"], { cwd: dir });
    await commitAll(dir, "submodule");
    await writeFile(path.join(dir, "vendor/sub/lib.ts"), "changed();\n");
    const nested = path.join(dir, "nested");
    await mkdir(nested);
    await git(nested, "init", "-q");
    await writeFile(path.join(nested, "n.ts"), "n();\n");
    const scope = await resolveChangedScope({ cwd: dir, ref: "HEAD~1", recipePath: path.join(dir, "recipe.yaml") });
    expect(scope.files).toEqual([".gitmodules"]);
  });

  it("gives paths relative to the workspace root and leaves out changes outside it", async () => {
    const dir = await branchedRepo();
    const scope = await resolveChangedScope({ cwd: path.join(dir, "src"), ref: "main", recipePath: path.join(dir, "recipe.yaml") });
    expect(scope.files).toEqual(["a.ts", "b.ts", "new.ts", "untracked.ts"]);
  });

  it("is empty (not the whole tree) when nothing changed", async () => {
    const dir = await gitdir({ "recipe.yaml": RECIPE, "a.ts": "a();\n" });
    const scope = await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath: path.join(dir, "recipe.yaml") });
    expect(scope.files).toEqual([]);
    expect(scopeFiles({ changed: scope })).toEqual([]);
    expect(outsideScope({ changed: scope }, "a.ts")).toMatch(/has not changed since HEAD/);
  });

  it("puts every file in scope when the recipe, the policy, a rule file or a custom tool module changed", async () => {
    const files = {
      "recipe.yaml": "version: 1\ntools: [tools/mine.ts]\nsteps:\n  - tool: ast_scan\n    with: { rules: [rules/] }\n",
      "policy.yaml": "default: dry-run\n",
      "rules/r.yml": "id: r\nlanguage: TypeScript\nrule: { pattern: a() }\n",
      "tools/mine.ts": "export default () => [];\n",
      "tools/helper.ts": "export const x = 1;\n",
      "src/a.ts": "a();\n",
    };
    const cases: Array<[string, string]> = [
      ["recipe.yaml", files["recipe.yaml"] + "# edited\n"],
      ["policy.yaml", "default: auto-apply\n"],
      ["rules/r.yml", files["rules/r.yml"] + "message: edited\n"],
      ["rules/new.yml", "id: n\nlanguage: TypeScript\nrule: { pattern: b() }\n"],
      ["tools/helper.ts", "export const x = 2;\n"],
    ];
    for (const [file, text] of cases) {
      const dir = await gitdir(files);
      await writeFile(path.join(dir, file), text);
      await writeFile(path.join(dir, "src/a.ts"), "a(1);\n");
      const scope = await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath: path.join(dir, "recipe.yaml"), policyPath: path.join(dir, "policy.yaml") });
      expect(scope.files, file).toBeNull();
      expect(scope.inputs, file).toContain(file);
      expect(scopeFiles({ changed: scope }), file).toBeUndefined();
    }
    // Only a source file changed: the scope stays narrow.
    const dir = await gitdir(files);
    await writeFile(path.join(dir, "src/a.ts"), "a(1);\n");
    const scope = await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath: path.join(dir, "recipe.yaml"), policyPath: path.join(dir, "policy.yaml") });
    expect(scope.files).toEqual(["src/a.ts"]);
  });

  it("sees an ast_scan sgconfig's rule and util directories and a jscodeshift transform as inputs", async () => {
    const files = {
      "recipe.yaml":
        "version: 1\nsteps:\n  - tool: ast_scan\n    with: { config: sgconfig.yml }\n  - tool: jscodeshift\n    with: { transform: codemods/t.js }\n",
      "sgconfig.yml": "ruleDirs: [lint/rules]\nutilDirs: [lint/utils]\n",
      "lint/rules/r.yml": "id: r\nlanguage: TypeScript\nrule: { pattern: a() }\n",
      "lint/utils/u.yml": "id: u\nlanguage: TypeScript\nrule: { kind: identifier }\n",
      "codemods/t.js": "module.exports = (f) => f.source;\n",
      "codemods/lib.js": "module.exports = 1;\n",
      "src/a.ts": "a();\n",
    };
    for (const file of ["sgconfig.yml", "lint/rules/r.yml", "lint/utils/u.yml", "codemods/t.js", "codemods/lib.js"]) {
      const dir = await gitdir(files);
      await writeFile(path.join(dir, file), `${files[file as keyof typeof files]}# edited\n`);
      const scope = await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath: path.join(dir, "recipe.yaml") });
      expect(scope.files, file).toBeNull();
    }
  });

  it("refuses an unknown REF and a tree outside git with a hint about fetch depth (exit 2)", async () => {
    const dir = await gitdir({ "recipe.yaml": RECIPE, "a.ts": "a();\n" });
    for (const ref of ["no-such-branch", "HEAD~5", "--output=x"]) {
      const err = await resolveChangedScope({ cwd: dir, ref, recipePath: path.join(dir, "recipe.yaml") }).catch((e: unknown) => e);
      expect(err, ref).toBeInstanceOf(InputError);
      expect((err as InputError).exitCode).toBe(2);
      expect((err as InputError).message).toContain(`--changed-since ${ref}`);
      expect((err as InputError).message).toMatch(/fetch-depth: 2.*HEAD\^1/s);
    }
    const plain = await testdir({ "recipe.yaml": RECIPE });
    const err = await resolveChangedScope({ cwd: plain, ref: "main", recipePath: path.join(plain, "recipe.yaml") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/not inside a git repository/);
  });

  it("lists a file renamed in the working tree (not staged) under its new path", async () => {
    const dir = await gitdir({ "recipe.yaml": RECIPE, "x.ts": "x();\n" });
    await rename(path.join(dir, "x.ts"), path.join(dir, "y.ts"));
    const scope = await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath: path.join(dir, "recipe.yaml") });
    expect(scope.files).toEqual(["y.ts"]);
  });

  it("intersects with the files named on the command line", async () => {
    const dir = await branchedRepo();
    const changed = await resolveChangedScope({ cwd: dir, ref: "main", recipePath: path.join(dir, "recipe.yaml") });
    expect(scopeFiles({ files: ["src/a.ts", "recipe.yaml"], changed })).toEqual(["src/a.ts"]);
    expect(outsideScope({ files: ["src/a.ts", "recipe.yaml"], changed }, "recipe.yaml")).toMatch(/has not changed/);
  });
  it("keeps non-ASCII and space-holding names as they are", async () => {
    const dir = await gitdir({ "recipe.yaml": RECIPE, "ü ber.ts": "u();\n" });
    await writeFile(path.join(dir, "ü ber.ts"), "u(1);\n");
    await writeFile(path.join(dir, "naïve file.ts"), "n();\n");
    const scope = await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath: path.join(dir, "recipe.yaml") });
    expect(scope.files).toEqual(["naïve file.ts", "ü ber.ts"].sort());
  });

  it("resolves a rule path given through a recipe variable (and its --var override)", async () => {
    const files = {
      "recipe.yaml": "version: 1\nvars: { rules: lint }\nsteps:\n  - tool: ast_scan\n    with: { rules: ['${{ vars.rules }}/'] }\n",
      "lint/r.yml": "id: r\nlanguage: TypeScript\nrule: { pattern: a() }\n",
      "other/r.yml": "id: r\nlanguage: TypeScript\nrule: { pattern: a() }\n",
    };
    const dir = await gitdir(files);
    await writeFile(path.join(dir, "other/r.yml"), `${files["other/r.yml"]}# edited\n`);
    const recipePath = path.join(dir, "recipe.yaml");
    expect((await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath })).files).toEqual(["other/r.yml"]);
    expect((await resolveChangedScope({ cwd: dir, ref: "HEAD", recipePath, vars: ["rules=other"] })).files).toBeNull();
  });
});
