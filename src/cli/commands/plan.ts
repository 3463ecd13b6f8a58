import type { CommandModule } from "yargs";
import { wouldDecideText } from "../../report/words.js";
import { buildRun, executeWithOutputs, runFlags, type RunArgs } from "./run.js";

interface PlanArgs extends RunArgs {
  out?: string;
}

/**
 * `tollgate plan`: the run with every action previewed only, plus the plan block that `apply`
 * needs. Without `--out` the plan is not saved (as with `terraform plan`).
 */
export function planCommand(setExit: (code: number) => void): CommandModule<object, PlanArgs & { positionals: string[] }> {
  return {
    command: "plan [positionals..]",
    describe: "Preview every action and write a plan that `tollgate apply` can apply later",
    builder: (y) =>
      runFlags(y).option("out", { type: "string", describe: "Write the plan (JSON) to FILE" }).positional("positionals", {
        type: "string",
        array: true,
        describe: "<recipe> [files..]: the recipe, then files that restrict every tool",
      }) as never,
    handler: async (args) => {
      const run = await buildRun({ ...args, positionals: (args.positionals ?? []).map(String) }, "plan");
      const { input } = run;
      const [{ loadPolicy, DEFAULT_POLICY }, { decisionRecorder, toPlan }, { writeFileAtomicStream }, { writeReportJson }] = await Promise.all([
        import("../../policy/policy.js"),
        import("../../plan/plan.js"),
        import("../../workspace/output-file.js"),
        import("../../report/json.js"),
      ]);
      const loaded = input.policyPath ? await loadPolicy(input.policyPath, args.policy) : DEFAULT_POLICY;
      const recorder = decisionRecorder(input.mode ? { ...loaded, default: input.mode } : loaded);
      const code = await executeWithOutputs({ ...run, input: { ...input, dryRun: true } }, args, {
        finish: async (report) => {
          const plan = await toPlan(
            report,
            {
              cwd: run.world.cwd,
              recipePath: input.recipePath,
              policyPath: input.policyPath,
              vars: input.vars ?? [],
              mode: input.mode,
              changedSince: input.scope?.changed,
            },
            recorder.decided,
          );
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
      setExit(code);
    },
  };
}
