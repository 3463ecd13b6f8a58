// S1: one pattern over effect@4.1.0's src/: `Effect.map($A, $B)` → `Effect.andThen($A, $B)`.
// Dry-run ≤ 0.6× `ast-grep run`, apply ≤ 0.75× `ast-grep run -U` (fresh copies), the 10× corpus
// grows at most linearly under 600 MiB. The dry-run also prints napi's floor (findInFiles over
// the files holding `Effect.map(`) and the overhead, without a target. Start-up is S7.
import path from "node:path";
import { readFileSync } from "node:fs";
import {
  RUNS,
  alternate,
  astGrep,
  astGrepJson,
  countFiles,
  countOccurrences,
  effectCorpus,
  log,
  removeWorkspace,
  row,
  sideBySide,
  summarize,
  tollgate,
  workspace,
} from "../lib/harness.mjs";
import { floorRun, needleFiles, oneSmallFile } from "../lib/floor.mjs";

export const id = "S1";
export const title = "one pattern, effect@4.1.0 src/ (Effect.map($A, $B) → Effect.andThen($A, $B))";

export const PATTERN = "Effect.map($A, $B)";
const REWRITE = "Effect.andThen($A, $B)";
const RECIPE = `version: 1
name: bench-effect-map
steps:
  - tool: ast_edit
    with:
      ops: [{ pat: "${PATTERN}", out: "${REWRITE}" }]
      lang: ts
      path: src
`;
export const FILES = { "recipe.yaml": RECIPE, "auto.yaml": "version: 1\ndefault: auto-apply\n" };
export const NEEDLES = ["Effect.map("];
const sgArgs = ["run", "-p", PATTERN, "-r", REWRITE, "-l", "ts", "src"];
const dryRun = (ws) => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(ws, "report.json")], ws);

export async function run() {
  const src = effectCorpus();
  const { n: files, bytes } = countFiles(src);
  log(`  corpus: effect@4.1.0 src/ — ${files} files, ${(bytes / 1e6).toFixed(1)} MB`);
  const results = { corpus: { package: "effect@4.1.0", files, bytes } };
  const rows = [];
  const notes = [];

  // Correctness first: every ast-grep match, plus real ones the CLI's parse loses to error
  // recovery (listed).
  {
    const ws = workspace({ src }, FILES);
    const matches = astGrepJson(["run", "-p", PATTERN, "-l", "ts", "src"], ws);
    const sgFiles = new Set(matches.map((m) => m.file)).size;
    const key = (file, line, col) => `${file.replace(/^src\//, "")}:${line}:${col}`;
    const sgKeys = matches.map((m) => key(m.file, m.range.start.line + 1, m.range.start.column + 1));
    const r = dryRun(ws);
    if (r.status !== 0) throw new Error(`tollgate dry-run failed (exit ${r.status}): ${r.stderr}`);
    const d = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details;
    const tgKeys = new Set((d.changes ?? []).map((c) => key(c.path, c.line, c.col)));
    const missing = sgKeys.filter((k) => !tgKeys.has(k));
    const extra = [...tgKeys].filter((k) => !sgKeys.includes(k));
    results.matches = {
      astGrep: { matches: matches.length, files: sgFiles },
      tollgate: {
        replacements: d.totalReplacements,
        files: d.filesTouched,
        filesSearched: d.filesSearched,
        missingFromTollgate: missing,
        extraInTollgate: extra,
      },
    };
    log(`  matches: ast-grep ${matches.length} in ${sgFiles} files; tollgate ${d.totalReplacements} in ${d.filesTouched} files (searched ${d.filesSearched})`);
    log(missing.length === 0 ? `    every one of ast-grep's ${matches.length} matches ✓` : `    ✗ ast-grep matches tollgate misses: ${missing.join(", ")}`);
    if (extra.length > 0) log(`    plus ${extra.length} that the CLI's whole-file parse loses to grammar error recovery: ${extra.join(", ")}`);
    if (missing.length) notes.push(`tollgate misses ${missing.length} of ast-grep's matches`);
    removeWorkspace(ws);
  }

  // Dry-run beside the floor.
  let dry;
  {
    const ws = workspace({ src }, FILES);
    const one = workspace({}, FILES);
    oneSmallFile(src, "ts", NEEDLES, one);
    const floor = floorRun("ts", needleFiles(src, "ts", NEEDLES), [PATTERN]);
    try {
      const s = sideBySide(RUNS, "dry-run", { peer: () => astGrep(sgArgs, ws), tollgate: () => dryRun(ws), floor: floor.run, one: () => dryRun(one) });
      dry = summarize(s.a, s.b, s);
      rows.push(row("dry-run (preview, policy, report with diffs)", dry, { maxRatio: 0.6 }));
    } finally {
      floor.dispose();
      removeWorkspace(ws);
      removeWorkspace(one);
    }
  }

  // Apply on fresh copies.
  {
    let sgApplied;
    let tgRemaining;
    let sgRemaining;
    const { a, b } = alternate(RUNS, "apply", () => {
      const w1 = workspace({ src }, FILES);
      const sgRun = astGrep([...sgArgs, "-U"], w1);
      sgApplied = /Applied (\d+) changes/.exec(sgRun.stdout + sgRun.stderr)?.[1];
      sgRemaining = countOccurrences(path.join(w1, "src"), "Effect.map(");
      removeWorkspace(w1);
      const w2 = workspace({ src }, FILES);
      const tgRun = tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", path.join(w2, "report.json")], w2);
      tgRemaining = countOccurrences(path.join(w2, "src"), "Effect.map(");
      removeWorkspace(w2);
      return { a: sgRun, b: tgRun };
    });
    rows.push(row("apply (fresh copy)", summarize(a, b), { maxRatio: 0.75 }));
    results.apply = {
      astGrepApplied: sgApplied === undefined ? undefined : Number(sgApplied),
      remainingEffectMapCalls: { astGrep: sgRemaining, tollgate: tgRemaining },
    };
    notes.push(`apply: ast-grep applied ${sgApplied} (left ${sgRemaining} "Effect.map(" in the tree), tollgate left ${tgRemaining}`);
  }

  // 10× corpus: time grows at most linearly, peak RSS < 600 MiB.
  if (process.env.BENCH_SKIP_10X !== "1") {
    const ws = workspace({ src }, FILES, 10);
    const { a, b } = alternate(RUNS, "10x dry-run", () => ({ a: astGrep(sgArgs, ws), b: dryRun(ws) }));
    const rep = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8"));
    const s = summarize(a, b);
    const growth = s.tollgateMs / dry.tollgateMs;
    rows.push(row("10× corpus dry-run", s, { maxRssMiB: 600, extra: { text: `growth ${growth.toFixed(1)}× ≤ 10`, pass: growth <= 10 } }));
    results.tenX = { growth, replacements: rep.steps[0].details.totalReplacements };
    removeWorkspace(ws);
  }

  return { rows, results, notes };
}
