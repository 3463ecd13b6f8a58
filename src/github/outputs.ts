import type { Report } from "../report/types.js";

/**
 * Step outputs for `$GITHUB_OUTPUT`: `changed` (any action was staged, applied or not),
 * `pending-count` (actions awaiting approval), `report` (its path, when written), and with
 * `--sarif`, `sarif` (its path) and `error-count`. A value
 * with a line break is written as a heredoc with a random delimiter it does not contain.
 */
export function renderOutputs(report: Report, options: { reportPath?: string; sarif?: { path: string; errorCount: number }; delimiter: () => string }): string {
  const values: Array<[string, string]> = [
    ["changed", String(report.outcomes.length > 0)],
    ["pending-count", String(report.summary.outcomes["pending-approval"])],
  ];
  if (options.reportPath !== undefined) values.push(["report", options.reportPath]);
  // error-count: error-level SARIF results (unfixed error findings), for the action's gate.
  if (options.sarif) values.push(["sarif", options.sarif.path], ["error-count", String(options.sarif.errorCount)]);
  return values
    .map(([name, value]) => {
      if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
      let delimiter = options.delimiter();
      while (value.includes(delimiter)) delimiter = options.delimiter();
      return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
    })
    .join("");
}
