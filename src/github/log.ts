import type { Report } from "../report/types.js";
import { escapeData } from "./escape.js";

const MAX_DIFF_LINES = 200;

/**
 * The run's log for the Actions viewer: one `::group::` per step with its result and the diffs of
 * the actions it pushed. Everything that comes from files or tools is fenced with
 * `::stop-commands::<token>` … `::<token>::`, so a line in a file cannot inject a workflow command.
 */
export function renderLog(report: Report, token: string, where = "the JSON report"): string[] {
  const out: string[] = [];
  const total = report.steps.length;
  const byStep = new Map<string, typeof report.outcomes>();
  for (const o of report.outcomes) byStep.set(o.step, [...(byStep.get(o.step) ?? []), o]);
  report.steps.forEach((step, i) => {
    out.push(`::group::${escapeData(`step ${i + 1}/${total} ${step.id} (${step.tool}): ${step.status}`)}`);
    out.push(`::stop-commands::${token}`);
    out.push(...step.resultText.split("\n"));
    for (const o of byStep.get(step.id) ?? []) {
      out.push(`--- ${o.id}: ${o.label} → ${o.outcome} (${o.error ?? o.reason})`);
      const lines = o.diff.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      out.push(...lines.slice(0, MAX_DIFF_LINES));
      if (lines.length > MAX_DIFF_LINES) out.push(`… ${lines.length - MAX_DIFF_LINES} more diff lines in ${where}`);
    }
    out.push(`::${token}::`);
    out.push("::endgroup::");
  });
  return out;
}
