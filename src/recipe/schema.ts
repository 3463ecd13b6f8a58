import { Type, type Static } from "@sinclair/typebox";

/** Upper bound on steps (checked before schema validation, with a position). */
export const MAX_STEPS = 10_000;

/** A recipe as users write it. `with` is checked later against the tool's own schema. */
const RecipeStepSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, pattern: "^[A-Za-z0-9._-]+$", description: 'Step id; default "<index>-<tool>"' })),
    tool: Type.String({ minLength: 1, description: "Tool name: a built-in, a custom tool, or resolve" }),
    with: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Tool parameters" })),
    timeout: Type.Optional(Type.Integer({ minimum: 1, description: "Milliseconds before the step is failed" })),
  },
  { additionalProperties: false },
);

export const RecipeSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Literal(1, { description: "Recipe format version" }),
    name: Type.Optional(Type.String({ description: "Recipe name" })),
    description: Type.Optional(Type.String()),
    resolve: Type.Optional(
      Type.Union([Type.Literal("end"), Type.Literal("step")], {
        description: "When pending actions are resolved: at the end (LIFO) or after every step",
        default: "end",
      }),
    ),
    applyTimeout: Type.Optional(
      Type.Integer({ minimum: 1, description: "Milliseconds an action's apply may take before it fails (default 600000: 10 minutes)" }),
    ),
    toolLoadTimeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Milliseconds a custom tool module and its factory may take to load before the run refuses to start, naming the module (exit 2) (default 30000: 30 seconds)",
      }),
    ),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: "Custom tool modules, relative to the recipe" })),
    vars: Type.Optional(
      Type.Record(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_-]*$" }), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: "Variables for ${{ vars.name }}; overridable with --var name=value",
      }),
    ),
    steps: Type.Array(RecipeStepSchema, { minItems: 1, maxItems: MAX_STEPS, description: "Tool calls, run in order" }),
  },
  { additionalProperties: false, title: "tollgate recipe" },
);

export type RecipeFile = Static<typeof RecipeSchema>;
