export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Main = (argv: string[]) => Promise<number>;
let mainPromise: Promise<Main> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs the CLI's `main(argv)` from src/cli/app.ts (the same source every unit test imports; child-process
 * tests run bin/tollgate.js, which `npm test` has just built from it) inside this
 * test process: cwd, environment, stdout and stderr are swapped for the call and restored
 * after. Calls are serialized (process-wide state). ~100x cheaper than a child process.
 *
 * Only for commands that fail before anything runs (usage, recipe and policy validation):
 * they touch no signal handlers, locks or timers. Anything that runs tools, custom modules or
 * waits must use a real child process; `hostile.test.ts` checks that both give identical
 * results on sample cases.
 */
export function tollgateInProcess(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  const run = queue.then(() => runOnce(args, opts));
  queue = run.catch(() => undefined);
  return run;
}

async function runOnce(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  mainPromise ??= import("../../src/cli/app.js").then((m: { main: Main }) => m.main);
  const main = await mainPromise;
  const env: Record<string, string> = { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "", ...opts.env };
  const savedEnv = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const savedCwd = process.cwd();
  const savedExitCode = process.exitCode;
  const out = { stdout: "", stderr: "" };
  const capture = (stream: NodeJS.WriteStream, key: "stdout" | "stderr") => {
    const original = stream.write;
    stream.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      out[key] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      cb?.();
      return true;
    };
    return () => {
      stream.write = original;
    };
  };
  const restoreOut = capture(process.stdout, "stdout");
  const restoreErr = capture(process.stderr, "stderr");
  try {
    for (const [k, v] of Object.entries(env)) process.env[k] = v;
    process.chdir(opts.cwd);
    const code = await main(args);
    return { code, ...out };
  } finally {
    process.chdir(savedCwd);
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v;
    }
    process.exitCode = savedExitCode;
    restoreOut();
    restoreErr();
  }
}
