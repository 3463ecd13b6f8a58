// S3: eight rewrites in one ast_edit step (eight `ops`) over effect@4.1.0's src/,
// against `ast-grep scan` with the same eight rules (dry-run) and `scan -U` (apply, fresh
// copies): ≤ 0.8× both. (The same eight rules through ast_scan: s3-ast-scan-rules.mjs.)
import path from "node:path";
import { readFileSync } from "node:fs";
import { RUNS, alternate, astGrep, countOccurrences, effectCorpus, log, removeWorkspace, row, summarize, tollgate, workspace } from "../lib/harness.mjs";

export const id = "S3";
export const title = "eight rewrites in one step, effect@4.1.0 src/ (vs ast-grep scan with eight rules)";

export const OPS = [
  ["Effect.map($A, $B)", "Effect.andThen($A, $B)"],
  ["Effect.flatMap($A, $B)", "Effect.andThen($A, $B)"],
  ["Effect.succeed($A)", "Effect.sync(() => $A)"],
  ["Effect.fail($A)", "Effect.failSync(() => $A)"],
  ["Option.some($A)", "Option.of($A)"],
  ["Option.none()", "Option.empty()"],
  ["Effect.suspend($A)", "Effect.defer($A)"],
  ["Array.isArray($A)", "isArray($A)"],
];

const q = (s) => JSON.stringify(s);
const RECIPE = `version: 1
name: bench-eight-ops
steps:
  - tool: ast_edit
    with:
      ops:
${OPS.map(([pat, out]) => `        - { pat: ${q(pat)}, out: ${q(out)} }`).join("\n")}
      lang: ts
      path: src
`;
const RULES = OPS.map(([pat, out], i) => `id: op-${i + 1}\nlanguage: TypeScript\nseverity: hint\nrule:\n  pattern: ${q(pat)}\nfix: ${q(out)}\n`).join("---\n");
const FILES = { "recipe.yaml": RECIPE, "auto.yaml": "version: 1\ndefault: auto-apply\n", "rules.yml": RULES };
const scanArgs = ["scan", "--rule", "rules.yml", "src"];

export async function run() {
  const src = effectCorpus();
  const rows = [];
  const notes = [];
  const results = {};
  {
    const ws = workspace({ src }, FILES);
    const dry = () => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(ws, "report.json")], ws);
    const first = dry();
    if (first.status !== 0) throw new Error(`tollgate dry-run failed (exit ${first.status}): ${first.stderr}${first.stdout}`);
    const d = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details;
    const sg = astGrep([...scanArgs, "--json=stream"], ws);
    const sgMatches = sg.stdout.split("\n").filter(Boolean).length;
    log(`  matches: ast-grep scan ${sgMatches}; tollgate ${d.totalReplacements} replacements in ${d.filesTouched} files (searched ${d.filesSearched})`);
    results.matches = { astGrep: sgMatches, tollgate: d.totalReplacements };
    const { a, b } = alternate(RUNS, "dry-run", () => ({ a: astGrep(scanArgs, ws), b: dry() }));
    rows.push(row("dry-run, eight ops vs scan (eight rules)", summarize(a, b), { maxRatio: 0.8 }));
    removeWorkspace(ws);
  }
  {
    let left;
    const { a, b } = alternate(RUNS, "apply", () => {
      const w1 = workspace({ src }, FILES);
      const sgRun = astGrep([...scanArgs, "-U"], w1);
      const sgLeft = countOccurrences(path.join(w1, "src"), "Effect.succeed(");
      removeWorkspace(w1);
      const w2 = workspace({ src }, FILES);
      const tgRun = tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", path.join(w2, "report.json")], w2);
      left = { astGrep: sgLeft, tollgate: countOccurrences(path.join(w2, "src"), "Effect.succeed(") };
      removeWorkspace(w2);
      return { a: sgRun, b: tgRun };
    });
    rows.push(row("apply, eight ops vs scan -U", summarize(a, b), { maxRatio: 0.8 }));
    notes.push(`apply: "Effect.succeed(" left in the tree: ast-grep ${left.astGrep}, tollgate ${left.tollgate} (tollgate also rewrites matches nested in another's capture)`);
  }
  return { rows, results, notes };
}
