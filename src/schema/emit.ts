import { PolicySchema } from "../policy/schema.js";
import { RecipeSchema } from "../recipe/schema.js";

/** JSON Schema (draft-07 identifier, which yaml-language-server reads) from the TypeBox definitions. */
export function jsonSchema(which: "recipe" | "policy" | "report"): Record<string, unknown> {
  const schema = which === "recipe" ? RecipeSchema : which === "policy" ? PolicySchema : { type: "object" };
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `https://tollgate.dev/schema/${which}.schema.json`,
    ...JSON.parse(JSON.stringify(schema)),
  };
}
