// Exit 1 means something is outstanding: say how to move on, not only that it is so.
import { EXIT } from "../exit-codes.js";
import type { Report } from "../report/types.js";

/** A shell word as a user would type it (single-quoted when it holds anything special). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./#-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const MANY_FILES = 8;

/** The command line without the flags that keep it from applying (`--check`, `--dry-run`). */
function withoutDryRun(argv: readonly string[]): string[] {
  return argv.filter((a) => !/^--(check|dry-run)(=.*)?$/.test(a) && a !== "--no-check");
}

/** The run's own files left out of a long command line (pre-commit passes every staged file). */
function shorten(words: string[], files: readonly string[] | null): { words: string[]; note: string } {
  if (!files || files.length <= MANY_FILES) return { words, note: "" };
  const set = new Set(files);
  return { words: words.filter((w) => !set.has(w)), note: ` (on the same ${files.length} files)` };
}

/**
 * The lines that follow an exit 1: which `--approve` values apply what awaits approval, or,
 * after `--check`, the command that applies the change. Nothing for any other exit code.
 */
export function nextSteps(report: Report, argv: readonly string[]): string[] {
  if (report.exitCode !== EXIT.outstanding) return [];
  const pending = report.outcomes.filter((o) => o.outcome === "pending-approval").map((o) => o.id);
  const command = report.run.command;
  if (pending.length > 0 && !report.run.check) {
    const ids = pending.length <= 3 ? pending.join(",") : "<id>";
    const what = pending.length === 1 ? "1 action awaits approval" : `${pending.length} actions await approval`;
    return [
      `tollgate: ${what}: run again with --approve ${ids}${pending.length > 1 ? " (a comma-separated list)" : ""}, or --approve-all to approve every one`,
    ];
  }
  if (!report.run.check) return [];
  const words = withoutDryRun(argv);
  if (command === "run" && !words.some((w) => w === "--mode" || w.startsWith("--mode="))) words.push("--mode", "auto-apply");
  if (command === "plan") {
    const at = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
    const plan = at("--out");
    const policy = at("--policy");
    const apply = ["apply", plan ?? "plan.json", ...(policy ? ["--policy", policy] : []), "--approve-all"].map(shellWord).join(" ");
    return [`tollgate: --check found changes; to apply them: tollgate ${apply}${plan ? "" : " (write the plan with --out plan.json)"}`];
  }
  if (command === "apply" && !words.includes("--approve-all")) words.push("--approve-all");
  const { words: shown, note } = shorten(words, report.run.files);
  return [`tollgate: --check found changes; to apply them: tollgate ${shown.map(shellWord).join(" ")}${note}`];
}
