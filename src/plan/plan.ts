import { readFile } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";
import type { Policy } from "../policy/policy.js";
import { decide, factsOf } from "../policy/policy.js";
import type { Report } from "../report/types.js";
import type { PendingAction } from "../session/types.js";
import { sha256 } from "../workspace/text.js";
import type { PlanFile, PlanInfo, PlannedAction } from "./types.js";

/** `file` relative to `root` (POSIX) when inside it, else absolute. */
export function rootRelative(root: string, file: string): string {
  const rel = path.relative(root, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : path.resolve(file);
}

/** sha256 of a recipe or policy file's text, as the report records it. */
export async function fileSha256(file: string, what: string, display: string): Promise<string> {
  try {
    return sha256(await readFile(file, "utf8"));
  } catch (err) {
    throw new InputError(`${display}: cannot read ${what} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** Records, per action id, what the policy would decide at apply time. */
export function decisionRecorder(policy: Policy) {
  const decided = new Map<string, PlannedAction["wouldDecide"]>();
  return {
    decided,
    gate(action: PendingAction): undefined {
      if (action.meta) decided.set(action.meta.id, decide(policy, factsOf(action)));
      return undefined;
    },
  };
}

export interface PlanInputs {
  cwd: string;
  recipePath: string;
  policyPath: string | undefined;
  vars: string[];
  mode: string | undefined;
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
    actions,
  };
  return { ...report, plan };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads and checks a plan file's shape; a wrong file is an input error (exit 2). */
export async function readPlan(file: string): Promise<{ plan: PlanFile; sha256: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: cannot read plan (${code === "ENOENT" ? "file not found" : code ?? String(err)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${file}: not a JSON plan (${(err as Error).message})`);
  }
  const plan = isObject(data) ? data.plan : undefined;
  const ok =
    isObject(data) &&
    data.schemaVersion === 1 &&
    isObject(plan) &&
    plan.version === 1 &&
    isObject(plan.recipe) &&
    typeof plan.recipe.path === "string" &&
    typeof plan.recipe.sha256 === "string" &&
    isObject(plan.policy) &&
    typeof plan.cwd === "string" &&
    Array.isArray(plan.vars) &&
    plan.vars.every((v) => typeof v === "string") &&
    Array.isArray(plan.actions) &&
    plan.actions.every((a) => isObject(a) && typeof a.id === "string" && typeof a.fingerprint === "string");
  if (!ok) throw new InputError(`${file}: not a tollgate plan (make one with: tollgate plan <recipe> --out ${path.basename(file)})`);
  return { plan: data as PlanFile, sha256: sha256(text) };
}

/** Absolute path of a plan-recorded recipe/policy path within the workspace `root`. */
export function planPath(root: string, recorded: string): string {
  return path.isAbsolute(recorded) ? recorded : path.resolve(root, recorded);
}

/**
 * Refuses a plan whose recipe or policy changed since it was made (exit 2): the plan's
 * fingerprints only mean something for the same recipe and policy.
 */
export async function checkPlanInputs(plan: PlanInfo, root: string, display: (abs: string) => string): Promise<void> {
  const problems: string[] = [];
  const recipe = planPath(root, plan.recipe.path);
  const recipeSha = await fileSha256(recipe, "recipe", display(recipe));
  if (recipeSha !== plan.recipe.sha256) {
    problems.push(`${display(recipe)}: the recipe changed since the plan was made (sha256 ${short(recipeSha)}, plan has ${short(plan.recipe.sha256)})`);
  }
  if (plan.policy.path !== null) {
    const policy = planPath(root, plan.policy.path);
    const policySha = await fileSha256(policy, "policy", display(policy));
    if (policySha !== plan.policy.sha256) {
      problems.push(`${display(policy)}: the policy changed since the plan was made (sha256 ${short(policySha)}, plan has ${short(plan.policy.sha256 ?? "")})`);
    }
  }
  if (problems.length > 0) throw new InputError([...problems, "Refusing to apply a stale plan; run tollgate plan again."].join("\n"));
}

function short(hash: string): string {
  return hash.slice(0, 12);
}
