import { createReadStream, readFileSync } from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { writeReportJson } from "../report/json.js";
import { renderSummary } from "../report/markdown.js";
import { writeCombinedPatch, type Preview } from "../report/patch.js";
import type { Report } from "../report/types.js";
import { writeFileAtomicStream, writeFileAtomicText } from "../workspace/output-file.js";
import type { Format } from "./options.js";
import { toPosix } from "../util/inside.js";

export interface OutputArgs {
  report?: string;
  patch?: string;
  summary?: string;
  /** `--sarif FILE`: SARIF 2.1.0 for GitHub code scanning (report/sarif.ts). */
  sarif?: string;
  format?: Format;
}

interface OutputContext {
  env: NodeJS.ProcessEnv;
  /** Warnings about the outputs (a preview left out of the patch, SARIF truncated). */
  log?: (line: string) => void;
  /** The run's unapplied previews, for `--patch`. */
  previews?: readonly Preview[];
}

/** Writes to a stream, waiting whenever it asks to (stdout into a slow pipe). */
async function toStream(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, "drain");
}

/**
 * Writes the CLI's own output files (wherever the user names them, atomically) and machine
 * stdout, each assembled piece by piece from the report and the run's spilled diffs: the report
 * one outcome at a time (stdout's JSON is a copy of the finished file), the patch one file at a
 * time. `--format github` output is added by the GitHub integration (src/github), which reads
 * each outcome's diff as it renders it.
 */
export async function writeOutputs(report: Report, args: OutputArgs, ctx: OutputContext): Promise<void> {
  const { env, log = () => {}, previews = [] } = ctx;
  if (args.report) await writeFileAtomicStream(args.report, (write) => writeReportJson(report, write), "--report");
  if (args.patch) {
    const root = report.run.cwd;
    await writeFileAtomicStream(
      args.patch,
      (write) =>
        writeCombinedPatch(
          previews,
          (p) => readCurrent(path.join(root, p)),
          write,
          (s) => log(`tollgate: --patch: ${s.id} left out for ${s.path}: it conflicts with an earlier preview of that file`),
        ),
      "--patch",
    );
  }
  if (args.summary) {
    await writeFileAtomicText(args.summary, renderSummary(report, args.report ? { reportPath: args.report } : {}), "--summary");
  }
  let sarif: { path: string; errorCount: number } | undefined;
  if (args.sarif) {
    const { buildSarif } = await import("../report/sarif.js");
    const { gitTopLevel } = await import("../git.js");
    const top = await gitTopLevel(report.run.cwd, env);
    const rel = top ? toPosix(path.relative(top, report.run.cwd)) : "";
    const built = buildSarif(report, { repoPrefix: rel.startsWith("..") ? "" : rel });
    if (built.truncated > 0) log(`tollgate: --sarif: ${built.truncated} result(s) left out to stay within GitHub code scanning's limits`);
    await writeFileAtomicText(args.sarif, `${JSON.stringify(built.log, null, 2)}\n`, "--sarif");
    sarif = { path: args.sarif, errorCount: built.errorCount };
  }
  if (args.format === "json") {
    if (args.report) {
      for await (const chunk of createReadStream(path.resolve(args.report), { encoding: "utf8" })) await toStream(process.stdout, chunk as string);
    } else {
      await writeReportJson(report, (chunk) => toStream(process.stdout, chunk));
    }
  }
  if (args.format === "github" || env.GITHUB_ACTIONS === "true") {
    const { writeGithub } = await import("../github/index.js");
    await writeGithub(report, {
      env,
      ...(args.format === "github" ? { stdout: process.stdout } : {}),
      ...(args.report ? { reportPath: args.report } : {}),
      ...(sarif ? { sarif } : {}),
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
