/**
 * SIGINT/SIGTERM handling for runs (exit 130). The first signal does not kill the
 * process: it aborts `signal`, so the runner lets the action being applied finish (or roll back),
 * resolves nothing more, writes the report and exits 130. A second signal always ends the process
 * at once: the first one removes these handlers, so the second gets the system's
 * default action (termination), which works even while JavaScript is blocked (a custom tool stuck
 * in a synchronous read) and no handler of ours could run. If that happens mid-apply the journal
 * stays and `tollgate recover` restores the files.
 */
import { EXIT } from "../exit-codes.js";

interface InterruptHandle {
  readonly signal: AbortSignal;
  /** The signal received, if any. */
  readonly received: NodeJS.Signals | undefined;
  dispose(): void;
}

/** SIGHUP (the terminal closed) ends a run like SIGINT and SIGTERM: exit 130, report written, lock released. */
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export function handleInterrupts(
  options: { onInterrupt?: (sig: NodeJS.Signals) => void; onForce?: (sig: NodeJS.Signals) => void; exit?: (code: number) => void } = {},
): InterruptHandle {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const handler = (sig: NodeJS.Signals): void => {
    if (received === undefined) {
      received = sig;
      if (!options.exit) {
        for (const s of SIGNALS) process.off(s, handler);
        options.onForce?.(sig);
      }
      controller.abort(new Error(`Interrupted by ${sig}`));
      options.onInterrupt?.(sig);
      return;
    }
    options.onForce?.(sig);
    (options.exit ?? process.exit)(EXIT.interrupted);
  };
  for (const s of SIGNALS) process.on(s, handler);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      for (const s of SIGNALS) process.off(s, handler);
    },
  };
}
