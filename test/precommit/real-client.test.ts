import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/testdir.js";

// The hooks as a user installs them: Debian's `pre-commit` clones `repo:` at `rev:`, installs it as a
// `language: node` hook (npm install, `npm pack` — whose stdout must be only the tarball name —,
// `npm install -g` of the tarball) and runs it from `git commit`. `repo:` is a clone of this checkout
// as it is now (uncommitted changes included), pinned by its sha. .ci/run installs the client.
const client = await execa("pre-commit", ["--version"], { reject: false, stdin: "ignore" }).catch(() => undefined);
const skip = !client || client.exitCode !== 0 ? "the pre-commit client is not installed (apt-get install pre-commit; .ci/run does it as root)" : "";
if (skip) console.warn(`test/precommit/real-client: skipped: ${skip}`);

let root: string;
let hookRepo: string;
let sha: string;
// npm settings a user may have: the hook environment's installs take packages from the npm cache
// when it has them and skip the audit and funding requests.
const NPM_QUIET = { npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
const env = () => ({ PRE_COMMIT_HOME: path.join(root, "home"), NO_COLOR: "1", CI: "", GITHUB_ACTIONS: "", TERM: "dumb", ...NPM_QUIET });
const git = (cwd: string, ...args: string[]) =>
  execa("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd, stdin: "ignore", env: env() });

beforeAll(async () => {
  if (skip) return;
  root = await mkdtemp(path.join(tmpdir(), "tollgate-real-precommit-"));
  hookRepo = path.join(root, "tollgate");
  await mkdir(hookRepo);
  // Tracked and untracked, not ignored, still present: what `git add -A && git commit` would commit.
  const listed = (await execa("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: REPO_ROOT })).stdout.split("\0").filter(Boolean);
  for (const file of listed) {
    const from = path.join(REPO_ROOT, file);
    if (!(await stat(from).catch(() => undefined))?.isFile()) continue;
    await mkdir(path.dirname(path.join(hookRepo, file)), { recursive: true });
    await cp(from, path.join(hookRepo, file), { preserveTimestamps: true });
  }
  await git(hookRepo, "init", "-q", "-b", "main");
  await git(hookRepo, "add", "-A");
  await git(hookRepo, "commit", "-q", "-m", "snapshot");
  sha = (await git(hookRepo, "rev-parse", "HEAD")).stdout.trim();
}, 60_000);
afterAll(() => (root ? rm(root, { recursive: true, force: true }) : undefined));

const RECIPE = "version: 1\nsteps:\n  - tool: ast_edit\n    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: . }\n";

async function project(name: string, hook: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, "src"), { recursive: true });
  await mkdir(path.join(dir, ".recipes"));
  await writeFile(path.join(dir, ".recipes/migrate.yaml"), RECIPE);
  await writeFile(path.join(dir, "src/a.ts"), "export const a = 1;\n");
  await writeFile(
    path.join(dir, ".pre-commit-config.yaml"),
    `repos:\n  - repo: ${hookRepo}\n    rev: ${sha}\n    hooks:\n      - id: ${hook}\n        args: [--recipe, .recipes/migrate.yaml]\n`,
  );
  await git(dir, "init", "-q", "-b", "main");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "init");
  await execa("pre-commit", ["install"], { cwd: dir, env: env(), stdin: "ignore" });
  return dir;
}

const commit = (dir: string) =>
  execa("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-m", "change"], {
    cwd: dir,
    reject: false,
    stdin: "ignore",
    env: env(),
    all: true,
    timeout: 240_000,
  });

describe.skipIf(skip)("the hooks with the real pre-commit client (repo: a local clone pinned by sha)", () => {
  it("install-hooks builds and installs the hook environment", async () => {
    const dir = await project("check", "tollgate-check");
    const r = await execa("pre-commit", ["install-hooks"], { cwd: dir, env: env(), reject: false, stdin: "ignore", all: true, timeout: 240_000 });
    expect(r.all).not.toContain("enoent");
    expect(r.exitCode, r.all).toBe(0);
  }, 250_000);

  it("tollgate-check blocks a commit the recipe would change, shows the diff and the command that applies it", async () => {
    const dir = path.join(root, "check");
    await writeFile(path.join(dir, "src/a.ts"), "export const a = Effect.map(x, f);\n");
    await git(dir, "add", "src/a.ts");
    const r = await commit(dir);
    expect(r.exitCode, r.all).toBe(1);
    expect(r.all).toContain("tollgate (check)");
    expect(r.all).toContain("-export const a = Effect.map(x, f);");
    expect(r.all).toContain("+export const a = Effect.andThen(x, f);");
    expect(r.all).toContain("to apply them: tollgate run --recipe .recipes/migrate.yaml src/a.ts --mode auto-apply");
    expect(await readFile(path.join(dir, "src/a.ts"), "utf8")).toBe("export const a = Effect.map(x, f);\n");
    expect((await git(dir, "log", "--format=%s")).stdout).toBe("init");
    // A file the recipe leaves alone commits.
    await git(dir, "checkout", "src/a.ts");
    await writeFile(path.join(dir, "src/a.ts"), "export const a = Effect.andThen(x, f);\n");
    await git(dir, "add", "src/a.ts");
    const ok = await commit(dir);
    expect(ok.exitCode, ok.all).toBe(0);
  }, 250_000);

  it("tollgate-apply fixes the file (the commit fails on the modification; re-staged, it commits)", async () => {
    const dir = await project("apply", "tollgate-apply");
    await writeFile(path.join(dir, "src/a.ts"), "export const a = Effect.map(x, f);\n");
    await git(dir, "add", "src/a.ts");
    const r = await commit(dir);
    expect(r.exitCode, r.all).toBe(1);
    expect(r.all).toContain("files were modified by this hook");
    expect(await readFile(path.join(dir, "src/a.ts"), "utf8")).toBe("export const a = Effect.andThen(x, f);\n");
    await git(dir, "add", "src/a.ts");
    const ok = await commit(dir);
    expect(ok.exitCode, ok.all).toBe(0);
    expect((await git(dir, "show", "HEAD:src/a.ts")).stdout).toBe("export const a = Effect.andThen(x, f);");
  }, 250_000);
});
