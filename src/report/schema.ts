import { Type, type Static } from "@sinclair/typebox";

/**
 * The report as a TypeBox schema: the TS types are derived from it and
 * `schema/report.schema.json` is generated from it, so the published schema is the real one.
 */
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Sha = Type.String({ pattern: "^[0-9a-f]{64}$", description: "sha256, hex" });

const OutcomeSchema = Type.Union(
  [
    Type.Literal("applied"),
    Type.Literal("discarded"),
    Type.Literal("dry-run"),
    Type.Literal("pending-approval"),
    Type.Literal("failed"),
    Type.Literal("stale"),
    Type.Literal("blocked"),
  ],
  { description: "What became of the change" },
);

const DecisionSchema = Type.Union(
  [Type.Literal("auto-apply"), Type.Literal("require-approval"), Type.Literal("dry-run"), Type.Literal("discard"), Type.Literal("blocked")],
  { description: "What the policy decided (blocked: the action touches a protected or outside path)" },
);

const ResolveParamsSchema = Type.Object(
  { action: Type.Union([Type.Literal("apply"), Type.Literal("discard")]), reason: Type.String() },
  { additionalProperties: false },
);

const ReportFileSchema = Type.Object(
  {
    path: Type.String({ description: "Workspace-relative POSIX path" }),
    change: Type.Union([Type.Literal("modified"), Type.Literal("created"), Type.Literal("deleted")]),
    additions: Type.Integer({ minimum: 0 }),
    deletions: Type.Integer({ minimum: 0 }),
    beforeSha256: Nullable(Sha),
    afterSha256: Nullable(Sha),
  },
  { additionalProperties: false },
);

