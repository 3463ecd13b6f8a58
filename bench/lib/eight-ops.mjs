// S4: S3's eight rewrites in one `ast_edit` step over several copies of effect@4.1.0's src/,
// beside `ast-grep scan` with the same eight rules (and `scan -U`) and napi's floor over the
// copies' files holding one of S3's needles. Peak RSS is the point of S4: the whole change of a
// 10× tree must stay under 600 MiB.
import path from "node:path";
import { readFileSync } from "node:fs";
import { RUNS, astGrep, countFiles, log, removeWorkspace, row, sideBySide, summarize, tollgate, workspace } from "./harness.mjs";
import { floorRun, needleFiles, oneSmallFile } from "./floor.mjs";
import { NEEDLES, OPS, PATTERNS, RULES } from "../cases/s3-eight-ops.mjs";

const yamlString = (s) => JSON.stringify(s);

export const RECIPE = `version: 1
name: bench-eight-ops
steps:
  - tool: ast_edit
    with:
      lang: ts
      path: src
      ops:
${OPS.map(([pat, out]) => `        - { pat: ${yamlString(pat)}, out: ${yamlString(out)} }`).join("\n")}
`;

const FILES = { "recipe.yaml": RECIPE, "rules.yml": RULES, "auto.yaml": "version: 1\ndefault: auto-apply\n" };
const SCAN = ["scan", "--rule", "rules.yml", "src"];

/** The peak RSS of tollgate's runs beside its target (S4's point), as soon as it is measured. */
function logRss(what, s, maxRssMiB) {
  if (s.tollgatePeakRssKiB === undefined) return;
  const mib = s.tollgatePeakRssKiB / 1024;
  log(
    `  ${what}: tollgate peak RSS ${mib.toFixed(0)} MiB (target < ${maxRssMiB} MiB: ${mib < maxRssMiB ? "met" : "MISSED"}); ast-grep ${s.peerPeakRssKiB === undefined ? "n/a" : (s.peerPeakRssKiB / 1024).toFixed(0)} MiB`,
  );
}

function inFresh(make, fn) {
  const w = make();
  try {
    return fn(w);
  } finally {
    removeWorkspace(w);
  }
}

/**
 * Dry-run (and, with `apply`, apply on fresh copies) of the eight ops over `copies` copies of
 * the tree, beside `ast-grep scan` / `scan -U` and the floor. `maxOverhead`: the dry-run target
 * (apply's overhead is printed without one); `maxRssMiB`: the memory target.
 */
export function eightOpsCase({ tree, copies, label, maxOverhead, maxRssMiB, apply, runs = RUNS }) {
  const { n, bytes } = countFiles(tree);
  log(`  corpus: ${label} — ${n * copies} files, ${((bytes * copies) / 1e6).toFixed(1)} MB; eight rewrites in one ast_edit step`);
  const rows = [];
  const results = {};
  const ws = workspace({ src: tree }, FILES, copies);
  const small = () => {
    const w = workspace({}, FILES);
    oneSmallFile(tree, "ts", NEEDLES, w);
    return w;
  };
  const one = small();
  const floor = floorRun("ts", needleFiles(path.join(ws, "src"), "ts", NEEDLES), PATTERNS);
  try {
    const dry = (dir) =>
      tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(dir, "report.json"), "--patch", path.join(dir, "changes.patch")], dir);
    const s0 = sideBySide(runs, `${label} dry-run`, { peer: () => astGrep(SCAN, ws), tollgate: () => dry(ws), floor: floor.run, one: () => dry(one) });
    const d = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details;
    results.dryRun = { replacements: d.totalReplacements, files: d.filesTouched, filesSearched: d.filesSearched };
    log(`  tollgate: ${d.totalReplacements} replacements in ${d.filesTouched} files (searched ${d.filesSearched})`);
    const s = summarize(s0.a, s0.b, s0);
    results.dryRun.summary = s;
    logRss(`${label} dry-run`, s, maxRssMiB);
    rows.push(row(`${label} dry-run (report + patch)`, s, { maxOverhead, maxRssMiB }));
    if (apply) {
      const runApply = (w) => tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", path.join(w, "report.json")], w);
      const a0 = sideBySide(runs, `${label} apply`, {
        peer: () =>
          inFresh(
            () => workspace({ src: tree }, FILES, copies),
            (w) => astGrep([...SCAN, "-U"], w),
          ),
        tollgate: () => inFresh(() => workspace({ src: tree }, FILES, copies), runApply),
        floor: floor.run,
        one: () => inFresh(small, runApply),
      });
      const a = summarize(a0.a, a0.b, a0);
      results.apply = { summary: a };
      logRss(`${label} apply`, a, maxRssMiB);
      rows.push(row(`${label} apply (fresh copy)`, a, { maxRssMiB }));
    }
  } finally {
    floor.dispose();
    removeWorkspace(ws);
    removeWorkspace(one);
  }
  return { rows, results, notes: [] };
}
