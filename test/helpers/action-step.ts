// The action's `run` step as GitHub runs a `shell: bash` step: the script in a file, run as
// `bash --noprofile --norc -eo pipefail {0}`, with every env key the step declares set (an
// input's expression gives the input's declared default, anything else the empty string).
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { parse } from "yaml";
import { REPO_ROOT } from "./testdir.js";

interface ActionStep {
  id?: string;
  run?: string;
  env?: Record<string, string>;
}

/** A runner of the action's run step in `dir` (which must hold `tmp/`); `output` names the GITHUB_OUTPUT file. */
export async function actionRunStep(dir: string, base: Record<string, string> = {}) {
  const action = parse(await readFile(path.join(REPO_ROOT, "action.yml"), "utf8")) as {
    inputs: Record<string, { default?: string }>;
    runs: { steps: ActionStep[] };
  };
  const step = action.runs.steps.find((s) => s.id === "run")!;
  const declared = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([k, v]) => {
      const input = /^\$\{\{ inputs\.([\w-]+) \}\}$/.exec(v)?.[1];
      return [k, input ? (action.inputs[input]?.default ?? "") : ""];
    }),
  );
  const file = path.join(dir, "tmp/step.sh");
  await writeFile(file, step.run!);
  return (inputs: Record<string, string>, output: string) =>
    execa("bash", ["--noprofile", "--norc", "-eo", "pipefail", file], {
      cwd: dir,
      reject: false,
      env: {
        CI: "true",
        GITHUB_ACTIONS: "true",
        GITHUB_ACTION_PATH: REPO_ROOT,
        RUNNER_TEMP: path.join(dir, "tmp"),
        GITHUB_OUTPUT: path.join(dir, output),
        GITHUB_STEP_SUMMARY: path.join(dir, "summary.md"),
        ...declared,
        TOLLGATE_CACHE_DIR: path.join(dir, "tmp/tollgate-results"),
        ...base,
        ...inputs,
      },
    });
}
