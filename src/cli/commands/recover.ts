import path from "node:path";
import { EXIT } from "../../exit-codes.js";
import type { CommandSpec } from "../command.js";
import { plural } from "../../util/plural.js";

interface RecoverArgs {
  cwd?: string;
  policy?: string;
}

/**
 * `tollgate recover`: puts back the files of an apply that was killed midway (from
 * `.tollgate/journal.json`), removes its temp files and the journal. Exit 0 when there was
 * nothing to do or everything was restored; 3 when it could not (the journal is kept).
 */
export const recoverCommand: CommandSpec<RecoverArgs> = {
  command: "recover",
  usage: "recover",
  describe: "Restore the files of an interrupted apply from .tollgate/journal.json",
  shared: ["cwd"],
  own: { policy: { type: "string", group: "Decisions:", describe: "Policy whose protect globs no restored file may match" } },
  run: async (args, invocation) => {
    const { recover } = await import("../../workspace/recover.js");
    const { safeText } = await import("../../term.js");
    const root = path.resolve(args.cwd ?? ".");
    const { checkWorkspaceDir } = await import("../../workspace/root.js");
    checkWorkspaceDir(root, args.cwd);
    const protect = args.policy ? (await (await import("../../policy/policy.js")).loadPolicy(args.policy)).protect : undefined;
    const shown = (files: string[]) => files.map((f) => `  ${safeText(f)}\n`).join("");
    const result = await recover(root, {
      process: invocation.process,
      ...(protect ? { protect } : {}),
      // Said before anything is written, so the user sees what is about to change.
      onPlan: (plan) => {
        const n = plan.restore.length + plan.remove.length;
        process.stderr.write(
          `tollgate recover: the apply interrupted at ${plan.createdAt} (pid ${plan.pid}) left ${plural(n, "file")} to put back:\n` +
            (plan.restore.length > 0 ? `restoring:\n${shown(plan.restore)}` : "") +
            (plan.remove.length > 0 ? `removing (created by the apply):\n${shown(plan.remove)}` : "") +
            (plan.dirs.length > 0 ? `removing if empty:\n${shown(plan.dirs.map((d) => `${d}/`))}` : ""),
        );
      },
    });
    const temps = result.removedTemps.length;
    const removed = temps > 0 ? `; removed ${plural(temps, "temp file")} of interrupted writes` : "";
    if (!result.found) {
      process.stderr.write(`tollgate recover: nothing to recover (no journal in .tollgate/)${removed}\n`);
    } else {
      const n = result.restored.length;
      process.stderr.write(`tollgate recover: restored ${plural(n, "file")} from the apply interrupted at ${result.createdAt} (pid ${result.pid})${removed}\n`);
    }
    return EXIT.ok;
  },
};
