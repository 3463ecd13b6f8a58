// S2: a pattern with weak fixed tokens, `$A !== undefined` → `$A != null`, over effect@4.1.0's
// src/ (the prefilter lets most files through): overhead ≤ 1.3 against napi's floor over the
// files holding `!== undefined`; the ratio to `ast-grep run` is printed beside it.
import { effectCorpus } from "../lib/harness.mjs";
import { onePatternCase } from "../lib/one-pattern.mjs";

export const id = "S2";
export const title = "weak fixed tokens, effect@4.1.0 src/ ($A !== undefined → $A != null)";

export async function run() {
  return onePatternCase({
    label: "effect src/",
    tree: effectCorpus(),
    lang: "ts",
    pat: "$A !== undefined",
    out: "$A != null",
    needles: ["!== undefined"],
    maxOverhead: 1.3,
  });
}
