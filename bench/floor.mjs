// `npm run bench:floor`: the floor of the suite's ast cases on its own: a whole Node process that
// loads @ast-grep/napi and makes one findInFiles call with `{ any: [the case's patterns] }` over
// the files holding at least one of the case's needles (plain substrings), timed alternating with
// `node -e 0` and the ast-grep CLI over the whole corpus. T_floor − T_node is what napi spends
// on the work; `npm run bench` sets tollgate's time beside it (the overhead). Takes the same case
// arguments and `--rounds N` as `npm run bench` (S1, S2, S3, S5).
import { rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RUNS, astGrep, effectCorpus, fmtMs, log, median, nodeStart, npmCorpus, pythonStdlib } from "./lib/harness.mjs";
import { filesOf, EXTENSIONS, floorRun, needleFiles } from "./lib/floor.mjs";
import { NEEDLES as S3_NEEDLES, PATTERNS as S3_PATTERNS, RULES as S3_RULES } from "./cases/s3-eight-ops.mjs";

const CASES = [
  {
    id: "S1",
    title: "Effect.map($A, $B), effect src/",
    tree: effectCorpus,
    lang: "ts",
    pats: ["Effect.map($A, $B)"],
    needles: ["Effect.map("],
    cli: ["run", "-p", "Effect.map($A, $B)", "-l", "ts"],
  },
  {
    id: "S2",
    title: "$A !== undefined, effect src/",
    tree: effectCorpus,
    lang: "ts",
    pats: ["$A !== undefined"],
    needles: ["!== undefined"],
    cli: ["run", "-p", "$A !== undefined", "-l", "ts"],
  },
  { id: "S3", title: "eight patterns, effect src/", tree: effectCorpus, lang: "ts", pats: S3_PATTERNS, needles: S3_NEEDLES, rules: S3_RULES },
  {
    id: "S5",
    title: "context.report($A), eslint lib/",
    tree: () => npmCorpus("eslint@10.15.0", "lib"),
    lang: "js",
    pats: ["context.report($A)"],
    needles: ["context.report("],
    cli: ["run", "-p", "context.report($A)", "-l", "js"],
  },
  {
    id: "S5",
    title: "isinstance($A, $B), Python stdlib",
    tree: pythonStdlib,
    lang: "python",
    pats: ["isinstance($A, $B)"],
    needles: ["isinstance("],
    cli: ["run", "-p", "isinstance($A, $B)", "-l", "python"],
  },
];

const named = process.argv
  .slice(2)
  .filter((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--rounds")
  .map((a) => a.toUpperCase());
const rulesFile = path.join(os.tmpdir(), `tollgate-floor-rules-${process.pid}.yml`);
log(
  `napi findInFiles over the needles' files (a whole process) vs node -e 0 and the ast-grep CLI over the corpus; ${os.availableParallelism()} CPUs; median of ${RUNS} alternating rounds`,
);
log("| case | needle files (MB) of all | T_node | T_floor | T_floor − T_node | CLI | floor ratio T_floor / CLI |");
log("|---|---|---|---|---|---|---|");
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
    const t = { node: [], floor: [], cli: [] };
    try {
      for (let i = 0; i < RUNS; i++) {
        t.cli.push(astGrep(cliArgs, path.dirname(tree)).ms);
        t.floor.push(floor.run().ms);
        t.node.push(nodeStart().ms);
      }
    } finally {
      floor.dispose();
    }
    const [node, fl, cli] = [median(t.node), median(t.floor), median(t.cli)];
    log(
      `| ${c.id} ${c.title} | ${paths.length} (${mb(paths)}) of ${all.length} (${mb(all)}) | ${fmtMs(node)} | ${fmtMs(fl)} | ${fmtMs(fl - node)} | ${fmtMs(cli)} | ${(fl / cli).toFixed(2)} |`,
    );
  }
} finally {
  rmSync(rulesFile, { force: true });
}
