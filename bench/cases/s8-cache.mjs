// S8: the result cache. S3's eight rewrites in one ast_edit step over effect@4.1.0's src/ with
// `--cache`, the filled cache restored before each timed run: (a) the tree unchanged and (b) ten
// files edited (five gain a match, five lose a line) against `ast-grep scan` with the same eight
// rules; (c) the cold run that fills an empty cache against the same run without `--cache`.
// Targets: (a) ≤ 0.2×, (b) ≤ 0.25×, (c) ≤ 1.05×. Before timing, each warm run's report is
// compared with a run without the cache (same outcomes and fingerprints).
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RUNS, alternate, astGrep, effectCorpus, log, removeWorkspace, row, summarize, tollgate, workspace } from "../lib/harness.mjs";
import { RECIPE, RULES } from "./s3-eight-ops.mjs";

export const id = "S8";
export const title = "warm result cache: S3's eight rewrites with --cache (vs ast-grep scan; cold fill vs no cache)";

const scanArgs = ["scan", "--rule", "rules.yml", "src"];

/** Outcomes as a comparable text: what a warm run must reproduce. */
function outcomesOf(report) {
  return JSON.stringify(JSON.parse(readFileSync(report, "utf8")).outcomes.map((o) => [o.id, o.fingerprint, o.outcome, o.diff]));
}

/** Ten edits: five files gain an Effect.map call, five lose their first line (files in name order, deterministic). */
function editTen(ws) {
  const files = readdirSync(path.join(ws, "src"), { recursive: true })
    .filter((f) => f.endsWith(".ts"))
    .sort();
  const step = Math.floor(files.length / 10);
  for (let i = 0; i < 10; i++) {
    const file = path.join(ws, "src", files[i * step]);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, i < 5 ? `${text}\nexport const benchS8 = Effect.map(benchA, benchB)\n` : text.slice(text.indexOf("\n") + 1));
  }
}

export async function run() {
  const src = effectCorpus();
  const rows = [];
  const notes = [];
  const results = {};
  const state = mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-s8-"));
  const env = { XDG_STATE_HOME: path.join(state, "state") };
  const filled = path.join(state, "filled");
  const loc = path.join(state, "cache");
  const restore = () => {
    rmSync(loc, { recursive: true, force: true });
    cpSync(filled, loc, { recursive: true });
  };
  const ws = workspace({ src }, { "recipe.yaml": RECIPE, "rules.yml": RULES });
  const report = path.join(state, "report.json");
  const dry = (extra) => tollgate(["run", "recipe.yaml", "--dry-run", "--report", report, ...extra], ws, env);
  const cached = ["--cache", "--cache-location", loc];
  try {
    const fill = dry(["--cache", "--cache-location", filled]);
    if (fill.status !== 0) throw new Error(`tollgate cold run failed (exit ${fill.status}): ${fill.stderr}`);
    const check = (what) => {
      const cold = dry([]);
      if (cold.status !== 0) throw new Error(`tollgate run failed (exit ${cold.status}): ${cold.stderr}`);
      const want = outcomesOf(report);
      restore();
      const warm = dry(cached);
      if (warm.status !== 0 || outcomesOf(report) !== want) throw new Error(`${what}: the warm run's outcomes differ from a run without the cache`);
      if (/result cache:/.test(warm.stderr))
        notes.push(
          `${what}: ${warm.stderr
            .trim()
            .split("\n")
            .find((l) => l.includes("result cache:"))}`,
        );
    };
    check("unchanged");
    const a = alternate(RUNS, "warm, unchanged", () => {
      const peer = astGrep(scanArgs, ws);
      restore();
      return { a: peer, b: dry(cached) };
    });
    rows.push(row("(a) warm cache, tree unchanged, vs scan", summarize(a.a, a.b), { maxRatio: 0.2 }));
    editTen(ws);
    check("ten files edited");
    const b = alternate(RUNS, "warm, ten edited", () => {
      const peer = astGrep(scanArgs, ws);
      restore();
      return { a: peer, b: dry(cached) };
    });
    rows.push(row("(b) warm cache, 10 files edited, vs scan", summarize(b.a, b.b), { maxRatio: 0.25 }));
    const c = alternate(RUNS, "cold fill", () => {
      const plain = dry([]);
      rmSync(loc, { recursive: true, force: true });
      return { a: plain, b: dry(cached) };
    });
    rows.push(row("(c) cold run filling the cache, vs no --cache", summarize(c.a, c.b), { maxRatio: 1.05 }));
    results.entries = readdirSync(path.join(filled, "tollgate-results")).length;
    log(`  cache entries after the fill: ${results.entries}`);
  } finally {
    removeWorkspace(ws);
    rmSync(state, { recursive: true, force: true });
  }
  return { rows, results, notes };
}
