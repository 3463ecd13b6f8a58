import { PolicySchema } from "../policy/schema.js";
import { RecipeSchema } from "../recipe/schema.js";
import { ReportSchema } from "../report/schema.js";

export const SCHEMAS = ["recipe", "policy", "report"] as const;
type SchemaName = (typeof SCHEMAS)[number];

/** JSON Schema (draft-07 identifier, which yaml-language-server reads) from the TypeBox definitions. */
function jsonSchema(which: SchemaName): Record<string, unknown> {
  const schema = which === "recipe" ? RecipeSchema : which === "policy" ? PolicySchema : ReportSchema;
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `https://tollgate.dev/schema/${which}.schema.json`,
    ...(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>),
  };
}

/** The exact text of `schema/<which>.schema.json` (what `npm run schema` writes, the drift test compares). */
export function schemaText(which: SchemaName): string {
  return `${JSON.stringify(jsonSchema(which), null, 2)}\n`;
}
