// S4: S3's eight rewrites in one `ast_edit` step over several copies of
// effect@4.1.0's src/, beside `ast-grep scan` with the same eight rules (and `scan -U`). Peak
// RSS is the point of S4: the whole change of a 10× tree must stay under 600 MiB.
import path from "node:path";
import { readFileSync } from "node:fs";
import { RUNS, alternate, astGrep, countFiles, log, removeWorkspace, row, summarize, tollgate, workspace } from "./harness.mjs";
import { OPS as S3_OPS } from "../cases/s3-eight-ops.mjs";

// The eight rewrites are S3's (bench/cases/s3-eight-ops.mjs): S4 is S3 on the 10× corpus.
export const OPS = S3_OPS.map(([pat, out], i) => ({ id: `op-${i + 1}`, pat, out }));

const yamlString = (s) => JSON.stringify(s);

export const RECIPE = `version: 1
name: bench-eight-ops
steps:
  - tool: ast_edit
    with:
      lang: ts
      path: src
      ops:
${OPS.map((o) => `        - { pat: ${yamlString(o.pat)}, out: ${yamlString(o.out)} }`).join("\n")}
`;

/** The same eight rewrites as ast-grep rules, one YAML document each. */
export const RULES = OPS.map((o) => `id: ${o.id}\nlanguage: TypeScript\nseverity: hint\nrule:\n  pattern: ${yamlString(o.pat)}\nfix: ${yamlString(o.out)}\n`).join("---\n");

const FILES = { "recipe.yaml": RECIPE, "rules.yml": RULES, "auto.yaml": "version: 1\ndefault: auto-apply\n" };
const SCAN = ["scan", "--rule", "rules.yml", "src"];

/** The peak RSS of tollgate's runs beside its target (S4's point), as soon as it is measured. */
function logRss(what, s, maxRssMiB) {
  if (s.tollgatePeakRssKiB === undefined) return;
  const mib = s.tollgatePeakRssKiB / 1024;
  log(`  ${what}: tollgate peak RSS ${mib.toFixed(0)} MiB (target < ${maxRssMiB} MiB: ${mib < maxRssMiB ? "met" : "MISSED"}); ast-grep ${s.peerPeakRssKiB === undefined ? "n/a" : (s.peerPeakRssKiB / 1024).toFixed(0)} MiB`);
}

/**
 * Dry-run (and, with `apply`, apply on fresh copies) of the eight ops over `copies` copies of
 * the tree, beside `ast-grep scan` / `scan -U`. `maxRssMiB`: the memory target.
 */
export function eightOpsCase({ tree, copies, label, maxRatio, maxRssMiB, apply, runs = RUNS }) {
  const { n, bytes } = countFiles(tree);
  log(`  corpus: ${label} — ${n * copies} files, ${((bytes * copies) / 1e6).toFixed(1)} MB; eight rewrites in one ast_edit step`);
  const rows = [];
  const results = {};
  const ws = workspace({ src: tree }, FILES, copies);
  try {
    const dry = () => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(ws, "report.json"), "--patch", path.join(ws, "changes.patch")], ws);
    const { a, b } = alternate(runs, `${label} dry-run`, () => ({ a: astGrep(SCAN, ws), b: dry() }));
    const d = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details;
    results.dryRun = { replacements: d.totalReplacements, files: d.filesTouched, filesSearched: d.filesSearched };
    log(`  tollgate: ${d.totalReplacements} replacements in ${d.filesTouched} files (searched ${d.filesSearched})`);
    const s = summarize(a, b);
    results.dryRun.summary = s;
    logRss(`${label} dry-run`, s, maxRssMiB);
    rows.push(row(`${label} dry-run (report + patch)`, s, { maxRatio, maxRssMiB }));
  } finally {
    removeWorkspace(ws);
  }
  if (apply) {
    const { a, b } = alternate(Math.max(1, Math.min(runs, copies > 1 ? 2 : runs)), `${label} apply`, () => {
      const w1 = workspace({ src: tree }, FILES, copies);
      const sg = astGrep([...SCAN, "-U"], w1);
      removeWorkspace(w1);
      const w2 = workspace({ src: tree }, FILES, copies);
      const tg = tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", path.join(w2, "report.json")], w2);
      removeWorkspace(w2);
      return { a: sg, b: tg };
    });
    const s = summarize(a, b);
    results.apply = { summary: s };
    logRss(`${label} apply`, s, maxRssMiB);
    rows.push(row(`${label} apply (fresh copy)`, s, { maxRatio, maxRssMiB }));
  }
  return { rows, results, notes: [] };
}
