// S3: eight rewrites in one ast_edit step (eight `ops`) over effect@4.1.0's src/, against
// `ast-grep scan` with the same eight rules (dry-run) and `scan -U` (apply, fresh copies).
// Targets: overhead ≤ 1.3 dry-run, ≤ 1.45 apply, against napi's floor over the files holding
// one of NEEDLES; the ratio to the CLI is printed beside it. S3r (s3-ast-scan-rules.mjs) runs
// the same eight as ast_scan rules, S4 on the 10× corpus, S8 with the result cache.
import path from "node:path";
import { readFileSync } from "node:fs";
import { RUNS, astGrep, countOccurrences, effectCorpus, log, removeWorkspace, row, sideBySide, summarize, tollgate, workspace } from "../lib/harness.mjs";
import { floorRun, needleFiles, oneSmallFile } from "../lib/floor.mjs";

export const id = "S3";
export const title = "eight rewrites in one step, effect@4.1.0 src/ (vs ast-grep scan with eight rules)";

/** The eight rewrites: [pattern, rewrite]. */
export const OPS = [
  ["Effect.map($A, $B)", "Effect.andThen($A, $B)"],
  ["Effect.flatMap($A, $B)", "Effect.andThen($A, $B)"],
  ["Effect.succeed($A)", "Effect.sync(() => $A)"],
  ["$A !== undefined", "$A != null"],
  ["Object.keys($A)", "Reflect.ownKeys($A)"],
  ["Array.isArray($A)", "isArray($A)"],
  ["new Error($A)", "new globalThis.Error($A)"],
  ['typeof $A === "function"', "isFunction($A)"],
];
/** The floor's plain substrings: a file without any of them holds no match of the eight. */
export const NEEDLES = ["Effect.map(", "Effect.flatMap(", "Effect.succeed(", "!== undefined", "Object.keys(", "Array.isArray(", "new Error(", "typeof "];
export const PATTERNS = OPS.map(([pat]) => pat);

const q = (s) => JSON.stringify(s);
export const RECIPE = `version: 1
name: bench-eight-ops
steps:
  - tool: ast_edit
    with:
      ops:
${OPS.map(([pat, out]) => `        - { pat: ${q(pat)}, out: ${q(out)} }`).join("\n")}
      lang: ts
      path: src
`;
/** The same eight as ast-grep rules with `fix`, one YAML document each (severity hint: neither tool exits 1). */
export const RULES = OPS.map(([pat, out], i) => `id: op-${i + 1}\nlanguage: TypeScript\nseverity: hint\nrule:\n  pattern: ${q(pat)}\nfix: ${q(out)}\n`).join(
  "---\n",
);
const FILES = { "recipe.yaml": RECIPE, "auto.yaml": "version: 1\ndefault: auto-apply\n", "rules.yml": RULES };
const scanArgs = ["scan", "--rule", "rules.yml", "src"];

export async function run() {
  const src = effectCorpus();
  const rows = [];
  const notes = [];
  const results = {};
  const floor = floorRun("ts", needleFiles(src, "ts", NEEDLES), PATTERNS);
  const small = () => {
    const w = workspace({}, FILES);
    oneSmallFile(src, "ts", NEEDLES, w);
    return w;
  };
  try {
    const ws = workspace({ src }, FILES);
    const one = small();
    const dry = (dir) => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(dir, "report.json")], dir);
    try {
      const first = dry(ws);
      if (first.status !== 0) throw new Error(`tollgate dry-run failed (exit ${first.status}): ${first.stderr}${first.stdout}`);
      const d = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details;
      const sg = astGrep([...scanArgs, "--json=stream"], ws);
      const sgMatches = sg.stdout.split("\n").filter(Boolean).length;
      log(`  matches: ast-grep scan ${sgMatches}; tollgate ${d.totalReplacements} replacements in ${d.filesTouched} files (searched ${d.filesSearched})`);
      results.matches = { astGrep: sgMatches, tollgate: d.totalReplacements };
      const s = sideBySide(RUNS, "dry-run", { peer: () => astGrep(scanArgs, ws), tollgate: () => dry(ws), floor: floor.run, one: () => dry(one) });
      rows.push(row("dry-run, eight ops vs scan (eight rules)", summarize(s.a, s.b, s), { maxOverhead: 1.3 }));
    } finally {
      removeWorkspace(ws);
      removeWorkspace(one);
    }
    let left;
    const apply = (dir) => tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", path.join(dir, "report.json")], dir);
    const fresh = (make, fn) => {
      const w = make();
      try {
        return fn(w);
      } finally {
        removeWorkspace(w);
      }
    };
    const s = sideBySide(RUNS, "apply", {
      peer: () =>
        fresh(
          () => workspace({ src }, FILES),
          (w) => astGrep([...scanArgs, "-U"], w),
        ),
      tollgate: () =>
        fresh(
          () => workspace({ src }, FILES),
          (w) => {
            const r = apply(w);
            left = countOccurrences(path.join(w, "src"), "Effect.succeed(");
            return r;
          },
        ),
      floor: floor.run,
      one: () => fresh(small, apply),
    });
    rows.push(row("apply, eight ops vs scan -U", summarize(s.a, s.b, s), { maxOverhead: 1.45 }));
    notes.push(`apply: "Effect.succeed(" left in tollgate's tree: ${left}`);
  } finally {
    floor.dispose();
  }
  return { rows, results, notes };
}
