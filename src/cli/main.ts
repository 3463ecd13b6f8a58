// Entry point of the CLI (bundled by scripts/bundle.mjs into dist/bundle/cli.cjs). `--version` is
// answered before anything heavy loads (bin/tollgate.js answers it even before this module);
// every command module is imported lazily so `--help` stays fast too.
import { readFileSync } from "node:fs";
import { EXIT } from "../exit-codes.js";
import { STUCK_WAIT } from "../util/settle.js";
import { asError, messageOf } from "../util/thrown.js";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else {
  start(argv).catch((err: unknown) => {
    // Only the CLI's own modules failing to load gets here: main() catches everything else.
    process.stderr.write(`tollgate: internal error: ${messageOf(err)}\n`);
    process.exit(EXIT.failure);
  });
}

async function start(args: string[]): Promise<void> {
  const stray = watchStrayErrors();
  const settled = watchStuckLoop();
  const { main } = await import("./app.js");
  const code = await main(args);
  settled.done();
  // One turn of the loop first: a rejection nobody awaited is reported after the microtasks of
  // the turn it happened in, which may be this one.
  await new Promise((resolve) => setImmediate(resolve));
  process.exitCode = stray.seen() && code < EXIT.failure ? EXIT.failure : code;
  // The command is done: exit with its code whatever timers or handles custom code left behind,
  // once what was written to stdout and stderr has been handed on.
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      if (stream.destroyed || !stream.writable) {
        resolve();
        return;
      }
      stream.write("", () => resolve());
    });
  await Promise.race([Promise.all([flushed(process.stdout), flushed(process.stderr)]), new Promise((r) => setTimeout(r, 10_000).unref())]);
  process.exit();
}

/**
 * An error no step awaited (a custom tool's un-awaited `pi.files.stage`, a throwing timer) has
 * no step to fail: without these handlers Node prints a stack trace and exits 1, which reads as
 * "outstanding". It is a failure during the run instead: one line, exit at least 3.
 */
function watchStrayErrors(): { seen(): boolean } {
  let stray = false;
  const onStray = (thrown: unknown) => {
    const err = asError(thrown);
    // The reader closed stdout (`tollgate ... --format json | head`): nothing to report.
    if ((err as NodeJS.ErrnoException).code === "EPIPE") return;
    stray = true;
    const message = messageOf(err);
    process.stderr.write(`tollgate: error outside any step (a custom tool's promise not awaited?): ${message}\n`);
    if (process.env.TOLLGATE_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    if (typeof process.exitCode === "number" && process.exitCode < EXIT.failure) process.exitCode = EXIT.failure;
  };
  process.on("unhandledRejection", onStray);
  process.on("uncaughtException", onStray);
  return { seen: () => stray };
}

/**
 * Last resort against a command that stops with a wait that can never settle (the loop runs
 * empty): when no wait in tollgate takes it up (util/settle.ts marks their listeners), say so
 * and exit 3.
 */
function watchStuckLoop(): { done(): void } {
  let settled = false;
  process.on("beforeExit", () => {
    if (settled || process.listeners("beforeExit").some((listener) => STUCK_WAIT in listener)) return;
    setImmediate(() => {
      if (settled) return;
      process.stderr.write("tollgate: internal error: the command stopped with work pending that can never finish\n");
      process.exit(EXIT.failure);
    });
  });
  return {
    done: () => {
      settled = true;
    },
  };
}
