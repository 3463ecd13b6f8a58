import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { onTestFinished } from "vitest";

/** A temp dir with the given files; removed when the test finishes. */
export async function testdir(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "tollgate-test-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    const abs = path.join(dir, name);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return dir;
}

/** A temp git repository with the files committed. */
export async function gitdir(files: Record<string, string> = {}): Promise<string> {
  const dir = await testdir(files);
  const git = (...args: string[]) => execa("git", args, { cwd: dir });
  await git("init", "-q", "-b", "main");
  await git("config", "user.email", "test@example.com");
  await git("config", "user.name", "test");
  await git("add", "-A");
  await git("commit", "-q", "-m", "init", "--allow-empty");
  return dir;
}

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const CLI = path.join(REPO_ROOT, "bin/tollgate.js");

/** Runs the built CLI as a child process (no TTY, CI-like environment). */
export async function tollgate(args: string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number }) {
  const result = await execa(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    reject: false,
    stdin: "ignore",
    env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "", ...opts.env },
    timeout: opts.timeoutMs ?? 60_000,
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}
