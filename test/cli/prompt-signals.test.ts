import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { CLI, gitdir } from "../helpers/testdir.js";

// The interactive prompt in a real pseudo-terminal (`script`): what it shows, and how a signal
// while it waits for a key ends the run (like Ctrl-C: exit 130, report written, lock released).
const EDIT = (pat: string, out: string, p: string) => `{ ops: [{ pat: "${pat}", out: "${out}" }], lang: ts, path: ${p} }`;
const PROMPT = /Apply [\w#-]+\?/g;

function env() {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TERM: "xterm" };
}

/**
 * Runs the CLI under `script` (the node process `exec`s from the shell that wrote its pid to
 * `pid`), calling `onPrompt(n, pid)` when the n-th prompt (1-based) is on screen.
 */
async function underPty(dir: string, args: string[], onPrompt: (n: number, pid: number, child: Pick<ReturnType<typeof execa>, "kill" | "stdin">) => void) {
  const command = `echo $$ > pid; exec ${[process.execPath, CLI, ...args].map((a) => `'${a}'`).join(" ")}`;
  const child = execa("script", ["-qfec", command, "/dev/null"], { cwd: dir, env: env(), extendEnv: false, reject: false, timeout: 30_000 });
  let screen = "";
  let seen = 0;
  const onData = async (chunk: Buffer) => {
    screen += chunk.toString();
    const prompts = screen.match(PROMPT)?.length ?? 0;
    while (seen < prompts) {
      seen++;
      const pid = Number((await readFile(path.join(dir, "pid"), "utf8")).trim());
      onPrompt(seen, pid, child);
    }
  };
  child.stdout.on("data", (chunk: Buffer) => void onData(chunk));
  const result = await child;
  return { code: result.exitCode, screen, prompts: seen };
}

async function project(extra: Record<string, string> = {}) {
  return gitdir({
    "a.ts": "export const a = Effect.map(x, f);\n",
    "b.ts": "export const b = Effect.map(y, g);\n",
    "r.yaml": [
      "version: 1",
      "steps:",
      `  - { id: a, tool: ast_edit, with: ${EDIT("Effect.map($A, $B)", "Effect.andThen($A, $B)", "a.ts")} }`,
      `  - { id: b, tool: ast_edit, with: ${EDIT("Effect.map($A, $B)", "Effect.andThen($A, $B)", "b.ts")} }`,
      "",
    ].join("\n"),
    "p.yaml": "version: 1\ndefault: require-approval\n",
    ...extra,
  });
}

const report = async (dir: string) => JSON.parse(await readFile(path.join(dir, "rep.json"), "utf8"));

async function gone(pid: number) {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`process ${pid} still running`);
}

describe("signals at the interactive prompt end the run like SIGINT", () => {
  for (const sig of ["SIGTERM", "SIGHUP"] as const) {
    it(`${sig}: exit 130, the report written (interrupted), the lock released, nothing more applied`, async () => {
      const dir = await project();
      const r = await underPty(dir, ["run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json"], (_n, pid) => process.kill(pid, sig));
      expect(r.prompts).toBe(1);
      expect(r.code).toBe(130);
      const rep = await report(dir);
      expect(rep.run.interrupted).toBe(true);
      expect(rep.exitCode).toBe(130);
      expect(rep.outcomes.map((o: { outcome: string }) => o.outcome)).not.toContain("applied");
      expect(existsSync(path.join(dir, ".tollgate/lock"))).toBe(false);
      expect(await readFile(path.join(dir, "b.ts"), "utf8")).toBe("export const b = Effect.map(y, g);\n");
    });
  }

  it("closing the terminal (script ends, the kernel sends SIGHUP): the report is written and the lock released", async () => {
    const dir = await project();
    let pid = 0;
    await underPty(dir, ["run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json"], (_n, p, child) => {
      pid = p;
      child.kill("SIGKILL"); // script dies: the pty's master closes under the CLI
    });
    await gone(pid);
    const rep = await report(dir);
    expect(rep.run.interrupted).toBe(true);
    expect(rep.exitCode).toBe(130);
    expect(existsSync(path.join(dir, ".tollgate/lock"))).toBe(false);
  });
});

describe("what the prompt shows", () => {
  it("names the action; after an earlier action wrote the file, the diff is against the file as it now is", async () => {
    const dir = await project({
      "c.ts": "Effect.map(x, f);\nconsole.log(1);\n",
      "r.yaml": [
        "version: 1",
        "steps:",
        `  - { id: map, tool: ast_edit, with: ${EDIT("Effect.map($A, $B)", "Effect.andThen($A, $B)", "c.ts")} }`,
        `  - { id: log, tool: ast_edit, with: ${EDIT("console.log($X)", "logger.info($X)", "c.ts")} }`,
        "",
      ].join("\n"),
    });
    const r = await underPty(dir, ["run", "r.yaml", "--policy", "p.yaml", "--report", "rep.json", "--no-color"], (_n, _pid, child) => child.stdin!.write("y"));
    expect(r.prompts).toBe(2);
    expect(r.code).toBe(0);
    const second = r.screen.slice(r.screen.indexOf("Apply log#1?"));
    expect(r.screen).toContain("Apply log#1? 2 pending");
    expect(second).toContain("Apply map#1? 1 pending");
    // map#1 was staged against `console.log(1)`; log#1 has since written `logger.info(1)`.
    expect(second).toContain(" logger.info(1);");
    expect(second).toContain("note: c.ts: shown against the file as it is now");
    expect(await readFile(path.join(dir, "c.ts"), "utf8")).toBe("Effect.andThen(x, f);\nlogger.info(1);\n");
  });

  it("a huge diff is summarised before the prompt, not dumped", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`src/f${i}.ts`] = `export const v${i} = Effect.map(x, f);\n`;
    const dir = await project({
      ...files,
      "r.yaml": ["version: 1", "steps:", `  - { id: all, tool: ast_edit, with: ${EDIT("Effect.map($A, $B)", "Effect.andThen($A, $B)", "src")} }`, ""].join(
        "\n",
      ),
    });
    const r = await underPty(dir, ["run", "r.yaml", "--policy", "p.yaml", "--no-color"], (_n, _pid, child) => child.stdin!.write("n"));
    expect(r.prompts).toBe(1);
    expect(r.screen).toContain("300 files, +300 −300: too long to show here");
    expect(r.screen).toContain("… and 280 more files");
    expect(r.screen.split("+export const v").length - 1).toBeLessThan(5);
  });
});
