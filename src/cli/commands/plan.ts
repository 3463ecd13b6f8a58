import { wouldDecideText } from "../../report/words.js";
import type { CommandSpec } from "../command.js";
import { executeWithOutputs } from "../execute.js";
import { RUN_OPTIONS } from "../options.js";
import { buildRun, RECIPE_POSITIONALS, withPositionals, type RunArgs } from "./run.js";

interface PlanArgs extends RunArgs {
  out?: string;
  positionals?: unknown[];
}

/**
 * `tollgate plan`: the run with every action previewed only, plus the plan block that `apply`
 * needs. Without `--out` the plan is not saved (as with `terraform plan`).
 */
export const planCommand: CommandSpec<PlanArgs> = {
  command: "plan [positionals..]",
  usage: "plan <recipe> [files..]",
  describe: "Preview every action and write a plan that `tollgate apply` can apply later",
  positionals: RECIPE_POSITIONALS,
  shared: RUN_OPTIONS,
  own: { out: { type: "string", group: "Output:", describe: "Write the plan (JSON) to FILE" } },
  run: async (args, invocation) => {
    const run = await buildRun(withPositionals(args), "plan", invocation);
    const { input } = run;
    const [{ loadPolicy, DEFAULT_POLICY }, { decisionRecorder, toPlan }, { writeFileAtomicStream }, { writeReportJson }] = await Promise.all([
      import("../../policy/policy.js"),
      import("../../plan/plan.js"),
      import("../../workspace/output-file.js"),
      import("../../report/json.js"),
    ]);
    const loaded = input.policyPath ? await loadPolicy(input.policyPath, args.policy) : DEFAULT_POLICY;
    const recorder = decisionRecorder(input.mode ? { ...loaded, default: input.mode } : loaded);
    const planInfo = {
      cwd: run.world.cwd,
      recipePath: input.recipePath,
      policyPath: input.policyPath,
      vars: input.vars ?? [],
      mode: input.mode,
      changedSince: input.scope?.changed,
    };
    return executeWithOutputs({ ...run, input: { ...input, dryRun: true } }, args, invocation, {
      finish: async (report) => {
        const plan = await toPlan(report, planInfo, recorder.decided);
        if (args.out) await writeFileAtomicStream(args.out, (write) => writeReportJson(plan, write), "--out");
        else process.stderr.write("tollgate: the plan was not saved; pass --out plan.json to apply it later\n");
        return plan;
      },
      wouldDecide: (id) => {
        const would = recorder.decided.get(id);
        return would ? wouldDecideText(would) : undefined;
      },
      onEvent: recorder.onEvent,
    });
  },
};
