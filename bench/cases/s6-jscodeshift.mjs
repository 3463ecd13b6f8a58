// S6: a react-codemod transform (rename-unsafe-lifecycles, parser tsx) over real React
// code from a published package (@blueprintjs/core@3.54.0's src/: TSX class components), tollgate's
// `jscodeshift` tool against `jscodeshift --dry` with `--cpus` equal to tollgate's worker count:
// ≤ 0.8×, peak RSS < 300 MiB. Both use the same jscodeshift install (node_modules/jscodeshift) and
// transform file; the changed files must be the same.
//
// jscodeshift caps --cpus at (CPUs - 1) (src/Runner.js), so on a 2-CPU machine it runs one child
// process whatever --cpus says; tollgate's default is one worker process per CPU within a memory budget (its
// main process only feeds them). Both run their transforms in child processes, so the peak RSS
// /usr/bin/time reports is the largest single process of each tree (the main or a worker); the
// trees' sums are larger (tollgate's main plus two workers). A second row measures both with
// exactly one worker (informational).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import {
  NODE,
  ROOT,
  RUNS,
  TOLLGATE,
  alternate,
  countFiles,
  cpus,
  log,
  measure,
  npmCorpus,
  removeWorkspace,
  row,
  summarize,
  tollgate,
  treePeakKiB,
  workspace,
} from "../lib/harness.mjs";

export const id = "S6";
export const title = "jscodeshift: react-codemod rename-unsafe-lifecycles (tsx) over @blueprintjs/core@3.54.0 src/";

const require = createRequire(path.join(ROOT, "package.json"));
const TRANSFORM = require.resolve("react-codemod/transforms/rename-unsafe-lifecycles.js");
const JSCODESHIFT = path.join(path.dirname(require.resolve("jscodeshift/package.json")), "bin", "jscodeshift.js");
const RECIPE = `version: 1
name: bench-react-codemod
steps:
  - tool: jscodeshift
    with:
      transform: ${JSON.stringify(TRANSFORM)}
      parser: tsx
      path: src
`;

/** tollgate's default worker count for the jscodeshift tool (src/tools/jscodeshift/pool.ts). */
async function tollgateWorkers() {
  const { workerSettings } = await import(path.join(ROOT, "dist", "tools", "jscodeshift", "workers.js"));
  const os = await import("node:os");
  return workerSettings(
    { cpus: os.availableParallelism(), totalMemory: os.totalmem(), freeMemory: os.freemem() },
    { workers: process.env.TOLLGATE_JSCODESHIFT_WORKERS },
  ).max;
}

const jscodeshift = (ws, n) => measure(NODE, [JSCODESHIFT, "--dry", "--silent", `--cpus=${n}`, "--parser=tsx", "-t", TRANSFORM, "src"], ws);
const dryRun = (ws, env) => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(ws, "report.json")], ws, env);

/** Files jscodeshift reports as changed ("ok"), from a verbose dry run. */
function jscodeshiftChanged(ws, n) {
  const r = measure(NODE, [JSCODESHIFT, "--dry", "--verbose=2", `--cpus=${n}`, "--parser=tsx", "-t", TRANSFORM, "src"], ws);
  return r.stdout
    .split("\n")
    .map((l) => /^\s*OKK? (.+)$/.exec(l.replace(/\u001b\[[0-9;]*m/g, ""))?.[1]?.trim())
    .filter(Boolean)
    .sort();
}

export async function run() {
  const src = npmCorpus("@blueprintjs/core@3.54.0", "src");
  const { n: files, bytes } = countFiles(src, (f) => /\.(tsx?|jsx?)$/.test(f));
  const workers = await tollgateWorkers();
  log(
    `  corpus: @blueprintjs/core@3.54.0 src/ — ${files} TS/TSX files, ${(bytes / 1e6).toFixed(1)} MB; tollgate workers ${workers}, jscodeshift --cpus=${workers} (it runs min(${workers}, ${Math.max(cpus() - 1, 1)}))`,
  );
  const results = { corpus: { package: "@blueprintjs/core@3.54.0", files, bytes }, workers };
  const rows = [];
  const notes = [];
  const ws = workspace({ src }, { "recipe.yaml": RECIPE });
  try {
    // Same result first: the files tollgate stages are the files jscodeshift changes.
    const r = dryRun(ws);
    if (r.status !== 0) throw new Error(`tollgate failed (exit ${r.status}): ${r.stderr}`);
    const d = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details;
    const theirs = jscodeshiftChanged(ws, workers);
    const ours = [...d.changed].sort();
    const same = JSON.stringify(ours) === JSON.stringify(theirs);
    log(
      `  changed files: tollgate ${ours.length}, jscodeshift ${theirs.length}${same ? " — the same files ✓" : " ✗ differ"} (errors: tollgate ${d.errors.length})`,
    );
    results.changed = { tollgate: ours.length, jscodeshift: theirs.length, same, errors: d.errors.length, searched: d.filesSearched };
    if (!same) notes.push(`changed files differ: tollgate ${ours.join(", ")} / jscodeshift ${theirs.join(", ")}`);

    const main = alternate(RUNS, "jscodeshift dry-run", () => ({ a: jscodeshift(ws, workers), b: dryRun(ws) }));
    rows.push(row(`dry-run vs jscodeshift --dry --cpus=${workers}`, summarize(main.a, main.b), { maxRatio: 0.8 }));
    // The whole process tree's peak (main plus workers, summed), one untimed run each.
    const tgTree = await treePeakKiB(NODE, [TOLLGATE, "run", "recipe.yaml", "--dry-run", "--report", path.join(ws, "report.json")], ws);
    const jsTree = await treePeakKiB(NODE, [JSCODESHIFT, "--dry", "--silent", `--cpus=${workers}`, "--parser=tsx", "-t", TRANSFORM, "src"], ws);
    if (tgTree !== undefined) {
      results.treePeakKiB = { tollgate: tgTree, jscodeshift: jsTree };
      rows.push(
        row(
          "peak RSS of the whole process tree (summed, sampled)",
          { tollgatePeakRssKiB: tgTree, peerPeakRssKiB: jsTree },
          { maxRssMiB: null, extra: { text: "tree RSS < 300 MiB", pass: tgTree < 300 * 1024 } },
        ),
      );
    }
    if (workers !== 1) {
      const one = alternate(RUNS, "jscodeshift dry-run, one worker", () => ({ a: jscodeshift(ws, 1), b: dryRun(ws, { TOLLGATE_JSCODESHIFT_WORKERS: "1" }) }));
      rows.push(row("one worker each (TOLLGATE_JSCODESHIFT_WORKERS=1, --cpus=1)", summarize(one.a, one.b)));
    }
  } finally {
    removeWorkspace(ws);
  }
  return { rows, results, notes };
}
