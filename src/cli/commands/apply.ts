import path from "node:path";
import type { CommandModule } from "yargs";
import { InputError } from "../../errors.js";
import { DECISIONS } from "../../policy/schema.js";
import type { Report } from "../../report/types.js";
import type { RunInput } from "../../runner/types.js";
import { approveIds, cacheWorld, changedScope, executeWithOutputs, outputExcludes, repositoryOf, type RunArgs } from "./run.js";
import { relativeInside } from "../../util/inside.js";

interface ApplyArgs extends RunArgs {
  plan: string;
}

/**
 * `tollgate apply plan.json --policy FILE`: re-runs the planned recipe with the plan's vars, files
 * and shard, and applies only actions that come back unchanged (same id and fingerprint) and are
 * approved or auto-applied. The plan is an artifact anyone between the plan and apply
 * jobs could edit, so it decides nothing: decisions come only from the policy named here (which
 * must be the plan's, by sha256) and this command's own flags (`--mode`, `--approve`...).
 */
export function applyCommand(setExit: (code: number) => void): CommandModule<object, ApplyArgs> {
  return {
    command: "apply <plan>",
    describe: "Apply a plan made by `tollgate plan`: only unchanged, approved actions are written",
    builder: (y) =>
      y
        .positional("plan", { type: "string", demandOption: true, describe: "Plan file written by tollgate plan --out" })
        .option("policy", { type: "string", describe: "The policy the plan was made with (required when it was made with one)" })
        .option("mode", { choices: DECISIONS, describe: "Override the policy's default decision" })
        .option("dry-run", { type: "boolean", describe: "Apply nothing: check the plan still holds" })
        .option("check", { type: "boolean", describe: "Dry-run; exit 1 when any action was staged" })
        .option("report", { type: "string", describe: "Write the JSON report to FILE" })
        .option("patch", { type: "string", describe: "Write unapplied previews as one git patch to FILE" })
        .option("summary", { type: "string", describe: "Write a markdown summary to FILE" })
        .option("sarif", { type: "string", describe: "Write SARIF 2.1.0 (findings, unapplied changes) for GitHub code scanning to FILE" })
        .option("format", { choices: ["text", "json", "github"] as const, describe: "stdout format (json prints the report)" })
        .option("approve", { type: "string", array: true, describe: "Approve an action by id or fingerprint (repeatable)" })
        .option("approve-all", { type: "boolean", describe: "Approve every planned action that requires approval" })
        .option("approvals", { type: "string", describe: "YAML list of approved fingerprints" })
        .option("atomic", { type: "boolean", describe: "All or nothing: if the run fails (an action or a step), roll back every applied action" })
        .option("cwd", { type: "string", describe: "Workspace root (default: the plan's)" })
        .option("changed-since", {
          type: "string",
          describe: "Only files changed since git merge-base REF HEAD (a plan made with --changed-since uses its recorded merge-base)",
        })
        .option("cache", { type: "boolean", describe: "Reuse what ast_grep, ast_edit and ast_scan found in unchanged files (result cache)" })
        .option("cache-location", {
          type: "string",
          describe: "Result cache directory (default node_modules/.cache/tollgate/, else $XDG_CACHE_HOME/tollgate/)",
        })
        .option("color", { type: "boolean", describe: "Force colour on or off (--no-color)" })
        .option("repository", { type: "string", describe: "The repository the report names (default: GITHUB_REPOSITORY, else the origin remote)" }) as never,
    handler: async (args) => {
      const [{ readPlan, checkPlanInputs, checkApplyPolicy, checkPlanSteps, planPath }, { createPlanGate, missingActions }, { Workspace }, { existsSync }] =
        await Promise.all([import("../../plan/plan.js"), import("../../plan/gate.js"), import("../../workspace/workspace.js"), import("node:fs")]);
      const [{ loadPolicy }, { readRecipe }, { sha256: hash }] = await Promise.all([
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
      const display = (abs: string) => {
        return relativeInside(process.cwd(), abs) !== undefined ? path.relative(process.cwd(), abs) : abs;
      };
      await checkPlanInputs(info, cwd, display);
      // Read once: a policy named on the command line may be a pipe.
      const policy = args.policy !== undefined ? await loadPolicy(args.policy, args.policy) : undefined;
      checkApplyPolicy(info, policy ? { display: args.policy!, sha256: hash(policy.text ?? "") } : undefined, args.plan);
      const recipePath = planPath(cwd, info.recipe.path);
      const { raw } = await readRecipe(recipePath, display(recipePath));
      checkPlanSteps(info, new Set(raw.steps.map((s, i) => s.id ?? `${i}-${s.tool}`)), args.plan);
      const { loadApprovalsFile } = await import("../approvals.js");
      const approvalsFile = args.approvals ? await loadApprovalsFile(args.approvals) : new Map<string, string>();
      const { gate, seen } = createPlanGate(info);
      const source = { cwd, recipePath, policyPath: args.policy, vars: info.vars };
      // The plan's merge-base, not REF resolved again: the base branch may have moved since.
      const changed = info.changedSince
        ? { ...(await changedScope(info.changedSince.base, { ...source, exact: true })), ref: info.changedSince.ref }
        : args["changed-since"] !== undefined
          ? await changedScope(args["changed-since"], source)
          : undefined;
      const input: RunInput = {
        recipePath,
        command: "apply",
        ...repositoryOf(args.repository, process.env),
        ...(policy ? { policyPath: path.resolve(args.policy!), policy } : {}),
        dryRun: Boolean(args["dry-run"]),
        check: Boolean(args.check),
        atomic: Boolean(args.atomic),
        ...(args.mode ? { mode: args.mode } : {}),
        vars: info.vars,
        scope: {
          ...(info.files ? { files: info.files } : {}),
          ...(info.shard ? { shard: info.shard } : {}),
          ...(changed ? { changed } : {}),
          exclude: outputExcludes(cwd, [args.report, args.patch, args.summary, args.sarif, args.plan]),
        },
        approvals: { ids: approveIds(args.approve), approveAll: Boolean(args["approve-all"]), file: approvalsFile },
      };
      const code = await executeWithOutputs({ input, world: { cwd, displayBase: process.cwd(), ...(await cacheWorld(args, cwd)) }, gate }, args, {
        finish: async (report: Report) => {
          const missing = await missingActions(info, seen, new Workspace({ root: cwd }));
          for (const m of missing) {
            const why = m.alreadyApplied ? "already applied" : "no longer arises";
            process.stderr.write(`tollgate: planned action ${m.id} did not come back (${why}): ${m.label.split("\n")[0]}\n`);
          }
          return { ...report, fromPlan: { path: path.resolve(args.plan), sha256 }, missing };
        },
      });
      setExit(code);
    },
  };
}
