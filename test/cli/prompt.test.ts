import { readFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { CLI, gitdir } from "../helpers/testdir.js";

/** The prompt line names the action: `Apply c#1? ...`. */
const PROMPT = /Apply [\w#-]+\?/;

const EDIT = '{ ops: [{ pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" }], lang: ts';

async function project() {
  return gitdir({
    "a.ts": "export const a = Effect.map(x, f);\n",
    "b.ts": "export const b = Effect.map(y, g);\n",
    "c.ts": "export const c = Effect.map(z, h);\n",
    "r.yaml": ["version: 1", "steps:", ...["a", "b", "c"].map((s) => `  - id: ${s}\n    tool: ast_edit\n    with: ${EDIT}, path: ${s}.ts }`), ""].join("\n"),
    "p.yaml": "version: 1\ndefault: require-approval\n",
  });
}

/** A clean environment: no CI, no PRE_COMMIT (the prompt's conditions), plus `extra`. */
function env(extra: Record<string, string> = {}) {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TERM: "xterm", ...extra };
}

/**
 * Runs the CLI under a real pseudo-terminal (`script`), answering each prompt with the next key
 * once the prompt is on screen. Returns the terminal output.
 */
async function underPty(dir: string, args: string[], keys: string[], extraEnv: Record<string, string> = {}) {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(" ");
  const child = execa("script", ["-qfec", command, "/dev/null"], { cwd: dir, env: env(extraEnv), extendEnv: false, reject: false, timeout: 30_000 });
  let screen = "";
  let answered = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString();
    const prompts = screen.split(PROMPT).length - 1;
    if (prompts > answered && answered < keys.length) child.stdin.write(keys[answered++]!);
  });
  const result = await child;
  child.stdin?.end();
  return { code: result.exitCode, screen, prompts: screen.split(PROMPT).length - 1 };
}

const read = (dir: string, f: string) => readFile(path.join(dir, f), "utf8");
const report = async (dir: string) => JSON.parse(await read(dir, "rep.json"));

describe("interactive approval prompt (real pseudo-terminal)", () => {
  it("y applies, n leaves pending, d discards; the diff is shown in colour; exit 1 for what is pending", async () => {
    const dir = await project();
    const r = await underPty(dir, ["run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json"], ["y", "n", "d"]);
    expect(r.prompts).toBe(3);
    expect(r.screen).toContain("\x1b[32m+export const c = Effect.andThen(z, h);");
    // the diff left pending was shown at the prompt, and is not printed a second time
    expect(r.screen.split("+export const b = Effect.andThen(y, g);").length - 1).toBe(1);
    expect(r.code).toBe(1);
    const rep = await report(dir);
    expect(rep.outcomes.map((o: { id: string; outcome: string; approval: unknown }) => [o.id, o.outcome, o.approval])).toEqual([
      ["c#1", "applied", { by: "prompt", via: "prompt" }],
      ["b#1", "pending-approval", null],
      ["a#1", "discarded", null],
    ]);
    expect(await read(dir, "c.ts")).toBe("export const c = Effect.andThen(z, h);\n");
    expect(await read(dir, "b.ts")).toBe("export const b = Effect.map(y, g);\n");
    // live progress on a terminal: a spinner line redrawn in place, then the step's line
    expect(r.screen).toContain("\r\x1b[K\x1b[36m⠋\x1b[39m [1/3] a (ast_edit)");
    expect(r.screen).toContain("\x1b[32m✓\x1b[39m [1/3] a (ast_edit): staged a#1");
  });

  it("a applies this and every remaining one without asking again; q stops asking", async () => {
    const all = await project();
    const a = await underPty(all, ["run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json"], ["a"]);
    expect(a.prompts).toBe(1);
    expect(a.code).toBe(0);
    expect((await report(all)).outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(["applied", "applied", "applied"]);
    const quit = await project();
    const q = await underPty(quit, ["run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json"], ["q"]);
    expect(q.prompts).toBe(1);
    expect(q.code).toBe(1);
    expect((await report(quit)).outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(["pending-approval", "pending-approval", "pending-approval"]);
  });

  it("PRE_COMMIT on a terminal: no prompt, nothing waits", async () => {
    const dir = await project();
    const r = await underPty(dir, ["run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json"], [], { PRE_COMMIT: "1" });
    expect(r.prompts).toBe(0);
    expect(r.code).toBe(1);
  });

  it("no TTY (stdin an open pipe that never sends anything, CI unset): never waits, exit 1", async () => {
    const dir = await project();
    const started = Date.now();
    const child = execa(process.execPath, [CLI, "run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json"], {
      cwd: dir,
      env: env(),
      extendEnv: false,
      reject: false,
      stdin: "pipe",
      timeout: 20_000,
    });
    const r = await child;
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.stderr).not.toMatch(PROMPT);
    expect((await report(dir)).outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(["pending-approval", "pending-approval", "pending-approval"]);
  });
});
