// `npm run bench:floor`: the floor of the suite's ast cases on its own: a whole Node process that
// loads @ast-grep/napi and makes one findInFiles call with `{ any: [the case's patterns] }` over
// the files holding at least one of the case's needles (plain substrings), timed alternating with
// `node -e 0` and the ast-grep CLI over the whole corpus. T_floor − T_node is what napi spends
// on the work; `npm run bench` sets tollgate's time beside it (the overhead). Takes the same case
// arguments and `--rounds N` as `npm run bench` (S1, S2, S3, S5).
//
// `--replay` adds, per case, the native work of tollgate's own dry-run of the case's recipe:
// the run is recorded once (untimed; lib/napi-recorder.cjs notes every findInFiles and parse it
// asks of napi), then a process that makes only that native work (lib/replay-process.mjs: one
// findInFiles call over the same files with tollgate's combined rule, and the statements the run
// parsed alone) is timed alternating with the floor. (T_replay − T_node) ÷ (T_floor − T_node) is
// the overhead a run would have if tollgate did nothing with what napi returns.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  NODE,
  ROOT,
  RUNS,
  TOLLGATE,
  astGrep,
  effectCorpus,
  fmtMs,
  log,
  measure,
  median,
  nodeStart,
  npmCorpus,
  pythonStdlib,
  removeWorkspace,
  workspace,
} from "./lib/harness.mjs";
import { filesOf, EXTENSIONS, floorRun, needleFiles } from "./lib/floor.mjs";
import { recipeOf } from "./lib/one-pattern.mjs";
import { FILES as S1_FILES } from "./cases/s1-one-pattern.mjs";
import { NEEDLES as S3_NEEDLES, PATTERNS as S3_PATTERNS, RECIPE as S3_RECIPE, RULES as S3_RULES } from "./cases/s3-eight-ops.mjs";

const CASES = [
  {
    id: "S1",
    title: "Effect.map($A, $B), effect src/",
    tree: effectCorpus,
    lang: "ts",
    pats: ["Effect.map($A, $B)"],
    needles: ["Effect.map("],
    cli: ["run", "-p", "Effect.map($A, $B)", "-l", "ts"],
    recipe: S1_FILES["recipe.yaml"],
  },
  {
    id: "S2",
    title: "$A !== undefined, effect src/",
    tree: effectCorpus,
    lang: "ts",
    pats: ["$A !== undefined"],
    needles: ["!== undefined"],
    cli: ["run", "-p", "$A !== undefined", "-l", "ts"],
    recipe: recipeOf("$A !== undefined", "$A != null", "ts"),
  },
  {
    id: "S3",
    title: "eight patterns, effect src/",
    tree: effectCorpus,
    lang: "ts",
    pats: S3_PATTERNS,
    needles: S3_NEEDLES,
    rules: S3_RULES,
    recipe: S3_RECIPE,
  },
  {
    id: "S5",
    title: "context.report($A), eslint lib/",
    tree: () => npmCorpus("eslint@10.15.0", "lib"),
    lang: "js",
    pats: ["context.report($A)"],
    needles: ["context.report("],
    cli: ["run", "-p", "context.report($A)", "-l", "js"],
    recipe: recipeOf("context.report($A)", "report(context, $A)", "js"),
  },
  {
    id: "S5",
    title: "isinstance($A, $B), Python stdlib",
    tree: pythonStdlib,
    lang: "python",
    pats: ["isinstance($A, $B)"],
    needles: ["isinstance("],
    cli: ["run", "-p", "isinstance($A, $B)", "-l", "python"],
    recipe: recipeOf("isinstance($A, $B)", "is_a($A, $B)", "python"),
  },
];

const named = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--rounds")
  .map((a) => a.toUpperCase());
const replay = process.argv.includes("--replay");
const rulesFile = path.join(os.tmpdir(), `tollgate-floor-rules-${process.pid}.yml`);
log(
  `napi findInFiles over the needles' files (a whole process) vs node -e 0 and the ast-grep CLI over the corpus; ${os.availableParallelism()} CPUs; median of ${RUNS} alternating rounds`,
);
log(
  `| case | needle files (MB) of all | T_node | T_floor | T_floor − T_node | CLI | floor ratio T_floor / CLI |${replay ? " T_replay | replay overhead |" : ""}`,
);
log(`|---|---|---|---|---|---|---|${replay ? "---|---|" : ""}`);

/**
 * The replay of tollgate's own napi calls for a case: its dry-run of `recipe` over the tree (as
 * `src/`) recorded once; `run()` measures one replay process, `dispose()` removes what it made.
 */
function replayRun(tree, recipe) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tollgate-replay-"));
  const record = path.join(dir, "napi-calls.json");
  // The record names the workspace's files: it stays until dispose().
  const ws = workspace({ src: tree }, { "recipe.yaml": recipe });
  const dispose = () => {
    removeWorkspace(ws);
    rmSync(dir, { recursive: true, force: true });
  };
  const recorder = path.join(ROOT, "bench", "lib", "napi-recorder.cjs");
  const r = measure(NODE, ["-r", recorder, TOLLGATE, "run", "recipe.yaml", "--dry-run"], ws, { TOLLGATE_BENCH_NAPI_RECORD: record });
  if (r.status !== 0) {
    dispose();
    throw new Error(`tollgate run failed (exit ${r.status}): ${r.stderr}`);
  }
  const script = path.join(ROOT, "bench", "lib", "replay-process.mjs");
  return { run: () => measure(NODE, [script, record], ROOT), dispose };
}
try {
  for (const c of CASES) {
    if (named.length && !named.includes(c.id)) continue;
    const tree = c.tree();
    if (!tree) {
      log(`| ${c.id} ${c.title} | (no corpus on this machine) | | | | | |`);
      continue;
    }
    const all = filesOf(tree, EXTENSIONS[c.lang]);
    const paths = needleFiles(tree, c.lang, c.needles);
    const mb = (fs) => (fs.reduce((n, f) => n + statSync(f).size, 0) / 1e6).toFixed(1);
    let cliArgs;
    if (c.rules) {
      writeFileSync(rulesFile, c.rules);
      cliArgs = ["scan", "--rule", rulesFile, path.basename(tree)];
    } else cliArgs = [...c.cli, path.basename(tree)];
    const floor = floorRun(c.lang, paths, c.pats);
    const replayed = replay ? replayRun(tree, c.recipe) : undefined;
    const t = { node: [], floor: [], cli: [], replay: [] };
    try {
      for (let i = 0; i < RUNS; i++) {
        t.cli.push(astGrep(cliArgs, path.dirname(tree)).ms);
        t.floor.push(floor.run().ms);
        if (replayed) t.replay.push(replayed.run().ms);
        t.node.push(nodeStart().ms);
      }
    } finally {
      floor.dispose();
      replayed?.dispose();
    }
    const [node, fl, cli] = [median(t.node), median(t.floor), median(t.cli)];
    const rp = replayed ? median(t.replay) : undefined;
    const replayCells = rp === undefined ? "" : ` ${fmtMs(rp)} | ${((rp - node) / (fl - node)).toFixed(2)} |`;
    log(
      `| ${c.id} ${c.title} | ${paths.length} (${mb(paths)}) of ${all.length} (${mb(all)}) | ${fmtMs(node)} | ${fmtMs(fl)} | ${fmtMs(fl - node)} | ${fmtMs(cli)} | ${(fl / cli).toFixed(2)} |${replayCells}`,
    );
  }
} finally {
  rmSync(rulesFile, { force: true });
}
