import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { testdir } from "../helpers/testdir.js";

export const RECIPE = [
  "version: 1",
  "name: effect and-then",
  "steps:",
  "  - id: src",
  "    tool: ast_edit",
  "    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: src }",
  "",
].join("\n");

/** Two steps: src/ is auto-applied by the policy below, lib/ awaits approval. */
export const RECIPE_TWO = `${RECIPE}  - id: lib\n    tool: ast_edit\n    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: lib }\n`;

export const POLICY = [
  "version: 1",
  "default: require-approval",
  "rules:",
  "  - name: sources",
  "    match: { paths: ['src/**'] }",
  "    decision: auto-apply",
  "",
].join("\n");

export const git = (cwd: string, ...args: string[]) => execa("git", args, { cwd });

const IDENTITY = ["-c", "user.email=dev@example.com", "-c", "user.name=dev"];

/**
 * A bare repository holding `files` on main (the campaign's target, as a remote), and a clone of
 * it with every branch fetched, as actions/checkout with fetch-depth 0 leaves it.
 */
export async function remoteAndCheckout(files: Record<string, string>, root?: string): Promise<{ bare: string; checkout: string; root: string }> {
  const base = root ?? (await testdir());
  const seed = path.join(base, `seed-${Math.random().toString(36).slice(2)}`);
  const bare = path.join(base, `remote-${Math.random().toString(36).slice(2)}.git`);
  await mkdir(seed, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(seed, name)), { recursive: true });
    await writeFile(path.join(seed, name), text);
  }
  await git(seed, "init", "-q", "-b", "main");
  await git(seed, "add", "-A");
  await git(seed, ...IDENTITY, "commit", "-q", "-m", "init", "--allow-empty");
  await git(base, "clone", "-q", "--bare", seed, bare);
  const checkout = path.join(base, `checkout-${Math.random().toString(36).slice(2)}`);
  await git(base, "clone", "-q", bare, checkout);
  return { bare, checkout, root: base };
}

/** Pushes a branch with one commit to the bare remote (someone else's work, or the campaign's own). */
export async function pushBranch(bare: string, branch: string, message: string, file = "NOTES.md"): Promise<string> {
  const work = `${bare}-work-${Math.random().toString(36).slice(2)}`;
  await git(path.dirname(bare), "clone", "-q", bare, work);
  await git(work, "checkout", "-q", "-b", branch);
  await writeFile(path.join(work, file), `${message}\n`);
  await git(work, "add", "-A");
  await git(work, ...IDENTITY, "commit", "-q", "-m", message);
  await git(work, "push", "-q", "origin", branch);
  return (await git(work, "rev-parse", "HEAD")).stdout.trim();
}

/** Parses a `$GITHUB_OUTPUT` file (name=value lines and name<<DELIM heredocs); the last value wins. */
export async function readOutputs(file: string): Promise<Record<string, string>> {
  const text = await readFile(file, "utf8").catch(() => "");
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return out;
}
