// S7: start-up, what a pre-commit hook feels. The S1 recipe over one small file of effect@4.1.0's
// src/ (the smallest holding `Effect.map(`), `tollgate run recipe.yaml FILE --check`, against
// `node -e 0`: ≤ 2.0×; and `tollgate --version` ≤ 1.5×. A hook runs the same command again and
// again, so the launcher's code cache is filled by one untimed run first; the same run with the
// code cache off (TOLLGATE_CODE_CACHE=0) is printed without a target. At least ten rounds:
// these runs are short and the machine's noise is not. The workspace is a git work tree with
// the file committed, as a hook's is.
import { execFileSync } from "node:child_process";
import { NODE, ROOT, RUNS, alternate, effectCorpus, log, measure, removeWorkspace, row, summarize, tollgate, workspace } from "../lib/harness.mjs";
import { oneSmallFile } from "../lib/floor.mjs";
import { FILES, NEEDLES } from "./s1-one-pattern.mjs";

export const id = "S7";
export const title = "start-up: the S1 recipe over one small file (run FILE --check) and --version, vs node -e 0";

export async function run() {
  const rounds = Math.max(RUNS, 10);
  const ws = workspace({}, { "recipe.yaml": FILES["recipe.yaml"] });
  const rows = [];
  try {
    const file = oneSmallFile(effectCorpus(), "ts", NEEDLES, ws);
    const git = (...a) => execFileSync("git", ["-c", "user.email=bench@example.com", "-c", "user.name=bench", ...a], { cwd: ws, stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "bench");
    const args = ["run", "recipe.yaml", file, "--check"];
    const warm = tollgate(args, ws);
    if (warm.status !== 0 && warm.status !== 1) throw new Error(`tollgate ${args.join(" ")} failed (exit ${warm.status}): ${warm.stderr}`);
    log(`  tollgate ${args.join(" ")} (exit ${warm.status}: ${warm.status === 1 ? "a change staged" : "nothing to change"})`);
    const node = () => measure(NODE, ["-e", "0"], ROOT);
    const check = alternate(rounds, "run --check", () => ({ a: node(), b: tollgate(args, ws) }), [0, 1]);
    rows.push(row("run FILE --check vs node -e 0", summarize(check.a, check.b), { maxRatio: 2.0 }));
    const version = alternate(rounds, "--version", () => ({ a: node(), b: tollgate(["--version"], ROOT) }));
    rows.push(row("--version vs node -e 0", summarize(version.a, version.b), { maxRatio: 1.5, maxRssMiB: null }));
    const cold = alternate(rounds, "run --check, no code cache", () => ({ a: node(), b: tollgate(args, ws, { TOLLGATE_CODE_CACHE: "0" }) }), [0, 1]);
    rows.push(row("run FILE --check, code cache off (TOLLGATE_CODE_CACHE=0)", summarize(cold.a, cold.b)));
  } finally {
    removeWorkspace(ws);
  }
  return { rows, results: {}, notes: [] };
}
