import { readFileSync } from "node:fs";
import path from "node:path";
import { renderSummary } from "../report/markdown.js";
import { combinePreviews, previewsFor } from "../report/patch.js";
import type { Report } from "../report/types.js";
import { writeFileAtomicText } from "../report/write.js";

export interface OutputArgs {
  report?: string;
  patch?: string;
  summary?: string;
  format?: "text" | "json" | "github";
}

/**
 * Writes the CLI's own output files (wherever the user names them, atomically) and machine
 * stdout. `--format github` output is added by the GitHub integration (src/cli/github*), which
 * calls this for the files and adds annotations/outputs itself.
 */
export async function writeOutputs(report: Report, args: OutputArgs, log: (line: string) => void = () => {}): Promise<void> {
  if (args.report) await writeFileAtomicText(args.report, `${JSON.stringify(report, null, 2)}\n`);
  if (args.patch) {
    const root = report.run.cwd;
    const { patch, skipped } = combinePreviews(previewsFor(report), (p) => readCurrent(path.join(root, p)));
    for (const s of skipped) log(`tollgate: --patch: ${s.id} left out for ${s.path}: it conflicts with an earlier preview of that file`);
    await writeFileAtomicText(args.patch, patch);
  }
  if (args.summary) {
    await writeFileAtomicText(args.summary, renderSummary(report, args.report ? { reportPath: args.report } : {}));
  }
  if (args.format === "json") process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (args.format === "github" || process.env.GITHUB_ACTIONS === "true") {
    const { writeGithub } = await import("../github/index.js");
    await writeGithub(report, {
      env: process.env,
      ...(args.format === "github" ? { stdout: process.stdout } : {}),
      ...(args.report ? { reportPath: args.report } : {}),
    });
  }
}

function readCurrent(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
