import { randomBytes } from "node:crypto";
import { appendFile, stat } from "node:fs/promises";
import path from "node:path";
import { renderSummary } from "../report/markdown.js";
import type { Report } from "../report/types.js";
import { renderAnnotations } from "./annotations.js";
import { renderLog } from "./log.js";
import { renderOutputs } from "./outputs.js";
import { relativeInside } from "../util/inside.js";

const SUMMARY_LIMIT = 1024 * 1024;

interface GithubOptions {
  env: NodeJS.ProcessEnv;
  /** Workflow commands (log groups, annotations): only with `--format github`. */
  stdout?: NodeJS.WritableStream;
  /** The `--report` path as given, when one is written. */
  reportPath?: string;
  random?: () => string;
  /** The `--sarif` file as given and its error-level result count (outputs `sarif`, `error-count`). */
  sarif?: { path: string; errorCount: number };
}

/**
 * GitHub Actions integration: workflow commands on stdout, the markdown job summary
 * appended to `$GITHUB_STEP_SUMMARY` (kept under GitHub's 1 MiB per step, counting what is
 * already there) and outputs appended to `$GITHUB_OUTPUT`.
 */
export async function writeGithub(report: Report, options: GithubOptions): Promise<void> {
  const random = options.random ?? (() => randomBytes(16).toString("hex"));
  const reportPath = options.reportPath !== undefined ? path.resolve(options.reportPath) : undefined;
  const where = reportPath ? `the report (${reportPath})` : "the JSON report (--report)";
  if (options.stdout) {
    // Annotation paths are repository-relative: prefix the workspace's place in the checkout.
    const repo = options.env.GITHUB_WORKSPACE;
    const rel = repo ? relativeInside(repo, report.run.cwd) : undefined;
    const prefix = rel !== undefined ? `${rel}/` : "";
    const lines = [...renderLog(report, random(), where), ...renderAnnotations(report, { prefix })];
    options.stdout.write(lines.map((l) => `${l}\n`).join(""));
  }
  const summaryFile = options.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) {
    const existing = await stat(summaryFile)
      .then((s) => s.size)
      .catch(() => 0);
    const maxBytes = Math.max(16 * 1024, SUMMARY_LIMIT - existing - 8 * 1024);
    await appendFile(summaryFile, `${renderSummary(report, { maxBytes, ...(reportPath ? { reportPath } : {}) })}\n`);
  }
  const outputFile = options.env.GITHUB_OUTPUT;
  if (outputFile) {
    await appendFile(
      outputFile,
      renderOutputs(report, {
        ...(reportPath ? { reportPath } : {}),
        ...(options.sarif ? { sarif: { path: path.resolve(options.sarif.path), errorCount: options.sarif.errorCount } } : {}),
        delimiter: () => `ghadelim_${random()}`,
      }),
    );
  }
}
