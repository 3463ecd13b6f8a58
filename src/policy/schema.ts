import { Type, type Static } from "@sinclair/typebox";

const DecisionSchema = Type.Union([Type.Literal("auto-apply"), Type.Literal("require-approval"), Type.Literal("dry-run"), Type.Literal("discard")], {
  description: "What happens to a matching action",
});
export type PolicyDecision = Static<typeof DecisionSchema>;
export const DECISIONS: readonly PolicyDecision[] = ["auto-apply", "require-approval", "dry-run", "discard"];

const RuleSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ description: "Shown in the report and in resolve reasons" })),
    match: Type.Optional(
      Type.Object(
        {
          tool: Type.Optional(Type.String({ description: "Glob over the action's sourceToolName" })),
          step: Type.Optional(Type.String({ description: "Glob over the step id" })),
          label: Type.Optional(Type.String({ description: "Glob over the action's label" })),
          paths: Type.Optional(Type.Array(Type.String(), { description: "Every touched path must match one of these globs" })),
          maxFiles: Type.Optional(Type.Integer({ minimum: 0 })),
          maxReplacements: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    decision: DecisionSchema,
  },
  { additionalProperties: false },
);

export const PolicySchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Literal(1),
    default: Type.Optional(DecisionSchema),
    rules: Type.Optional(Type.Array(RuleSchema, { description: "First match wins" })),
    protect: Type.Optional(Type.Array(Type.String(), { description: "Globs never written; actions touching them are blocked" })),
    allow: Type.Optional(
      Type.Object(
        {
          exec: Type.Optional(Type.Boolean({ description: "false: exec steps refused before the run; pi.exec throws" })),
          customTools: Type.Optional(Type.Boolean({ description: "false: custom tool modules refused before the run" })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: "tollgate policy" },
);
export type PolicyFile = Static<typeof PolicySchema>;
