// S5: other languages, one pattern each, dry-run ≤ 0.8× `ast-grep run`:
// JavaScript over eslint@10.15.0's lib/ and Python over Debian's python3 standard library.
import { npmCorpus, log, pythonStdlib } from "../lib/harness.mjs";
import { onePatternCase } from "../lib/one-pattern.mjs";

export const id = "S5";
export const title = "JavaScript (eslint@10.15.0 lib/) and Python (the standard library), one pattern each";

export async function run() {
  const js = onePatternCase({ label: "eslint@10.15.0 lib/ (JavaScript)", tree: npmCorpus("eslint@10.15.0", "lib"), lang: "js", pat: "context.report($A)", out: "report(context, $A)", maxRatio: 0.8 });
  const stdlib = pythonStdlib();
  if (!stdlib) {
    log("  no /usr/lib/python3.* on this machine: the Python half is not measured");
    return { ...js, notes: [...js.notes, "Python half not measured: no /usr/lib/python3.*"] };
  }
  const py = onePatternCase({ label: `${stdlib} (Python)`, tree: stdlib, lang: "python", pat: "isinstance($A, $B)", out: "is_a($A, $B)", maxRatio: 0.8 });
  return { rows: [...js.rows, ...py.rows], results: { javascript: js.results, python: py.results }, notes: [...js.notes, ...py.notes] };
}
