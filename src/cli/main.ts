// Entry point. `--version` is answered before anything heavy loads (SPEC 9); every command
// module is imported lazily so `--help` stays fast too.
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else {
  // An error no step awaited (a custom tool's un-awaited `pi.files.stage`, a throwing timer) has
  // no step to fail: without these handlers Node prints a stack trace and exits 1, which reads as
  // "outstanding". It is a failure during the run instead: one line, exit at least 3 (SPEC 5, 8).
  let stray = false;
  const onStray = (err: unknown) => {
    // The reader closed stdout (`tollgate ... --format json | head`): nothing to report.
    if ((err as NodeJS.ErrnoException | undefined)?.code === "EPIPE") return;
    stray = true;
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`tollgate: error outside any step (a custom tool's promise not awaited?): ${message}\n`);
    if (process.env.TOLLGATE_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    if (typeof process.exitCode === "number" && process.exitCode < 3) process.exitCode = 3;
  };
  process.on("unhandledRejection", onStray);
  process.on("uncaughtException", onStray);
  // Last resort against Node's silent exit 13 (a top-level await that never settles): when the
  // loop runs empty and no wait in tollgate took it up (util/settle.ts counts those), say so.
  const handled = Symbol.for("tollgate.stuckWaitsHandled");
  const counter = globalThis as unknown as Record<symbol, number>;
  let settled = false;
  process.on("beforeExit", () => {
    if (settled) return;
    const seen = counter[handled] ?? 0;
    setImmediate(() => {
      if (settled || (counter[handled] ?? 0) !== seen) return;
      process.stderr.write("tollgate: internal error: the command stopped with work pending that can never finish\n");
      process.exit(3);
    });
  });
  const { main } = await import("./app.js");
  const code = await main(argv);
  settled = true;
  // One turn of the loop first: a rejection nobody awaited is reported after the microtasks of
  // the turn it happened in, which may be this one.
  await new Promise((resolve) => setImmediate(resolve));
  process.exitCode = stray && code < 3 ? 3 : code;
  // The command is done: exit with its code whatever timers or handles custom code left behind
  // (SPEC 8 v1.1), once what was written to stdout and stderr has been handed on.
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      if (stream.destroyed || !stream.writable) return resolve();
      stream.write("", () => resolve());
    });
  await Promise.race([Promise.all([flushed(process.stdout), flushed(process.stderr)]), new Promise((r) => setTimeout(r, 10_000).unref())]);
  process.exit();
}
