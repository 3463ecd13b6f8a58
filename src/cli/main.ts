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
  const { main } = await import("./app.js");
  const code = await main(argv);
  process.exitCode = stray && code < 3 ? 3 : code;
}
