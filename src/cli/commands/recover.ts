import path from "node:path";
import type { CommandModule } from "yargs";

interface RecoverArgs {
  cwd?: string;
}

/**
 * `tollgate recover`: puts back the files of an apply that was killed midway (from
 * `.tollgate/journal.json`), removes its temp files and the journal. Exit 0 when there was
 * nothing to do or everything was restored; 3 when it could not (the journal is kept).
 */
export function recoverCommand(setExit: (code: number) => void): CommandModule<object, RecoverArgs> {
  return {
    command: "recover",
    describe: "Restore the files of an interrupted apply from .tollgate/journal.json",
    builder: (y) => y.option("cwd", { type: "string", describe: "Workspace root (default: the current directory)" }) as never,
    handler: async (args) => {
      const { recover } = await import("../../workspace/recover.js");
      const { sanitizeForTerminal } = await import("../../workspace/sanitize.js");
      const root = path.resolve(args.cwd ?? ".");
      const result = await recover(root);
      if (!result.found) {
        process.stderr.write("tollgate recover: nothing to recover (no journal in .tollgate/)\n");
      } else {
        const n = result.restored.length;
        process.stderr.write(
          `tollgate recover: restored ${n} file${n === 1 ? "" : "s"} from the apply interrupted at ${result.createdAt} (pid ${result.pid})\n`,
        );
        for (const file of result.restored) process.stderr.write(`  ${sanitizeForTerminal(file)}\n`);
      }
      setExit(0);
    },
  };
}
