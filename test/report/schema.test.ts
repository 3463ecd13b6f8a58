import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PolicySchema } from "../../src/policy/schema.js";
import { RecipeSchema } from "../../src/recipe/schema.js";
import { SCHEMAS, schemaText } from "../../src/schema/emit.js";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

describe("JSON Schemas (schema/*.schema.json)", () => {
  it.each(SCHEMAS)("schema/%s.schema.json matches the TypeBox definition (run `npm run schema` after a change)", async (which) => {
    const committed = await readFile(path.join(REPO_ROOT, "schema", `${which}.schema.json`), "utf8");
    expect(committed).toBe(schemaText(which));
  });

  it("every recipe and policy in recipes/ carries the schema modeline and validates against the emitted JSON", async () => {
    // The committed JSON is the TypeBox definition (drift test above), so checking with it is checking with the file.
    const recipeSchema = RecipeSchema;
    const policySchema = PolicySchema;
    const files = [
      ...(await readdir(path.join(REPO_ROOT, "recipes"))).filter((f) => f.endsWith(".yaml")).map((f) => `recipes/${f}`),
      ...(await readdir(path.join(REPO_ROOT, "recipes/policies"))).map((f) => `recipes/policies/${f}`),
    ];
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) {
      const text = await readFile(path.join(REPO_ROOT, file), "utf8");
      const isPolicy = file.includes("policies/");
      expect(text.split("\n")[0], file).toBe(
        `# yaml-language-server: $schema=${isPolicy ? "../../" : "../"}schema/${isPolicy ? "policy" : "recipe"}.schema.json`,
      );
      expect(isPolicy ? Value.Check(policySchema, parse(text)) : Value.Check(recipeSchema, parse(text)), file).toBe(true);
    }
    expect(Value.Check(recipeSchema, { version: 1, steps: [{ tool: "x", typo: 1 }] })).toBe(false);
  });

  it("`tollgate schema <which>` prints exactly the shipped file; package.json ships schema/", async () => {
    const dir = await testdir();
    for (const which of SCHEMAS) {
      const r = await tollgate(["schema", which], { cwd: dir });
      expect(r.code).toBe(0);
      // (execa strips the final newline)
      expect(`${r.stdout}\n`).toBe(await readFile(path.join(REPO_ROOT, "schema", `${which}.schema.json`), "utf8"));
    }
    const tools = await tollgate(["tools", "--json"], { cwd: dir });
    expect(tools.code).toBe(0);
    const astEdit = (JSON.parse(tools.stdout) as Array<{ name: string; deferrable: boolean; parameters: { required?: string[] } }>).find(
      (t) => t.name === "ast_edit",
    );
    expect(astEdit).toMatchObject({ deferrable: true, parameters: { required: ["ops"] } });
    const bad = await tollgate(["schema", "nope"], { cwd: dir });
    expect(bad.code).toBe(2);
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8"));
    expect(pkg.files).toContain("schema");
  });
});
