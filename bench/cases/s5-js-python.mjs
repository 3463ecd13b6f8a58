// S5: other languages, one pattern each, overhead ≤ 1.3 against napi's floor; the ratio to
// `ast-grep run` is printed beside it. JavaScript over eslint@10.15.0's lib/ (needle
// `context.report(`) and Python over Debian's python3 standard library (needle `isinstance(`).
import { npmCorpus, log, pythonStdlib } from "../lib/harness.mjs";
import { onePatternCase } from "../lib/one-pattern.mjs";

export const id = "S5";
export const title = "JavaScript (eslint@10.15.0 lib/) and Python (the standard library), one pattern each";

export async function run() {
  const js = onePatternCase({
    label: "eslint@10.15.0 lib/ (JavaScript)",
    tree: npmCorpus("eslint@10.15.0", "lib"),
    lang: "js",
    pat: "context.report($A)",
    out: "report(context, $A)",
    needles: ["context.report("],
    maxOverhead: 1.3,
  });
  const stdlib = pythonStdlib();
  if (!stdlib) {
    log("  no /usr/lib/python3.* on this machine: the Python half is not measured");
    return { ...js, notes: [...js.notes, "Python half not measured: no /usr/lib/python3.*"] };
  }
  const py = onePatternCase({
    label: `${stdlib} (Python)`,
    tree: stdlib,
    lang: "python",
    pat: "isinstance($A, $B)",
    out: "is_a($A, $B)",
    needles: ["isinstance("],
    maxOverhead: 1.3,
  });
  return { rows: [...js.rows, ...py.rows], results: { javascript: js.results, python: py.results }, notes: [...js.notes, ...py.notes] };
}
