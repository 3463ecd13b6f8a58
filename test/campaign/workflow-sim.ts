import { cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { parse } from "yaml";
import { REPO_ROOT } from "../helpers/testdir.js";
import { readOutputs } from "./helpers.js";

/**
 * A small GitHub Actions job runner for the campaign workflow's tests: `run:` steps run as
 * GitHub runs them (the script in a file, `bash --noprofile --norc -eo pipefail`, env from
 * `env:`, outputs from `$GITHUB_OUTPUT`); the action (action.yml) runs its own shell steps the
 * same way; checkout, artifacts and create-pull-request are stood in for by what they do to the
 * local git repositories and directories. Expressions: context paths, literals, ==, !=, !, &&,
 * ||, parentheses, cancelled()/success()/failure()/always().
 */
export type Step = {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
  if?: string;
  "working-directory"?: string;
};
export type Context = Record<string, unknown>;

export const load = async (file: string) => parse(await readFile(path.join(REPO_ROOT, file), "utf8"));

function lookup(ctx: Context, dotted: string): unknown {
  let cur: unknown = ctx;
  for (const part of dotted.split(".")) cur = cur !== null && typeof cur === "object" ? (cur as Record<string, unknown>)[part] : undefined;
  return cur;
}

/** Evaluates one expression (without `${{ }}`). */
export function evaluate(expr: string, ctx: Context, status: { failed: boolean }): unknown {
  const tokens = expr.match(/'(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|[A-Za-z_][\w.-]*\(\)|[A-Za-z_][\w.-]*|\d+/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const truthy = (v: unknown) => v !== undefined && v !== null && v !== false && v !== "" && v !== 0;
  const primary = (): unknown => {
    const t = tokens[i++]!;
    if (t === "(") {
      const v = or();
      i++;
      return v;
    }
    if (t === "!") return !truthy(primary());
    if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (/^\d+$/.test(t)) return Number(t);
    if (t === "true" || t === "false") return t === "true";
    if (t === "cancelled()") return false;
    if (t === "always()") return true;
    if (t === "success()") return !status.failed;
    if (t === "failure()") return status.failed;
    return lookup(ctx, t);
  };
  const cmp = (): unknown => {
    const left = primary();
    if (peek() === "==" || peek() === "!=") {
      const op = tokens[i++];
      const right = primary();
      // Expression values are strings, numbers and booleans, compared as GitHub does: as text.
      // eslint-disable-next-line @typescript-eslint/no-base-to-string
      const eq = String(left ?? "") === String(right ?? "");
      return op === "==" ? eq : !eq;
    }
    return left;
  };
  const and = (): unknown => {
    let v = cmp();
    while (peek() === "&&") {
      i++;
      const r = cmp();
      v = truthy(v) ? r : v;
    }
    return v;
  };
  const or = (): unknown => {
    let v = and();
    while (peek() === "||") {
      i++;
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  };
  return or();
}

/** A string with every `${{ }}` replaced by its value. */
export function interpolate(text: string, ctx: Context, status = { failed: false }): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, e: string) => {
    const v = evaluate(e, ctx, status);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar here: objects are JSON above
    return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  });
}

/** Whether a step's `if:` holds (success() is implied when it names no status function). */
export function condition(cond: string | undefined, ctx: Context, status: { failed: boolean }): boolean {
  if (cond === undefined) return !status.failed;
  const expr = cond.trim().replace(/^\$\{\{\s*([\s\S]*?)\s*\}\}$/, "$1");
  const v = evaluate(expr, ctx, status);
  const ok = v !== undefined && v !== null && v !== false && v !== "" && v !== 0;
  return /\b(cancelled|always|failure|success)\(\)/.test(expr) ? ok : ok && !status.failed;
}

