import path from "node:path";
import type { Issue } from "../errors.js";
import type { ExecFn } from "../subprocess.js";
import { globMatcher } from "../policy/glob.js";
import { loadCase } from "./case.js";
import { discover } from "./discover.js";
import { runCase, type CaseResult } from "./runcase.js";
import { displayPath } from "../util/inside.js";

export interface TestOptions {
  targets: string[];
  /** Case selectors: substring of `<recipe>/<case>`, or a glob over the case name or `<recipe-name>/<case>`. */
  filter?: string[];
  update?: boolean;
  keep?: boolean;
  exec: ExecFn;
  now: () => number;
  /** Paths in messages are relative to this (the user's shell cwd). */
  displayBase: string;
  onCase?: (result: CaseResult) => void;
}

interface TestSummary {
  passed: number;
  failed: number;
  invalid: number;
  updated: number;
}

export interface TestRun {
  cases: CaseResult[];
  /** Problems found before any case ran (targets, fixture layout). */
  issues: Issue[];
  summary: TestSummary;
  /** 0 all passed, 1 a case failed, 2 invalid fixtures or nothing to test. */
  exitCode: number;
}

function selector(filters: readonly string[]): (recipeDisplay: string, name: string) => boolean {
  if (filters.length === 0) return () => true;
  const tests = filters.map((f) => {
    if (/[*?[\]{}]/.test(f)) {
      const m = globMatcher(f);
      return (id: string, stemId: string, name: string) => m(name) || m(stemId) || m(id);
    }
    return (id: string) => id.includes(f);
  });
  return (recipeDisplay, name) => {
    const stemId = `${path.basename(recipeDisplay).replace(/\.ya?ml$/i, "")}/${name}`;
    const id = `${recipeDisplay}/${name}`;
    return tests.some((t) => t(id, stemId, name));
  };
}

/** Finds, filters and runs every case, sequentially and in a stable order. */
export async function runTests(options: TestOptions): Promise<TestRun> {
  const display = (p: string) => displayPath(p, options.displayBase);
  const { suites, issues } = await discover(options.targets, display);
  const selected = selector(options.filter ?? []);
  const cases: CaseResult[] = [];
  let considered = 0;
  for (const suite of suites) {
    const recipeDisplay = display(suite.recipe);
    for (const dir of suite.caseDirs) {
      const name = path.basename(dir);
      considered++;
      if (!selected(recipeDisplay, name)) continue;
      const loaded = await loadCase(dir, display);
      const result: CaseResult = loaded.testCase
        ? await runCase(loaded.testCase, {
            recipe: suite.recipe,
            recipeDisplay,
            update: Boolean(options.update),
            exec: options.exec,
            now: options.now,
            displayBase: options.displayBase,
            ...(options.keep ? { keep: true } : {}),
          })
        : { recipe: recipeDisplay, name, status: "invalid", failures: [], issues: loaded.issues, updated: [], idempotence: "off", durationMs: 0 };
      cases.push(result);
      options.onCase?.(result);
    }
  }
  if (issues.length === 0 && cases.length === 0) {
    issues.push({
      message:
        considered > 0
          ? `no case matches --filter ${(options.filter ?? []).join(", ")} (${considered} case(s) found)`
          : `no recipe tests found in ${options.targets.join(", ")} (a case is <recipe folder>/__tests__/<case>/input/)`,
    });
  }
  const summary: TestSummary = {
    passed: cases.filter((c) => c.status === "passed").length,
    failed: cases.filter((c) => c.status === "failed").length,
    invalid: cases.filter((c) => c.status === "invalid").length,
    updated: cases.filter((c) => c.updated.length > 0).length,
  };
  const exitCode = issues.length > 0 || summary.invalid > 0 ? 2 : summary.failed > 0 ? 1 : 0;
  return { cases, issues, summary, exitCode };
}
