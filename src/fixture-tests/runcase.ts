import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { InputError, type Issue } from "../errors.js";
import { messageOf } from "../util/thrown.js";
import type { ExecFn } from "../subprocess.js";
import type { Report } from "../report/types.js";
import type { RunInput, RunWorld } from "../runner/types.js";
import type { TestCase } from "./case.js";
import { pathScrubber, snapshotDiff, snapshotOf, snapshotText } from "./snapshot.js";
import { compareTrees, copyInput, readTree, writeTree } from "./tree.js";

type FailureKind = "exit-code" | "tree" | "report" | "idempotence" | "error";

interface CaseFailure {
  kind: FailureKind;
  message: string;
  /** Unified diff (expected → actual) where one helps. */
  diff?: string;
}

export interface CaseResult {
  recipe: string;
  name: string;
  status: "passed" | "failed" | "invalid";
  failures: CaseFailure[];
  /** Invalid fixture or recipe (exit 2). */
  issues: Issue[];
  /** What `--update` wrote: "expected/", "expected-report.json". */
  updated: string[];
  idempotence: "checked" | "skipped" | "off";
  /** The temp workspace, when kept. */
  workspace?: string;
  durationMs: number;
}

interface CaseContext {
  recipe: string;
  recipeDisplay: string;
  update: boolean;
  exec: ExecFn;
  now: () => number;
  /** Keep the temp workspace (for debugging) instead of removing it. */
  keep?: boolean;
  displayBase: string;
}

