import path from "node:path";
import { InputError } from "../../errors.js";
import type { PlanInfo } from "../../plan/types.js";
import type { Policy } from "../../policy/policy.js";
import type { Report } from "../../report/types.js";
import type { RunInput } from "../../runner/types.js";
import type { CommandSpec, Invocation } from "../command.js";
import { executeWithOutputs } from "../execute.js";
import { APPLY_OPTIONS } from "../options.js";
import { cacheWorld, changedScope, machineWorld, decisionsOf, outputExcludes, type RunArgs } from "./run.js";
import { displayPath } from "../../util/inside.js";

interface ApplyArgs extends RunArgs {
  plan: string;
}

/** A plan read and checked against the workspace, the policy and the recipe it names. */
interface CheckedPlan {
  info: PlanInfo;
  sha256: string;
  cwd: string;
  recipePath: string;
  policy: Policy | undefined;
}

/**
 * `tollgate apply plan.json --policy FILE`: re-runs the planned recipe with the plan's vars, files
 * and shard, and applies only actions that come back unchanged (same id and fingerprint) and are
 * approved or auto-applied. The plan is an artifact anyone between the plan and apply
 * jobs could edit, so it decides nothing: decisions come only from the policy named here (which
 * must be the plan's, by sha256) and this command's own flags (`--mode`, `--approve`...).
 */
export const applyCommand: CommandSpec<ApplyArgs> = {
  command: "apply <plan>",
  usage: "apply <plan.json>",
  describe: "Apply a plan made by `tollgate plan`: only unchanged, approved actions are written",
  positionals: { plan: { type: "string", demandOption: true, describe: "Plan file written by tollgate plan --out" } },
  shared: APPLY_OPTIONS,
  run: async (args, invocation) => {
    const checked = await readCheckedPlan(args);
    const [{ createPlanGate, missingActions }, { Workspace }] = await Promise.all([import("../../plan/gate.js"), import("../../workspace/workspace.js")]);
    const { gate, seen } = createPlanGate(checked.info);
    const input = await applyInput(args, checked, invocation);
    const world = {
      cwd: checked.cwd,
      displayBase: process.cwd(),
      process: invocation.process,
      ...(await cacheWorld(args, checked.cwd, invocation.env)),
      ...(await machineWorld(invocation.env)),
    };
    return executeWithOutputs({ input, world, gate }, args, invocation, {
      finish: async (report: Report) => {
        const missing = await missingActions(checked.info, seen, new Workspace({ root: checked.cwd }));
        for (const m of missing) {
          const why = m.alreadyApplied ? "already applied" : "no longer arises";
          process.stderr.write(`tollgate: planned action ${m.id} did not come back (${why}): ${m.label.split("\n")[0]}\n`);
        }
        return { ...report, fromPlan: { path: path.resolve(args.plan), sha256: checked.sha256 }, missing };
      },
    });
  },
};

/** A path as the user would type it: relative to the working directory when inside it. */
function display(abs: string): string {
  return displayPath(abs, process.cwd());
}

/** Reads the plan and refuses one that does not match its workspace, policy (by sha256) or recipe. */
async function readCheckedPlan(args: ApplyArgs): Promise<CheckedPlan> {
  const [{ readPlan, checkPlanInputs, checkApplyPolicy, checkPlanSteps, planPath }, { existsSync }, { loadPolicy }, { readRecipe }, { sha256: hash }] =
    await Promise.all([
      import("../../plan/plan.js"),
      import("node:fs"),
      import("../../policy/policy.js"),
      import("../../recipe/load.js"),
      import("../../workspace/text.js"),
    ]);
  const { plan, sha256 } = await readPlan(args.plan);
  const info = plan.plan;
  const cwd = args.cwd !== undefined ? path.resolve(args.cwd) : info.cwd;
  if (!existsSync(cwd) && args.cwd === undefined) {
    throw new InputError(`${args.plan}: the plan's workspace ${cwd} does not exist here; pass --cwd DIR`);
  }
  (await import("../../workspace/root.js")).checkWorkspaceDir(cwd, args.cwd ?? cwd);
  await checkPlanInputs(info, cwd, display);
  // Read once: a policy named on the command line may be a pipe.
  const policy = args.policy !== undefined ? await loadPolicy(args.policy, args.policy) : undefined;
  checkApplyPolicy(info, policy ? { display: args.policy!, sha256: hash(policy.text ?? "") } : undefined, args.plan);
  const recipePath = planPath(cwd, info.recipe.path);
  const { raw } = await readRecipe(recipePath, display(recipePath));
  checkPlanSteps(info, new Set(raw.steps.map((s, i) => s.id ?? `${i}-${s.tool}`)), args.plan);
  return { info, sha256, cwd, recipePath, policy };
}

/** The run apply makes: the plan's recipe, vars and file set; decisions from this command line only. */
async function applyInput(args: ApplyArgs, checked: CheckedPlan, invocation: Invocation): Promise<RunInput> {
  const { info, cwd, recipePath, policy } = checked;
  const source = { cwd, recipePath, policyPath: args.policy, vars: info.vars, env: invocation.process.env };
  // The plan's merge-base, not REF resolved again: the base branch may have moved since.
  const changed = info.changedSince
    ? { ...(await changedScope(info.changedSince.base, { ...source, exact: true })), ref: info.changedSince.ref }
    : args["changed-since"] !== undefined
      ? await changedScope(args["changed-since"], source)
      : undefined;
  return {
    recipePath,
    command: "apply",
    ...(policy ? { policyPath: path.resolve(args.policy!), policy } : {}),
    ...(await decisionsOf(args, invocation.env)),
    vars: info.vars,
    scope: {
      ...(info.files ? { files: info.files } : {}),
      ...(info.shard ? { shard: info.shard } : {}),
      ...(changed ? { changed } : {}),
      exclude: outputExcludes(cwd, [args.report, args.patch, args.summary, args.sarif, args.plan]),
    },
  };
}
