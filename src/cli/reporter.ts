import { EXIT } from "../exit-codes.js";
import { summaryLine } from "../report/markdown.js";
import type { OutcomeRecord, Report, StepRecord } from "../report/types.js";
import type { RunEvent } from "../runner/types.js";
import { outcomeLine } from "../report/words.js";
import { pathHint } from "../util/path-hint.js";
import { renderResolveReason } from "../session/resolve.js";
import { colorDiff, safeText, type Colors } from "../term.js";

interface ReporterOptions {
  colors: Colors;
  stream: NodeJS.WritableStream;
  /** Live progress (a redrawn status line) instead of plain lines: stderr is an interactive terminal. */
  live: boolean;
  /** Print the diffs of unapplied previews (text format), like `terraform plan`. */
  showDiffs: boolean;
  /** Cap on diff lines printed per action. */
  maxDiffLines?: number;
  /** plan: what the policy would decide for an action and why (`would auto-apply, rule "x"`). */
  wouldDecide?: (id: string) => string | undefined;
  /** The workspace root, named when a step cannot find a path. */
  cwd?: string;
}

/** The first line of a text, made safe to print and cut to 200 characters. */
function firstLine(text: string): string {
  return safeText(text.split("\n")[0] ?? "").slice(0, 200);
}

/** An outcome's lines: its word and label, the reason or error, and the diff of an unapplied preview. */
function outcomeText(o: OutcomeRecord, opts: ReporterOptions, diff: boolean): string {
  const c = opts.colors;
  const isError = ["failed", "stale", "blocked"].includes(o.outcome);
  const colour = isError ? c.red : o.outcome === "applied" ? c.green : c.yellow;
  const would = opts.wouldDecide?.(o.id);
  const lines = [
    `  ${colour(safeText(outcomeLine(o.outcome, o.label)))}${would ? ` ${c.bold(`(${safeText(would)})`)}` : ""} ${c.dim(`(${o.outcome}, ${o.id})`)}\n`,
    `    ${o.error ? c.red(safeText(o.error).replace(/\n/g, "\n    ")) : c.dim(firstLine(renderResolveReason(o.reason)))}\n`,
  ];
  if (diff && opts.showDiffs && (o.outcome === "dry-run" || o.outcome === "pending-approval") && o.diff) {
    lines.push(colorDiff(o.diff, c, opts.maxDiffLines ?? 400).replace(/^(?=.)/gm, "    "));
  }
  return lines.join("");
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Human output on stderr: one line per step and per resolve outcome, the diffs of what was left
 * unapplied, then one summary line. On a terminal a running step shows a spinner with the
 * tool's latest progress text (files scanned, edits found), redrawn in place.
 */
export function createReporter(opts: ReporterOptions) {
  const { colors: c, stream, live } = opts;
  const write = (line: string) => stream.write(`${line}\n`);
  let status: { text: string; frame: number; timer: NodeJS.Timeout } | undefined;
  /** Ids whose diff the approval prompt showed: their outcome lines do not print it again. */
  const prompted = new Set<string>();
  const draw = () => {
    if (!status) return;
    const cols = (stream as { columns?: number }).columns || 100;
    stream.write(`\r\x1b[K${c.cyan(FRAMES[status.frame++ % FRAMES.length])} ${status.text.slice(0, Math.max(20, cols - 3))}`);
  };
  const clear = () => {
    if (!status) return;
    clearInterval(status.timer);
    status = undefined;
    stream.write("\r\x1b[K");
  };
  const reporter = {
    /** The run's events, as the runner emits them. */
    event: (e: RunEvent) => {
      if (e.type === "step_started") reporter.stepStart(e);
      else if (e.type === "progress") reporter.progress(e);
      else if (e.type === "step_ended") reporter.stepEnd(e.step, e.index, e.total);
      else if (e.type === "outcome") reporter.outcome(e.record);
    },
    stepStart: (step: { id: string; tool: string; index: number; total: number }) => {
      const text = `[${step.index + 1}/${step.total}] ${safeText(step.id)} (${step.tool})`;
      if (!live) return; // one line per step, written when it ends
      clear();
      const timer = setInterval(draw, 80);
      timer.unref();
      status = { text, frame: 0, timer };
      draw();
    },
    progress: (info: { stepId: string; text: string }) => {
      if (!status) return;
      status.text = `${status.text.replace(/: .*$/, "")}: ${firstLine(info.text)}`;
    },
    stepEnd: (step: StepRecord, index: number, total: number) => {
      clear();
      const mark = step.status === "ok" ? c.green("✓") : c.red("✗");
      // A staging step's text is a long preview (its diff follows with the outcome): name what it staged.
      const text = step.status === "ok" && step.actions.length > 0 ? `staged ${step.actions.join(", ")}` : firstLine(step.resultText);
      if (step.status === "ok") return write(`${mark} [${index + 1}/${total}] ${safeText(step.id)} (${step.tool}): ${text}`);
      // An error is printed whole, terminal or not: its end is often the part that says what to do.
      const [head, ...rest] = safeText(step.resultText).split("\n");
      write(`${mark} [${index + 1}/${total}] ${safeText(step.id)} (${step.tool}): ${c.red(head ?? "")}`);
      for (const line of rest) write(`    ${line}`);
      if (opts.cwd && /^Path not found: /.test(step.resultText)) write(`    ${c.dim(pathHint(opts.cwd))}`);
    },
    outcome: (o: OutcomeRecord) => {
      clear();
      stream.write(outcomeText(o, opts, !prompted.has(o.id)));
    },
    done: (report: Report) => {
      clear();
      const colour = report.exitCode === EXIT.ok ? c.green : report.exitCode === EXIT.outstanding ? c.yellow : c.red;
      write(`tollgate: ${summaryLine(report)} ${colour(`(exit ${report.exitCode})`)}${report.run.interrupted ? c.red(" interrupted") : ""}`);
    },
    /** A run-log line (custom tools' `pi.logger`): printed above the spinner, which keeps going. */
    log: (line: string) => {
      if (status) stream.write("\r\x1b[K");
      write(`  ${c.dim(safeText(line))}`);
      draw();
    },
    /** Stops the spinner (before a prompt or an error message). */
    pause: clear,
    /** The approval prompt is about to show this action's diff: stop the spinner, and do not print the diff again. */
    beforePrompt: (id: string) => {
      clear();
      prompted.add(id);
    },
  };
  return reporter;
}
