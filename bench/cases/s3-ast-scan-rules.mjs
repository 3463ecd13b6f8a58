// S3 as ast_scan rules (S3r): S3's eight rewrites written as eight ast-grep rule files under one
// sgconfig.yml, over effect@4.1.0's src/: `tollgate run` with an `ast_scan` step against
// `ast-grep scan` with the same sgconfig (dry-run), and `--update-all` against an auto-apply
// policy on fresh copies (apply). Targets as S3's: overhead ≤ 1.3 dry-run, ≤ 1.45 apply, against
// napi's floor over the files holding one of S3's needles; the ratio to the CLI is printed
// beside it. Before timing, the findings of both are compared (rule, file, line, column).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  RUNS,
  astGrep,
  astGrepJson,
  countFiles,
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
import { NEEDLES, OPS, PATTERNS } from "./s3-eight-ops.mjs";

export const id = "S3r";
export const title = "S3 as eight ast_scan rules vs ast-grep scan (effect@4.1.0 src/)";

/** S3's eight rewrites as [rule id, pattern, fix]. */
export const RULES = OPS.map(([pat, fix], i) => [`op-${i + 1}`, pat, fix]);

function writeRules(dir) {
  mkdirSync(path.join(dir, "rules"), { recursive: true });
  writeFileSync(path.join(dir, "sgconfig.yml"), "ruleDirs: [rules]\n");
  for (const [rid, pat, fix] of RULES) {
    writeFileSync(
      path.join(dir, "rules", `${rid}.yml`),
      `id: ${rid}\nlanguage: TypeScript\nseverity: hint\nrule: { pattern: ${JSON.stringify(pat)} }\nfix: ${JSON.stringify(fix)}\n`,
    );
  }
  writeFileSync(
    path.join(dir, "recipe.yaml"),
    "version: 1\nname: bench-s3-rules\nsteps:\n  - id: scan\n    tool: ast_scan\n    with: { config: sgconfig.yml, path: src }\n",
  );
  writeFileSync(path.join(dir, "auto.yaml"), "version: 1\ndefault: auto-apply\n");
}

/** A work dir with the rules and either the whole tree or (`one`) its one small file. */
function fresh(src, one = false) {
  const w = one ? workspace({}) : workspace({ src });
  if (one) oneSmallFile(src, "ts", NEEDLES, w);
  writeRules(w);
  return w;
}

/** Every finding of ast-grep's must be among tollgate's. */
function compareFindings(ws, sgArgs, notes) {
  const sg = astGrepJson([...sgArgs], ws);
  const findings = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details.findings;
  const key = (r, f, l, c) => `${r} ${f}:${l}:${c}`;
  const tg = new Set(findings.map((f) => key(f.rule, `src/${f.path.replace(/^src\//, "")}`, f.start.line, f.start.column)));
  const missing = sg.filter((m) => !tg.has(key(m.ruleId, m.file, m.range.start.line + 1, m.range.start.column + 1)));
  log(`  findings: ast-grep ${sg.length}, tollgate ${findings.length}; ast-grep findings tollgate lacks: ${missing.length}`);
  if (missing.length)
    notes.push(
      `${missing.length} ast-grep findings missing from tollgate's (first: ${missing
        .slice(0, 3)
        .map((m) => `${m.ruleId} ${m.file}:${m.range.start.line + 1}`)
        .join(", ")})`,
    );
  return { astGrep: sg.length, tollgate: findings.length, missing: missing.length };
}

export async function run() {
  const src = effectCorpus();
  const { n, bytes } = countFiles(src);
  log(`  corpus: effect src/ — ${n} files, ${(bytes / 1e6).toFixed(1)} MB; ${RULES.length} rules`);
  const notes = [];
  const rows = [];
  const results = {};
  const sgArgs = ["scan", "-c", "sgconfig.yml", "src"];
  const dry = (dir) => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(dir, "report.json")], dir);
  const apply = (dir) => tollgate(["run", "recipe.yaml", "--policy", "auto.yaml", "--report", path.join(dir, "report.json")], dir);
  const floor = floorRun("ts", needleFiles(src, "ts", NEEDLES), PATTERNS);
  const ws = fresh(src);
  const one = fresh(src, true);
  try {
    const first = dry(ws);
    if (first.status !== 0) throw new Error(`tollgate dry-run failed (exit ${first.status}): ${first.stderr}`);
    results.findings = compareFindings(ws, sgArgs, notes);
    const s = sideBySide(RUNS, "dry-run", { peer: () => astGrep(sgArgs, ws), tollgate: () => dry(ws), floor: floor.run, one: () => dry(one) });
    rows.push(row("dry-run, 8 rules", summarize(s.a, s.b, s), { maxOverhead: 1.3 }));
    // tollgate exits 3 when a rule's fixes overlap another's already applied (stale): counted,
    // not a failure of the measurement.
    let stale = 0;
    const inFresh = (w, fn) => {
      try {
        return fn(w);
      } finally {
        removeWorkspace(w);
      }
    };
    const a = sideBySide(
      RUNS,
      "apply",
      {
        peer: () => inFresh(fresh(src), (w) => astGrep([...sgArgs, "--update-all"], w)),
        tollgate: () =>
          inFresh(fresh(src), (w) => {
            const r = apply(w);
            try {
              stale = JSON.parse(readFileSync(path.join(w, "report.json"), "utf8")).summary.outcomes.stale;
            } catch {
              // no report: sideBySide() reports the exit status
            }
            return r;
          }),
        floor: floor.run,
        one: () => inFresh(fresh(src, true), apply),
      },
      { okStatus: [0, 3] },
    );
    rows.push(row("apply (fresh copy), 8 rules", summarize(a.a, a.b, a), { maxOverhead: 1.45 }));
    if (stale) notes.push(`apply: ${stale} rule action(s) stale because their fixes overlap another rule's (ast-grep drops those fixes silently)`);
    results.apply = { staleActions: stale };
  } finally {
    floor.dispose();
    removeWorkspace(ws);
    removeWorkspace(one);
  }
  return { rows, results, notes };
}
