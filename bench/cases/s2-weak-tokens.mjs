// S2: a pattern with weak fixed tokens, `$A !== undefined` → `$A != null`, over
// effect@4.1.0's src/ (the prefilter lets most files through): dry-run ≤ 0.8× `ast-grep run`.
import { effectCorpus } from "../lib/harness.mjs";
import { onePatternCase } from "../lib/one-pattern.mjs";

export const id = "S2";
export const title = "weak fixed tokens, effect@4.1.0 src/ ($A !== undefined → $A != null)";

export async function run() {
  return onePatternCase({ label: "effect src/", tree: effectCorpus(), lang: "ts", pat: "$A !== undefined", out: "$A != null", maxRatio: 0.8 });
}
