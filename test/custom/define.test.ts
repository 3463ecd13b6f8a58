import { copyFile, mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

// Type-level tests: tsc compiles tool modules in a project that has tollgate installed (a symlink
// to this checkout, whose dist/ `npm test` has built), as a user's project type-checks its tools.
// The fixtures are .ts.txt so the repository's own typecheck does not compile the failing one.
const TSC = path.join(REPO_ROOT, "node_modules/.bin/tsc");

async function project(fixture: string): Promise<string> {
  const dir = await testdir({
    "package.json": '{ "type": "module" }\n',
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true, types: [] },
      files: ["tool.ts"],
    }),
  });
  await mkdir(path.join(dir, "node_modules/@sinclair"), { recursive: true });
  await symlink(REPO_ROOT, path.join(dir, "node_modules/tollgate"));
  await symlink(path.join(REPO_ROOT, "node_modules/@sinclair/typebox"), path.join(dir, "node_modules/@sinclair/typebox"));
  await copyFile(path.join(import.meta.dirname, "fixtures", fixture), path.join(dir, "tool.ts"));
  return dir;
}

describe("defineTool: params typed by the tool's parameters", () => {
  it("compiles: params are Static<typeof parameters> in both forms (@ts-expect-error marks what must fail); CustomToolFactory stays loose", async () => {
    const dir = await project("typed-tools.ts.txt");
    const r = await execa(TSC, ["-p", "."], { cwd: dir, reject: false });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  }, 60_000);

  it("rejects a typed param used as the wrong type", async () => {
    const dir = await project("wrong-params.ts.txt");
    const r = await execa(TSC, ["-p", "."], { cwd: dir, reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toContain("tool.ts(8,11): error TS2322: Type 'string[]' is not assignable to type 'number'.");
  }, 60_000);

  it("runs: a defineTool module (schema-first form) loads and stages like any factory", async () => {
    const dir = await testdir({ "a.txt": "x\n", "recipe.yaml": "version: 1\ntools: [./tool.ts]\nsteps:\n  - { tool: shout, with: { file: a.txt } }\n" });
    await writeFile(
      path.join(dir, "tool.ts"),
      `import { Type } from "@sinclair/typebox";
import { defineTool } from "tollgate";
export default defineTool(Type.Object({ file: Type.String() }), (pi) => ({
  name: "shout", label: "Shout", description: "Upper-cases a file", deferrable: true,
  async execute(_id, params) {
    const text = await pi.files.read(params.file);
    await pi.files.stage({ label: "Shout: " + params.file, changes: [{ path: params.file, content: text.toUpperCase() }] });
    return { content: [{ type: "text", text: "staged" }] };
  },
}));
`,
    );
    const tools = await tollgate(["tools", "recipe.yaml", "--json"], { cwd: dir });
    expect(JSON.parse(tools.stdout).find((t: { name: string }) => t.name === "shout").parameters.properties.file.type).toBe("string");
    const r = await tollgate(["run", "recipe.yaml", "--mode", "auto-apply"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Accept: a.txt [Shout]");
  });
});