export interface Runner {
  workspace: string;
  temp: string;
  /** owner/name → bare repository path (a name missing here cannot be checked out). */
  remotes: Record<string, string>;
  /** The calling repository's files (the campaign). */
  caller: string;
  artifacts: string;
  /** Every pull request opened or updated: repository → its body and the branch pushed. */
  pulls: Map<string, { number: number; body: string; branch: string; operation: string; draft: string }>;
  log: string[];
}

/** Runs a `run:` script exactly as GitHub runs a `shell: bash` step. */
export async function shellStep(
  r: Runner,
  script: string,
  env: Record<string, string>,
  cwd = r.workspace,
): Promise<{ code: number; outputs: Record<string, string>; stdout: string; stderr: string }> {
  await mkdir(r.temp, { recursive: true });
  const file = path.join(r.temp, `step-${Math.random().toString(36).slice(2)}.sh`);
  const output = `${file}.out`;
  await writeFile(file, script);
  await writeFile(output, "");
  const res = await execa("bash", ["--noprofile", "--norc", "-eo", "pipefail", file], {
    cwd,
    reject: false,
    extendEnv: false,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/root",
      CI: "true",
      GITHUB_ACTIONS: "true",
      RUNNER_TEMP: r.temp,
      RUNNER_OS: "Linux",
      GITHUB_WORKSPACE: r.workspace,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: path.join(r.temp, "step-summary.md"),
      ...env,
    },
  });
  r.log.push(res.stdout, res.stderr);
  return { code: res.exitCode ?? 1, outputs: await readOutputs(output), stdout: res.stdout, stderr: res.stderr };
}

const evalMap = (m: Record<string, unknown> | undefined, ctx: Context, status: { failed: boolean }) =>
  Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, interpolate(String(v), ctx, status)]));

/** The composite action at the repository root: its shell steps with the inputs as it maps them. */
async function actionStep(r: Runner, inputs: Record<string, string>): Promise<{ code: number; outputs: Record<string, string> }> {
  const action = await load("action.yml");
  const withDefaults: Record<string, string> = {};
  for (const [k, def] of Object.entries<{ default?: string }>(action.inputs)) withDefaults[k] = inputs[k] ?? def.default ?? "";
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const status = { failed: false };
  for (const s of action.runs.steps as Step[]) {
    // setup-node, the cache and the install: the CLI is built in this checkout already
    if (!s.run || /npm ci/.test(s.run)) continue;
    const ctx = { inputs: withDefaults, steps, github: { action_path: REPO_ROOT } };
    if (s.if !== undefined && !condition(s.if, ctx, status)) continue;
    const res = await shellStep(
      r,
      s.run,
      { GITHUB_ACTION_PATH: REPO_ROOT, ...evalMap(s.env, ctx, status) },
      s["working-directory"] ? interpolate(s["working-directory"], ctx) : r.workspace,
    );
    if (s.id) steps[s.id] = { outputs: res.outputs };
    if (res.code !== 0) return { code: res.code, outputs: mapOutputs(action, steps) };
  }
  return { code: 0, outputs: mapOutputs(action, steps) };
}

function mapOutputs(action: { outputs: Record<string, { value: string }> }, steps: Context): Record<string, string> {
  return Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, interpolate(o.value, { steps })]));
}

async function checkout(r: Runner, w: Record<string, string>): Promise<number> {
  const dest = path.join(r.workspace, w.path ?? ".");
  if (!w.repository) {
    await cp(r.caller, dest, { recursive: true });
    return 0;
  }
  const bare = r.remotes[w.repository];
  if (!bare) return 1;
  // fetch-depth 0: every branch as refs/remotes/origin/*; persist-credentials false: no token kept
  const res = await execa("git", ["clone", "-q", bare, dest], { reject: false });
  return res.exitCode ?? 1;
}

