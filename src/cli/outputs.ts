import type { Report } from "../report/types.js";
import { writeFileAtomicText } from "../report/write.js";

export interface OutputArgs {
  report?: string;
  patch?: string;
  summary?: string;
  format?: "text" | "json" | "github";
}

/** Writes the CLI's own output files (wherever the user names them) and machine stdout. */
export async function writeOutputs(report: Report, args: OutputArgs): Promise<void> {
  if (args.report) await writeFileAtomicText(args.report, `${JSON.stringify(report, null, 2)}\n`);
  if (args.format === "json") process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}