const OutcomeRecordSchema = Type.Object(
  {
    id: Type.String({ description: "<step-id>#<n>" }),
    fingerprint: Type.String({ description: "sha256 binding an approval to exactly this change" }),
    label: Type.String(),
    sourceToolName: Type.String(),
    step: Type.String({ description: "Id of the step that pushed the action" }),
    toolCallId: Type.String({ description: "Tool call that pushed the action" }),
    resolveToolCallId: Type.String({ description: "The resolve call that finalized it" }),
    requested: Type.Union([ResolveParamsSchema, Type.Null()], { description: "What an explicit resolve step asked, if any" }),
    decision: DecisionSchema,
    rule: Type.Object(
      {
        name: Type.String({ description: 'Rule name, "default", "--dry-run", "--check", "protect" or "plan"' }),
        index: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "Index in rules[], null otherwise" }),
      },
      { additionalProperties: false },
    ),
    approval: Type.Union([
      Type.Object(
        {
          by: Type.String(),
          via: Type.Union([Type.Literal("flag"), Type.Literal("approve-all"), Type.Literal("file"), Type.Literal("prompt"), Type.Literal("plan")]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    action: Type.Union([Type.Literal("apply"), Type.Literal("discard")], { description: "What resolve was called with" }),
    reason: Type.String({ description: "The reason resolve was called with" }),
    outcome: OutcomeSchema,
    resultText: Type.String({ description: "Exactly what resolve returned" }),
    details: Type.Unknown({ description: "resolve's details" }),
    files: Type.Array(ReportFileSchema),
    diff: Type.String({ description: "Unified, git-style diff of the change" }),
    error: Nullable(Type.String()),
    rolledBack: Type.Optional(Type.Boolean()),
    durationMs: Type.Number({ minimum: 0 }),
    shard: Type.Optional(
      Type.Object(
        { index: Type.Integer({ minimum: 1 }), count: Type.Integer({ minimum: 1 }) },
        { additionalProperties: false, description: "merge-reports: the shard whose run produced this outcome" },
      ),
    ),
  },
  { additionalProperties: false },
);

const StepRecordSchema = Type.Object(
  {
    id: Type.String(),
    tool: Type.String(),
    toolCallId: Type.String(),
    params: Type.Unknown(),
    status: Type.Union([Type.Literal("ok"), Type.Literal("error")]),
    resultText: Type.String(),
    details: Type.Unknown(),
    actions: Type.Array(Type.String(), { description: "Ids of the actions this step pushed" }),
    durationMs: Type.Number({ minimum: 0 }),
  },
  { additionalProperties: false },
);

const RunInfoSchema = Type.Object(
  {
    tool: Type.Literal("tollgate"),
    version: Type.String(),
    command: Type.String(),
    recipe: Type.Object({ path: Type.String(), sha256: Sha, name: Nullable(Type.String()) }, { additionalProperties: false }),
    policy: Type.Object({ path: Nullable(Type.String()), sha256: Nullable(Sha) }, { additionalProperties: false }),
    vars: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    cwd: Type.String(),
    git: Type.Object({ head: Nullable(Type.String()), dirty: Type.Union([Type.Boolean(), Type.Null()]) }, { additionalProperties: false }),
    repository: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          "The repository the run was in: GITHUB_REPOSITORY (owner/name), else the origin remote (owner/name on github.com, host/path elsewhere, credentials dropped); null when neither is known",
      }),
    ),
    mode: Type.String({ description: "dry-run, or the policy default in effect" }),
    dryRun: Type.Boolean(),
    check: Type.Boolean(),
    files: Type.Union([Type.Array(Type.String()), Type.Null()], { description: "Positional files restricting the run" }),
    shard: Type.Union([
      Type.Object({ index: Type.Integer({ minimum: 1 }), count: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
      Type.Null(),
    ]),
    startedAt: Type.String({ description: "ISO 8601 date-time (UTC)", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$" }),
    durationMs: Type.Number({ minimum: 0 }),
    interrupted: Type.Boolean(),
    error: Type.Optional(Type.String({ description: "Why the run could not start (then there are no steps)" })),
    atomic: Type.Optional(
      Type.Object(
        { rolledBack: Type.Boolean(), files: Type.Array(Type.String()), error: Nullable(Type.String()) },
        { additionalProperties: false, description: "--atomic only: whether the run's applied actions were rolled back" },
      ),
    ),
  },
  { additionalProperties: false },
);

const countsOf = Type.Object(
  {
    applied: Type.Integer({ minimum: 0 }),
    discarded: Type.Integer({ minimum: 0 }),
    "dry-run": Type.Integer({ minimum: 0 }),
    "pending-approval": Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    stale: Type.Integer({ minimum: 0 }),
    blocked: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

const SummarySchema = Type.Object(
  {
    steps: Type.Integer({ minimum: 0 }),
    stepErrors: Type.Integer({ minimum: 0 }),
    actions: Type.Integer({ minimum: 0 }),
    outcomes: countsOf,
    filesChanged: Type.Integer({ minimum: 0, description: "Distinct files written by applied actions" }),
    additions: Type.Integer({ minimum: 0 }),
    deletions: Type.Integer({ minimum: 0 }),
    findings: Type.Optional(
      Type.Object(
        {
          error: Type.Integer({ minimum: 0 }),
          warning: Type.Integer({ minimum: 0 }),
          info: Type.Integer({ minimum: 0 }),
          hint: Type.Integer({ minimum: 0 }),
          unfixedErrors: Type.Integer({ minimum: 0, description: "Error-severity findings whose fix was not applied (exit at least 1)" }),
        },
        { additionalProperties: false, description: "ast_scan findings by severity" },
      ),
    ),
    exitCode: Type.Integer(),
  },
  { additionalProperties: false },
);

export const ReportSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    schemaVersion: Type.Literal(1),
    run: RunInfoSchema,
    steps: Type.Array(StepRecordSchema),
    outcomes: Type.Array(OutcomeRecordSchema, { description: "One per resolve outcome, in resolution order" }),
    summary: SummarySchema,
    exitCode: Type.Integer({ description: "0 done, 1 outstanding, 3 failure, 130 interrupted" }),
    fromPlan: Type.Optional(Type.Object({ path: Type.String(), sha256: Sha }, { additionalProperties: false, description: "apply: the plan file applied" })),
    missing: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String(),
            fingerprint: Type.String(),
            label: Type.String(),
            alreadyApplied: Type.Boolean({ description: "Every file it touches already has the planned result" }),
          },
          { additionalProperties: false },
        ),
        { description: "apply: planned actions that did not come back" },
      ),
    ),
  },
  // Open at the top level so commands can add sections (plan/apply list missing actions).
  { additionalProperties: true, title: "tollgate report" },
);

export type Outcome = Static<typeof OutcomeSchema>;
export type Decision = Static<typeof DecisionSchema>;
export type ReportFile = Static<typeof ReportFileSchema>;
export type OutcomeRecord = Static<typeof OutcomeRecordSchema>;
export type StepRecord = Static<typeof StepRecordSchema>;
export type RunInfo = Static<typeof RunInfoSchema>;
export type Summary = Static<typeof SummarySchema>;
export type Report = Static<typeof ReportSchema>;