async function upload(r: Runner, w: Record<string, string>): Promise<{ code: number; outputs: Record<string, string> }> {
  const dir = path.join(r.artifacts, w.name!);
  const src = w.path!;
  const exists = await readFile(src).then(
    () => true,
    () => false,
  );
  if (!exists) return { code: w["if-no-files-found"] === "ignore" ? 0 : 1, outputs: {} };
  await mkdir(dir, { recursive: true });
  await cp(src, path.join(dir, path.basename(src)));
  return { code: 0, outputs: { "artifact-url": `https://github.com/acme/campaign/actions/runs/1/artifacts/${encodeURIComponent(w.name!)}` } };
}

async function download(r: Runner, w: Record<string, string>): Promise<number> {
  const pattern = new RegExp(`^${w.pattern!.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
  const names = (await readdir(r.artifacts).catch(() => [] as string[])).filter((n) => pattern.test(n));
  for (const n of names) await cp(path.join(r.artifacts, n), path.join(w.path!, n), { recursive: true });
  return 0;
}

/** What create-pull-request does to the repository: commit add-paths (or everything) on the branch and force-push it. */
async function createPullRequest(r: Runner, w: Record<string, string>, repository: string): Promise<{ code: number; outputs: Record<string, string> }> {
  const cwd = path.join(r.workspace, w.path ?? ".");
  const git = (...args: string[]) => execa("git", ["-c", "user.name=github-actions[bot]", "-c", "user.email=bot@example.com", ...args], { cwd });
  const existed = (await execa("git", ["rev-parse", "--verify", "--quiet", `refs/remotes/origin/${w.branch}`], { cwd, reject: false })).exitCode === 0;
  await git("checkout", "-q", "-B", w.branch!);
  const paths = (w["add-paths"] ?? "")
    .split(/[\n,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
  await git("add", ...(paths.length > 0 ? ["--", ...paths] : ["-A"]));
  await git("commit", "-q", "-m", w["commit-message"]!);
  await git("push", "-q", "--force", "origin", `HEAD:refs/heads/${w.branch}`);
  const previous = r.pulls.get(repository);
  const number = previous?.number ?? r.pulls.size + 1;
  const operation = previous || existed ? "updated" : "created";
  r.pulls.set(repository, { number, body: await readFile(w["body-path"]!, "utf8"), branch: w.branch!, operation, draft: w.draft ?? "" });
  return { code: 0, outputs: { "pull-request-url": `https://github.com/${repository}/pull/${number}`, "pull-request-operation": operation } };
}

/** Runs one job's steps in order, as GitHub does, with `ctx` (inputs, matrix, needs, secrets, github, runner). */
export async function runJob(
  r: Runner,
  job: { steps: Step[] },
  ctx: Context,
): Promise<{ failed: boolean; steps: Record<string, { outputs: Record<string, string>; outcome: string }> }> {
  const steps: Record<string, { outputs: Record<string, string>; outcome: string }> = {};
  const status = { failed: false };
  const full = { ...ctx, steps };
  for (const s of job.steps) {
    if (!condition(s.if, full, status)) {
      if (s.id) steps[s.id] = { outputs: {}, outcome: "skipped" };
      continue;
    }
    const w = evalMap(s.with, full, status);
    let res: { code: number; outputs: Record<string, string> };
    if (s.run) res = await shellStep(r, s.run, evalMap(s.env, full, status));
    else if (s.uses!.startsWith("actions/checkout@")) res = { code: await checkout(r, w), outputs: {} };
    else if (s.uses!.startsWith("actions/upload-artifact@")) res = await upload(r, w);
    else if (s.uses!.startsWith("actions/download-artifact@")) res = { code: await download(r, w), outputs: {} };
    else if (s.uses!.startsWith("peter-evans/create-pull-request@")) res = await createPullRequest(r, w, String(lookup(ctx, "matrix.repository")));
    else if (/^[^/]+\/tollgate@/.test(s.uses!)) res = await actionStep(r, w);
    else throw new Error(`no stand-in for ${s.uses}`);
    if (s.id) steps[s.id] = { outputs: res.outputs, outcome: res.code === 0 ? "success" : "failure" };
    if (res.code !== 0) status.failed = true;
  }
  return { failed: status.failed, steps };
}