const GIT_QUIET = ["-c", "user.name=tollgate test", "-c", "user.email=test@tollgate.invalid", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"];

/** The input committed in a fresh repository, so discovery sees .gitignore as git does. */
async function initGit(dir: string, exec: ExecFn): Promise<void> {
  for (const args of [
    ["init", "-q"],
    ["add", "-A"],
    ["commit", "-q", "--allow-empty", "--no-verify", "-m", "input"],
  ]) {
    const r = await exec("git", [...GIT_QUIET, ...args], { cwd: dir, timeout: 30_000 });
    if (r.code !== 0) {
      throw new Error(`git ${args[0]} failed in the case workspace (${(r.stderr || r.stdout).trim()}); set git: false in case.yaml to run without git`);
    }
  }
}

function runProblems(report: Report): string {
  const lines: string[] = [];
  for (const s of report.steps) if (s.status === "error") lines.push(`step ${s.id} (${s.tool}) failed: ${s.resultText}`);
  for (const o of report.outcomes) {
    if (o.outcome !== "applied" && o.outcome !== "discarded" && o.outcome !== "dry-run") lines.push(`${o.id} ${o.outcome}: ${o.error ?? o.reason}`);
  }
  return lines.join("\n");
}

/** What a case's checks share: the case, the context, its result so far, and the path scrubber. */
interface CaseRun {
  testCase: TestCase;
  ctx: CaseContext;
  result: CaseResult;
  scrub: (text: string) => string;
}

const fail = (run: CaseRun, f: CaseFailure) => run.result.failures.push(f);

function runInputOf(testCase: TestCase, ctx: CaseContext): RunInput {
  return {
    recipePath: ctx.recipe,
    command: "test",
    ...(testCase.policyPath ? { policyPath: testCase.policyPath } : { mode: "auto-apply" }),
    vars: Object.entries(testCase.vars).map(([k, v]) => `${k}=${String(v)}`),
    scope: testCase.files ? { files: testCase.files } : {},
  };
}

/** The tree against expected/ (written instead with `--update`, when the run exited as expected). */
async function checkTree(run: CaseRun, ws: string, exitOk: boolean): Promise<void> {
  const { testCase, ctx, result } = run;
  const actual = await readTree(ws);
  const expected = testCase.hasExpected ? await readTree(testCase.expectedDir) : undefined;
  const differences = expected ? compareTrees(expected, actual) : [];
  if (ctx.update && exitOk && (!expected || differences.length > 0)) {
    await writeTree(testCase.expectedDir, actual);
    result.updated.push("expected/");
  } else if (!expected) {
    fail(run, { kind: "tree", message: "no expected/ folder: run with --update to create it from this run" });
  } else if (differences.length > 0) {
    const list = differences.map((d) => `${d.kind === "missing" ? "not produced" : d.kind === "unexpected" ? "not expected" : "differs"}: ${d.path}`);
    fail(run, {
      kind: "tree",
      message: `the result differs from expected/ in ${differences.length} file(s):\n${list.join("\n")}`,
      diff: differences.map((d) => d.diff).join(""),
    });
  }
}

/** The report against expected-report.json (written instead with `--update`). */
async function checkReport(run: CaseRun, report: Report, exitOk: boolean): Promise<void> {
  const { testCase, ctx, result } = run;
  const snapshot = snapshotOf(report, run.scrub);
  const stored = testCase.hasSnapshot ? await readFile(testCase.snapshotPath, "utf8") : undefined;
  const snapDiff = stored === undefined ? "" : snapshotDiff(stored, snapshot);
  if (ctx.update && exitOk && (stored === undefined || snapDiff)) {
    await writeFile(testCase.snapshotPath, snapshotText(snapshot));
    result.updated.push("expected-report.json");
  } else if (snapDiff) {
    fail(run, { kind: "report", message: "the report differs from expected-report.json", diff: snapDiff });
  }
}

/** f(f(x)) = f(x): a second run on the result stages no change and fails no step. */
function checkIdempotence(run: CaseRun, second: Report): void {
  const errors = second.steps.filter((s) => s.status === "error");
  const staged = second.outcomes.filter((o) => o.outcome !== "discarded");
  if (errors.length === 0 && staged.length === 0) return;
  const lines = [...errors.map((s) => `step ${s.id} (${s.tool}) failed: ${s.resultText}`), ...staged.map((o) => `${o.id} ${o.label} (${o.outcome})`)];
  fail(run, {
    kind: "idempotence",
    message: `not idempotent: a second run on the result staged ${staged.length} change(s)${errors.length ? ` and ${errors.length} step error(s)` : ""} (set idempotent: false in case.yaml if that is intended)\n${run.scrub(lines.join("\n"))}`,
    diff: staged.map((o) => o.diff).join(""),
  });
}

/** The case in its workspace: the run, then the tree, the report and idempotence checked. */
async function runInWorkspace(testCase: TestCase, ctx: CaseContext, result: CaseResult, ws: string): Promise<void> {
  await copyInput(testCase.inputDir, ws);
  if (testCase.git) await initGit(ws, ctx.exec);
  const { runRecipe } = await import("../runner/run.js");
  const input = runInputOf(testCase, ctx);
  const world: RunWorld = { cwd: ws, exec: ctx.exec, displayBase: ctx.displayBase };
  const execute = async () => (await runRecipe(input, world)).report;
  const first = await execute();
  const scrub = pathScrubber([
    [ws, "<workspace>"],
    [path.dirname(ctx.recipe), "<recipe-dir>"],
  ]);
  const run: CaseRun = { testCase, ctx, result, scrub };
  const exitOk = first.exitCode === testCase.exitCode;
  if (!exitOk) {
    fail(run, { kind: "exit-code", message: `the run exited ${first.exitCode}, expected ${testCase.exitCode}\n${scrub(runProblems(first))}`.trimEnd() });
  }
  await checkTree(run, ws, exitOk);
  await checkReport(run, first, exitOk);
  // Only meaningful when the first run changed something.
  if (testCase.idempotent && exitOk && first.summary.outcomes.applied > 0) {
    result.idempotence = "checked";
    checkIdempotence(run, await execute());
  }
}

/**
 * Runs one case: input copied to a temp workspace, the recipe run in-process (auto-apply unless
 * the case has a policy.yaml), the tree compared byte for byte with expected/, the report with
 * expected-report.json, then a second run on the result that must stage no change.
 */
export async function runCase(testCase: TestCase, ctx: CaseContext): Promise<CaseResult> {
  const started = ctx.now();
  const result: CaseResult = {
    recipe: ctx.recipeDisplay,
    name: testCase.name,
    status: "passed",
    failures: [],
    issues: [],
    updated: [],
    idempotence: testCase.idempotent ? "skipped" : "off",
    durationMs: 0,
  };
  const root = await realpath(await mkdtemp(path.join(tmpdir(), "tollgate-case-")));
  const ws = path.join(root, "workspace");
  try {
    await runInWorkspace(testCase, ctx, result, ws);
  } catch (err) {
    if (err instanceof InputError) result.issues.push(...err.issues);
    else result.failures.push({ kind: "error", message: messageOf(err) });
  } finally {
    if (ctx.keep) result.workspace = ws;
    else await rm(root, { recursive: true, force: true }).catch(() => {});
  }
  result.status = result.issues.length > 0 ? "invalid" : result.failures.length > 0 ? "failed" : "passed";
  result.durationMs = ctx.now() - started;
  return result;
}
