/**
 * The generative differential test: patterns made from real code (installed packages, Python's
 * standard library, the Go and Rust fixtures), matched and rewritten by tollgate and by the
 * @ast-grep/cli dev dependency, every difference put to the allowed differences of
 * src/tools/ast/differences.ts. A fixed seed here; `npm run differential -- --patterns N
 * [--seed S]` runs a larger sweep through the same file.
 */
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.js";
import { corpus } from "./corpus.js";
import { runLanguage, type Budget } from "./harness.js";

const env = (name: string, fallback: number) => {
  const v = process.env[name];
  return v === undefined || v === "" ? fallback : Number(v);
};
const patterns = env("TOLLGATE_DIFF_PATTERNS", 24);
const BUDGET: Budget = {
  seed: env("TOLLGATE_DIFF_SEED", 20260),
  patterns,
  rewrites: Math.max(2, Math.ceil(patterns / 2)),
  files: Math.min(60, Math.max(8, Math.ceil(patterns / 2))),
};
// `--lang a,b` of the sweep: only those languages; `--keep DIR`: the copies are left in DIR/<lang>.
const only = (process.env.TOLLGATE_DIFF_LANGS ?? "").split(",").filter(Boolean);
const keep = process.env.TOLLGATE_DIFF_KEEP ?? "";
const LANGUAGES = corpus().filter((l) => only.length === 0 || only.includes(l.lang));
const fresh = (dir: string) => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
};
const TIMEOUT = 60_000 + patterns * 4_000;

describe(`generative differential: tollgate vs the ast-grep CLI (seed ${BUDGET.seed}, ${BUDGET.patterns} patterns per language)`, () => {
  for (const l of LANGUAGES) {
    const test = l.files.length === 0 ? it.skip : it;
    test(`${l.lang}: ${l.missing ?? "real nodes with metavariables match and rewrite as the CLI does"}`, { timeout: TIMEOUT }, async () => {
      const run = await runLanguage(l, BUDGET, keep === "" ? await testdir() : fresh(path.join(keep, l.lang)));
      const multiLine = run.patterns.filter((g) => g.multiLine).length;
      const multi = run.patterns.filter((g) => g.multi).length;
      const anonymous = run.patterns.filter((g) => g.pattern.includes("$_")).length;
      const explained = Object.fromEntries(run.verdict.explained);
      const unexplained = run.verdict.failures;
      console.log(
        `${l.lang}: ${run.files} files (${run.filesWithErrors} with syntax errors), ${run.patterns.length} patterns (${multiLine} multi-line, ${multi} with $$$, ${anonymous} with $_), ${run.rewrites.length} rewrites ` +
          `(${run.rewrites.map((c) => c.how).join(" ")}), matches CLI ${run.matchesCli} / tollgate ${run.matchesTollgate}, explained ${JSON.stringify(explained)}, ` +
          `unexplained ${unexplained.length}`,
      );
      // Quotas: a pattern that matches nothing tests nothing, so every one matched its own node (a failure otherwise).
      expect(run.patterns.length, "patterns made").toBeGreaterThanOrEqual(Math.ceil(BUDGET.patterns * 0.8));
      expect(multiLine, "multi-line patterns").toBeGreaterThanOrEqual(Math.floor(run.patterns.length / 4));
      expect(multi, "$$$ patterns").toBeGreaterThanOrEqual(Math.floor(run.patterns.length / 4));
      expect(run.rewrites.length, "rewrite cases").toBeGreaterThanOrEqual(Math.min(BUDGET.rewrites, 2));
      expect(unexplained, unexplained.join("\n\n")).toEqual([]);
    });
  }
});
