import { formatIssue, type Issue } from "../errors.js";
import { safeText, type Colors } from "../term.js";
import type { CaseResult } from "./runcase.js";
import type { TestRun } from "./suite.js";

function indent(text: string, pad = "    "): string {
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `${pad}${l}`)
    .join("\n");
}

function colourDiff(diff: string, c: Colors): string {
  return diff
    .split("\n")
    .map((l) => {
      const line = safeText(l);
      if (l.startsWith("+++") || l.startsWith("---")) return c.bold(line);
      if (l.startsWith("+")) return c.green(line);
      if (l.startsWith("-")) return c.red(line);
      if (l.startsWith("@@")) return c.cyan(line);
      return line;
    })
    .join("\n");
}

/** Human lines for one case (stderr): a ✓/✗ line, then reasons and diffs for a failure. */
export function caseText(r: CaseResult, c: Colors): string {
  const id = `${r.recipe} › ${r.name}`;
  const time = c.dim(`(${r.durationMs < 1000 ? `${r.durationMs} ms` : `${(r.durationMs / 1000).toFixed(1)} s`})`);
  const updated = r.updated.length > 0 ? c.yellow(` updated ${r.updated.join(", ")}`) : "";
  const lines: string[] = [];
  if (r.status === "passed") lines.push(`${c.green("✓")} ${id} ${time}${updated}`);
  else if (r.status === "invalid") {
    lines.push(`${c.red("✗")} ${id} ${c.red("(invalid fixture)")}`);
    for (const issue of r.issues) lines.push(indent(safeText(formatIssue(issue))));
  } else {
    lines.push(`${c.red("✗")} ${id} ${time}${updated}`);
    for (const f of r.failures) {
      lines.push(indent(safeText(`${f.kind}: ${f.message}`)));
      if (f.diff) lines.push(indent(colourDiff(f.diff, c), "      "));
    }
  }
  if (r.workspace) lines.push(indent(c.dim(`workspace kept: ${r.workspace}`)));
  return `${lines.join("\n")}\n`;
}

export function issuesText(issues: readonly Issue[], c: Colors): string {
  return issues.map((i) => `${c.red("✗")} ${safeText(formatIssue(i))}\n`).join("");
}

/** The closing line: `N passed, N failed` (invalid and updated counts when there are any). */
export function summaryText(run: TestRun, c: Colors): string {
  const s = run.summary;
  const parts = [c.green(`${s.passed} passed`), s.failed > 0 ? c.red(`${s.failed} failed`) : `${s.failed} failed`];
  if (s.invalid > 0) parts.push(c.red(`${s.invalid} invalid`));
  if (s.updated > 0) parts.push(c.yellow(`${s.updated} updated`));
  return `${parts.join(", ")}\n`;
}

/** `--reporter json` (stdout). */
export function jsonReport(run: TestRun): string {
  return `${JSON.stringify(
    {
      schemaVersion: 1,
      summary: run.summary,
      exitCode: run.exitCode,
      issues: run.issues.map((i) => ({ ...i, text: formatIssue(i) })),
      cases: run.cases.map((r) => ({
        recipe: r.recipe,
        case: r.name,
        status: r.status,
        failures: r.failures,
        issues: r.issues.map((i) => ({ ...i, text: formatIssue(i) })),
        updated: r.updated,
        idempotence: r.idempotence,
        durationMs: r.durationMs,
        ...(r.workspace ? { workspace: r.workspace } : {}),
      })),
    },
    null,
    2,
  )}\n`;
}
