import type { CommandModule } from "yargs";
import { InputError } from "../../errors.js";
import type { Preview } from "../../report/patch.js";
import type { OutputArgs } from "../outputs.js";

/** Report members read one element at a time (outcomes carry the diffs). */
const STREAMED = new Set(["steps", "outcomes"]);

interface MergeArgs extends OutputArgs {
  reports: string[];
  cwd?: string;
}

/** `tollgate merge-reports a.json b.json …`: one report (and summary/patch) from shard reports. */
export function mergeReportsCommand(setExit: (code: number) => void): CommandModule<object, MergeArgs> {
  return {
    command: "merge-reports <reports..>",
    describe: "Combine shard reports (--shard i/n) into one report, summary and patch",
    builder: (y) =>
      y
        .positional("reports", { type: "string", array: true, demandOption: true, describe: "Report files to merge" })
        .option("report", { type: "string", describe: "Write the merged JSON report to FILE" })
        .option("patch", { type: "string", describe: "Write unapplied previews as one git patch to FILE" })
        .option("summary", { type: "string", describe: "Write a markdown summary to FILE" })
        .option("sarif", { type: "string", describe: "Write SARIF 2.1.0 for GitHub code scanning to FILE" })
        .option("cwd", { type: "string", describe: "Workspace the shards ran in, for --patch (default: the first report's, else .)" })
        .option("format", { choices: ["text", "json", "github"] as const, describe: "stdout format (json prints the report)" }) as never,
    handler: async (args) => {
      const [{ asReport, mergeReports, rebuildPreviews }, { readJsonStreamed, spillDiff }, { fileSpill }, { writeOutputs }, { existsSync, readFileSync }, path] = await Promise.all([
        import("../../shard/merge.js"),
        import("../../shard/read.js"),
        import("../../spill/store.js"),
        import("../outputs.js"),
        import("node:fs"),
        import("node:path"),
      ]);
      // The reports' diffs wait on disk (in the OS temp directory: merging writes nothing into a
      // workspace) until the outputs are assembled: one outcome's diff in memory at a time.
      const spill = fileSpill(() => []);
      try {
        setExit(await merge());
      } finally {
        spill.dispose();
      }
      async function merge(): Promise<number> {
        const inputs = [];
        for (const file of args.reports.map(String)) {
          let data: unknown;
          try {
            data = await readJsonStreamed(file, STREAMED, (key, value) => (key === "outcomes" ? spillDiff(value, spill) : value));
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            throw new InputError(`${file}: cannot read report (${code === "ENOENT" ? "file not found" : code ?? (err as Error).message})`);
          }
          inputs.push({ file, report: asReport(file, data) });
        }
        const merged = mergeReports(inputs);
        const root = args.cwd !== undefined ? path.resolve(args.cwd) : existsSync(merged.run.cwd) ? merged.run.cwd : process.cwd();
        merged.run.cwd = root;
        let previews: Preview[] = [];
        if (args.patch) {
          const read = (p: string) => {
            try {
              return readFileSync(path.join(root, p), "utf8");
            } catch {
              return null;
            }
          };
          const rebuilt = rebuildPreviews(merged, read, spill);
          for (const p of rebuilt.skipped) process.stderr.write(`tollgate: --patch: ${p} left out: it is not as the shard saw it\n`);
          previews = rebuilt.previews;
        }
        if (merged.merged.missingShards.length > 0) {
          process.stderr.write(`tollgate: shards ${merged.merged.missingShards.join(", ")} of ${merged.merged.shardCount} are missing from the merge\n`);
        }
        const s = merged.summary;
        const parts = Object.entries(s.outcomes).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
        const n = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;
        process.stderr.write(`tollgate: merged ${n(inputs.length, "report")}, ${n(s.actions, "action")}${parts.length ? `: ${parts.join(", ")}` : ""} (exit ${merged.exitCode})\n`);
        const format = args.format ?? (process.env.GITHUB_ACTIONS === "true" ? "github" : "text");
        await writeOutputs(merged, { ...args, format }, () => {}, previews);
        return merged.exitCode;
      }
    },
  };
}
