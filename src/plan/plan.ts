import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { InputError } from "../errors.js";
import type { Policy } from "../policy/policy.js";
import { decide, factsOf, type ActionFacts } from "../policy/policy.js";
import type { Report } from "../report/types.js";
import type { RunEvent } from "../runner/types.js";
import { sha256 } from "../util/hash.js";
import type { PlanFile, PlanInfo, PlannedAction } from "./types.js";
import { relativeInside } from "../util/inside.js";
import { ioReason } from "../util/errno.js";
import { messageOf } from "../util/thrown.js";

/** `file` relative to `root` (POSIX) when inside it, else absolute. */
function rootRelative(root: string, file: string): string {
  return relativeInside(root, file) ?? path.resolve(file);
}

/** sha256 of a recipe or policy file's text, as the report records it. */
async function fileSha256(file: string, what: string, display: string): Promise<string> {
  try {
    // A path taken from a plan is read only if it is a regular file: a FIFO or a
    // device named there would block or never end.
    if (!(await stat(file)).isFile()) throw new InputError(`${display}: cannot read ${what} (not a regular file)`);
    return sha256(await readFile(file, "utf8"));
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${display}: cannot read ${what} (${ioReason(err)})`);
  }
}

/**
 * Records, per action id, what the policy would decide at apply time, from the run's events:
 * the facts of each staged action, decided when its outcome comes (before the outcome's line is
 * shown). A blocked action, or one discarded by an interrupt, was never up for decision.
 */
export function decisionRecorder(policy: Policy) {
  const decided = new Map<string, PlannedAction["wouldDecide"]>();
  const facts = new Map<string, ActionFacts>();
  return {
    decided,
    onEvent: (event: RunEvent): void => {
      if (event.type === "action_staged") facts.set(event.staged.id, factsOf(event.staged));
      if (event.type !== "outcome") return;
      const { id, decision, rule } = event.record;
      const known = facts.get(id);
      facts.delete(id);
      if (known && decision !== "blocked" && rule.name !== "interrupted") decided.set(id, decide(policy, known));
    },
  };
}

interface PlanInputs {
  cwd: string;
  recipePath: string;
  policyPath: string | undefined;
  vars: string[];
  mode: string | undefined;
  /** `--changed-since`: the ref given and the merge-base it resolved to. */
  changedSince?: { ref: string; base: string } | undefined;
}

/** Adds the plan block to a plan run's report. */
export async function toPlan(report: Report, inputs: PlanInputs, decided: Map<string, PlannedAction["wouldDecide"]>): Promise<PlanFile> {
  const actions: PlannedAction[] = report.outcomes.map((o) => ({
    id: o.id,
    fingerprint: o.fingerprint,
    label: o.label,
    sourceToolName: o.sourceToolName,
    step: o.step,
    files: o.files.map((f) => ({ path: f.path, beforeSha256: f.beforeSha256, afterSha256: f.afterSha256 })),
    wouldDecide: decided.get(o.id) ?? null,
  }));
  const plan: PlanInfo = {
    version: 1,
    recipe: { path: rootRelative(inputs.cwd, inputs.recipePath), sha256: report.run.recipe.sha256 },
    policy: {
      path: inputs.policyPath ? rootRelative(inputs.cwd, inputs.policyPath) : null,
      sha256: report.run.policy.sha256,
    },
    vars: inputs.vars,
    mode: inputs.mode ?? null,
    cwd: inputs.cwd,
    files: report.run.files,
    shard: report.run.shard,
    ...(inputs.changedSince ? { changedSince: { ref: inputs.changedSince.ref, base: inputs.changedSince.base } } : {}),
    actions,
  };
  return { ...report, plan };
}

const Sha = Type.String({ pattern: "^[0-9a-f]{64}$" });
const NullableSha = Type.Union([Sha, Type.Null()]);
const DecisionName = Type.Union(["auto-apply", "require-approval", "dry-run", "discard", "blocked"].map((d) => Type.Literal(d)));
/**
 * The plan block as `plan` writes it. `apply` reads it back from an artifact anyone between the
 * two jobs could have edited, so anything else is refused (exit 2) rather than half-trusted.
 */
const PlanInfoSchema = Type.Object({
  version: Type.Literal(1),
  recipe: Type.Object({ path: Type.String({ minLength: 1 }), sha256: Sha }),
  policy: Type.Object({ path: Type.Union([Type.String({ minLength: 1 }), Type.Null()]), sha256: NullableSha }),
  vars: Type.Array(Type.String()),
  mode: Type.Union([DecisionName, Type.Null()]),
  cwd: Type.String({ minLength: 1 }),
  files: Type.Union([Type.Array(Type.String()), Type.Null()]),
  shard: Type.Union([Type.Object({ index: Type.Integer({ minimum: 1 }), count: Type.Integer({ minimum: 1 }) }), Type.Null()]),
  changedSince: Type.Optional(Type.Object({ ref: Type.String(), base: Type.String({ pattern: "^[0-9a-f]{40}([0-9a-f]{24})?$" }) })),
  actions: Type.Array(
    Type.Object({
      id: Type.String({ pattern: "^[^#]+#.+$" }),
      fingerprint: Sha,
      label: Type.String(),
      sourceToolName: Type.String(),
      step: Type.String(),
      files: Type.Array(Type.Object({ path: Type.String(), beforeSha256: NullableSha, afterSha256: NullableSha })),
      wouldDecide: Type.Unknown(),
    }),
  ),
});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads and checks a plan file's shape; a wrong file is an input error (exit 2). */
export async function readPlan(file: string): Promise<{ plan: PlanFile; sha256: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new InputError(`${file}: cannot read plan (${ioReason(err)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${file}: not a JSON plan (${messageOf(err)})`);
  }
  const plan = isObject(data) ? data.plan : undefined;
  if (!isObject(data) || data.schemaVersion !== 1 || !isObject(plan)) {
    throw new InputError(`${file}: not a tollgate plan (make one with: tollgate plan <recipe> --out ${path.basename(file)})`);
  }
  const first = Value.Errors(PlanInfoSchema, plan).First();
  if (first) {
    const where = first.path.split("/").slice(1).join(".") || "plan";
    throw new InputError(`${file}: not a valid tollgate plan (plan.${where}: ${first.message}); make a new one with tollgate plan`);
  }
  const ids = new Set<string>();
  for (const a of (plan as unknown as PlanInfo).actions) {
    if (ids.has(a.id)) throw new InputError(`${file}: not a valid tollgate plan (action ${a.id} is listed twice)`);
    ids.add(a.id);
  }
  return { plan: data as unknown as PlanFile, sha256: sha256(text) };
}

/**
 * A plan must match its recipe: every planned action belongs to one of the recipe's
 * steps (`<step-id>#<n>`, and its `step` says the same).
 */
export function checkPlanSteps(plan: PlanInfo, stepIds: ReadonlySet<string>, file: string): void {
  for (const a of plan.actions) {
    const step = a.id.slice(0, a.id.indexOf("#"));
    if (!stepIds.has(step) && step !== "session") {
      throw new InputError(`${file}: the plan does not match its recipe (action ${a.id}: the recipe has no step "${step}")`);
    }
  }
}

/**
 * The policy `apply` decides by is the one on its own command line, never one the
 * plan names: required when the plan was made with a policy, and it must be that same policy
 * (sha256), so a plan cannot swap in a laxer one or drop it.
 */
export function checkApplyPolicy(plan: PlanInfo, given: { display: string; sha256: string } | undefined, file: string): void {
  const planned = plan.policy.sha256;
  if (planned !== null && !given) {
    throw new InputError(
      `${file}: the plan was made with a policy${plan.policy.path ? ` (${plan.policy.path})` : ""}; pass the same policy to apply: tollgate apply ${file} --policy FILE`,
    );
  }
  if (!given) return;
  if (planned === null) {
    throw new InputError(`${given.display}: the plan was made without a policy; apply it without --policy, or make a new plan with this policy`);
  }
  if (given.sha256 !== planned) {
    throw new InputError(
      `${given.display}: not the policy the plan was made with (sha256 ${short(given.sha256)}, plan has ${short(planned)}). Refusing to apply; run tollgate plan again.`,
    );
  }
}

/** Absolute path of a plan-recorded recipe/policy path within the workspace `root`. */
export function planPath(root: string, recorded: string): string {
  return path.isAbsolute(recorded) ? recorded : path.resolve(root, recorded);
}

/**
 * Refuses a plan whose recipe changed since it was made (exit 2): the plan's fingerprints only
 * mean something for the same recipe. (The policy is checked against the one given to apply.)
 */
export async function checkPlanInputs(plan: PlanInfo, root: string, display: (abs: string) => string): Promise<void> {
  const recipe = planPath(root, plan.recipe.path);
  const recipeSha = await fileSha256(recipe, "recipe", display(recipe));
  if (recipeSha !== plan.recipe.sha256) {
    throw new InputError(
      `${display(recipe)}: the recipe changed since the plan was made (sha256 ${short(recipeSha)}, plan has ${short(plan.recipe.sha256)})\nRefusing to apply a stale plan; run tollgate plan again.`,
    );
  }
}

function short(hash: string): string {
  return hash.slice(0, 12);
}
