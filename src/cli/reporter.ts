import type { OutcomeRecord, Report, StepRecord } from "../report/types.js";
import { renderResolveLine } from "../session/resolve.js";
import { safeText, type Colors } from "./output.js";

/** Human progress on stderr: one line per step and per resolve outcome, then a summary line. */
export function createReporter(opts: { colors: Colors; stream: NodeJS.WritableStream }) {
  const { colors: c, stream } = opts;
  const write = (line: string) => stream.write(`${line}\n`);
  const firstLine = (text: string) => safeText(text.split("\n")[0] ?? "").slice(0, 200);
  return {
    stepStart: (_step: { id: string; tool: string; index: number; total: number }) => {},
    stepEnd: (step: StepRecord, index: number, total: number) => {
      const mark = step.status === "ok" ? c.green("✓") : c.red("✗");
      write(`${mark} [${index + 1}/${total}] ${step.id} (${step.tool}): ${firstLine(step.resultText)}`);
    },
    outcome: (o: OutcomeRecord) => {
      const isError = ["failed", "stale", "blocked"].includes(o.outcome);
      const line = renderResolveLine(o.action, o.label, isError);
      const colour = isError ? c.red : o.outcome === "applied" ? c.green : c.yellow;
      write(`  ${colour(safeText(line))} ${c.dim(`(${o.outcome}, ${o.id})`)}`);
      write(`    ${c.dim(firstLine(o.error ?? o.reason))}`);
    },
    done: (report: Report) => {
      const s = report.summary;
      const parts = Object.entries(s.outcomes)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${k}`);
      const actions = `${s.actions} action${s.actions === 1 ? "" : "s"}${parts.length ? `: ${parts.join(", ")}` : ""}`;
      const errors = s.stepErrors > 0 ? `, ${s.stepErrors} step error${s.stepErrors === 1 ? "" : "s"}` : "";
      write(`tollgate: ${s.steps} step${s.steps === 1 ? "" : "s"}${errors}, ${actions} (exit ${report.exitCode})`);
    },
  };
}
