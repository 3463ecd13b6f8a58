// S4: S3 on the 10× corpus (ten copies of effect@4.1.0's src/): overhead ≤ 1.3 against napi's
// floor over the ten copies, `ast-grep scan`'s ratio printed beside it, time at most linear in
// the tree, peak RSS < 600 MiB for dry-run and apply, whatever the number of changes.
// BENCH_SKIP_10X=1 skips it.
import { effectCorpus, log, row } from "../lib/harness.mjs";
import { eightOpsCase } from "../lib/eight-ops.mjs";

export const id = "S4";
export const title = "S3 on the 10× corpus (eight rewrites, ten copies of effect@4.1.0 src/)";

export async function run() {
  if (process.env.BENCH_SKIP_10X === "1") {
    log("  skipped (BENCH_SKIP_10X=1)");
    return { rows: [], results: { skipped: true }, notes: ["S4 skipped"] };
  }
  const tree = effectCorpus();
  const one = eightOpsCase({ tree, copies: 1, label: "1× (baseline)", maxOverhead: undefined, maxRssMiB: 300, apply: false });
  const ten = eightOpsCase({ tree, copies: 10, label: "10×", maxOverhead: 1.3, maxRssMiB: 600, apply: true });
  const growth = ten.results.dryRun.summary.tollgateMs / one.results.dryRun.summary.tollgateMs;
  log(`  10× / 1× tollgate dry-run time: ${growth.toFixed(1)}× (linear: ≤ 10)`);
  const growthRow = row(
    "time growth, 10× / 1× dry-run",
    { tollgateMs: ten.results.dryRun.summary.tollgateMs },
    { maxRssMiB: null, extra: { text: `growth ${growth.toFixed(1)}× ≤ 10×`, pass: growth <= 10 } },
  );
  return {
    rows: [...one.rows, ...ten.rows, growthRow],
    results: { oneX: one.results, tenX: ten.results, growth },
    notes: growth > 10 ? [`S4: time grew ${growth.toFixed(1)}× for 10× the tree`] : [],
  };
}
