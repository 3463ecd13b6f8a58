import type { ProcessHost } from "../process-host.js";

/**
 * Marks the `beforeExit` listener of a pending wait: the CLI's last resort against a loop that
 * runs empty (cli/main.ts) stands back while one is registered, since it fails its promise and
 * the program goes on.
 */
export const STUCK_WAIT: unique symbol = Symbol("tollgate.stuckWait");

/**
 * Waits for `promise`, bounded two ways (a run ends when its work ends):
 * - `timeoutMs`: rejects with `timedOut()` after that long;
 * - always: rejects with `stuck()` when the event loop runs empty while waiting
 *   (`host.onLoopEmpty`, Node's `beforeExit`). Nothing is then left that could ever settle the
 *   promise — no timer, no I/O — and Node would end the process with exit 13 and no report.
 * Listeners fire in order, so with several waits pending each is failed in turn; the caller's
 * continuation puts work back on the loop and the process goes on.
 */
export function bounded<T>(
  promise: Promise<T>,
  options: { host: Pick<ProcessHost, "onLoopEmpty">; timeoutMs?: number | undefined; timedOut: () => Error; stuck: () => Error },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      if (timer) clearTimeout(timer);
      offEmpty();
    };
    const onEmpty = Object.assign(
      () => {
        done();
        reject(options.stuck());
      },
      { [STUCK_WAIT]: true },
    );
    const offEmpty = options.host.onLoopEmpty(onEmpty);
    if (options.timeoutMs) {
      timer = setTimeout(() => {
        done();
        reject(options.timedOut());
      }, options.timeoutMs);
      // Unref'd: the timer itself must not keep the loop alive, or a stuck wait would only end
      // at its timeout instead of as soon as nothing can settle it.
      timer.unref();
    }
    promise.then(
      (v) => {
        done();
        resolve(v);
      },
      (err: unknown) => {
        done();
        reject(err);
      },
    );
  });
}
