// S8: the result cache. S3's eight rewrites over effect@4.1.0's src/ with `--cache`, as one
// ast_edit step (eight ops) and as eight ast_scan rules (S3r), the filled cache restored before
// each timed run: (a) the tree unchanged and (b) ten files edited (five gain a match, five lose a
// line) against `ast-grep scan` with the same eight rules; (c) the cold run that fills an empty
// cache against the same run without `--cache`. Targets: (a) ≤ 0.2×, (b) ≤ 0.25×, (c) ≤ 1.05×.
// Before timing, each warm run's report is compared with a run without the cache (same outcomes,
// fingerprints, diffs and step details).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RUNS, alternate, astGrep, effectCorpus, log, removeWorkspace, row, summarize, tollgate, workspace } from "../lib/harness.mjs";
import { RECIPE, RULES } from "./s3-eight-ops.mjs";
import { RULES as SCAN_RULES } from "./s3-ast-scan-rules.mjs";

export const id = "S8";
export const title = "warm result cache: S3's eight rewrites with --cache, as ast_edit ops and as ast_scan rules (vs ast-grep scan; cold fill vs no cache)";

/** The same eight as rule files under one sgconfig.yml, and a recipe with one ast_scan step over them. */
function scanFiles() {
  const files = {
    "sgconfig.yml": "ruleDirs: [rules]\n",
    "recipe.yaml": "version: 1\nname: bench-s8-rules\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { config: sgconfig.yml, path: src }\n",
  };
  for (const [rid, pat, fix] of SCAN_RULES)
    files[`rules/${rid}.yml`] = `id: ${rid}\nlanguage: TypeScript\nseverity: hint\nrule: { pattern: ${JSON.stringify(pat)} }\nfix: ${JSON.stringify(fix)}\n`;
  return files;
}

const VARIANTS = [
  { tag: "ast_edit", files: () => ({ "recipe.yaml": RECIPE, "rules.yml": RULES }), scanArgs: ["scan", "--rule", "rules.yml", "src"] },
  { tag: "ast_scan", files: scanFiles, scanArgs: ["scan", "-c", "sgconfig.yml", "src"] },
];

/** Outcomes and step details as a comparable text: what a warm run must reproduce. */
function outcomesOf(report) {
  const r = JSON.parse(readFileSync(report, "utf8"));
  return JSON.stringify([r.outcomes.map((o) => [o.id, o.fingerprint, o.outcome, o.diff]), r.steps.map((s) => [s.id, s.status, s.details])]);
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

/** A workspace, its cache locations and the runs S8 times for one variant. */
function setUp(src, variant) {
  const state = mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-s8-"));
  const ws = workspace({ src });
  for (const [name, text] of Object.entries(variant.files())) {
    mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    writeFileSync(path.join(ws, name), text);
  }
  const env = { XDG_STATE_HOME: path.join(state, "state") };
  const filled = path.join(state, "filled");
  const loc = path.join(state, "cache");
  const report = path.join(state, "report.json");
  const dry = (extra) => tollgate(["run", "recipe.yaml", "--dry-run", "--report", report, ...extra], ws, env);
  const restore = () => {
    rmSync(loc, { recursive: true, force: true });
    cpSync(filled, loc, { recursive: true });
  };
  const dispose = () => {
    removeWorkspace(ws);
    rmSync(state, { recursive: true, force: true });
  };
  return { ws, filled, loc, report, dry, restore, dispose, cached: ["--cache", "--cache-location", loc] };
}

/** Fails unless a warm run stages what a run without the cache stages; notes a cache warning. */
function checkSame(s, what, notes) {
  const cold = s.dry([]);
  if (cold.status !== 0) throw new Error(`tollgate run failed (exit ${cold.status}): ${cold.stderr}`);
  const want = outcomesOf(s.report);
  s.restore();
  const warm = s.dry(s.cached);
  if (warm.status !== 0 || outcomesOf(s.report) !== want) throw new Error(`${what}: the warm run's outcomes differ from a run without the cache`);
  const warning = warm.stderr.split("\n").find((l) => l.includes("result cache:"));
  if (warning) notes.push(`${what}: ${warning}`);
}

async function measureVariant(src, variant, rows, notes, results) {
  const s = setUp(src, variant);
  const { tag } = variant;
  const warmAgainstScan = (what) =>
    alternate(RUNS, `${tag} ${what}`, () => {
      const peer = astGrep(variant.scanArgs, s.ws);
      s.restore();
      return { a: peer, b: s.dry(s.cached) };
    });
  try {
    const fill = s.dry(["--cache", "--cache-location", s.filled]);
    if (fill.status !== 0) throw new Error(`tollgate cold run failed (exit ${fill.status}): ${fill.stderr}`);
    checkSame(s, `${tag}, unchanged`, notes);
    const a = warmAgainstScan("warm, unchanged");
    rows.push(row(`(a) ${tag}: warm cache, tree unchanged, vs scan`, summarize(a.a, a.b), { maxRatio: 0.2 }));
    editTen(s.ws);
    checkSame(s, `${tag}, ten files edited`, notes);
    const b = warmAgainstScan("warm, ten edited");
    rows.push(row(`(b) ${tag}: warm cache, 10 files edited, vs scan`, summarize(b.a, b.b), { maxRatio: 0.25 }));
    const c = alternate(RUNS, `${tag} cold fill`, () => {
      const plain = s.dry([]);
      rmSync(s.loc, { recursive: true, force: true });
      return { a: plain, b: s.dry(s.cached) };
    });
    rows.push(row(`(c) ${tag}: cold run filling the cache, vs no --cache`, summarize(c.a, c.b), { maxRatio: 1.05 }));
    const dir = path.join(s.filled, "tollgate-results");
    results[tag] = { packs: readdirSync(dir).length, bytes: readdirSync(dir).reduce((n, f) => n + readFileSync(path.join(dir, f)).length, 0) };
    log(`  ${tag}: cache after the fill: ${results[tag].packs} pack(s), ${(results[tag].bytes / 1024).toFixed(0)} KiB`);
  } finally {
    s.dispose();
  }
}

export async function run() {
  const src = effectCorpus();
  const rows = [];
  const notes = [];
  const results = {};
  for (const variant of VARIANTS) await measureVariant(src, variant, rows, notes, results);
  return { rows, results, notes };
}
