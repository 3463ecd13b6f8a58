import v8 from "node:v8";
import vm from "node:vm";

/**
 * Syntax trees live in native memory that V8 does not see: a parse's JS handle is a few bytes,
 * its tree about twelve times the parsed source (TypeScript). With a
 * small JS heap the collector rarely runs, so the trees of thousands of parsed files pile up
 * (napi exposes no way to free one). After every BUDGET bytes of parsed source, per thread, a
 * full collection is forced: that bounds the dead trees of a thread to ~12 × BUDGET. The trees
 * it finds unreferenced are freed by their finalizers, which run when the event loop turns, so
 * a synchronous loop over files must yield after a collection (`turnDue`, see pool.ts).
 *
 * A collection costs in proportion to the live JS heap, which stays small where parsing happens
 * (ast_edit streams results instead of keeping them).
 */
const BUDGET = 1024 * 1024;

let collect: (() => void) | null | undefined;
let parsed = 0;
let collectedSinceTurn = false;
let sinceTurn = 0;

function collector(): (() => void) | null {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      collect = vm.runInNewContext("gc") as () => void;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** Counts source bytes just parsed; collects when enough have been parsed since the last time. */
export function parsedBytes(n: number): void {
  parsed += n;
  if (parsed < BUDGET) return;
  parsed = 0;
  collector()?.();
  collectedSinceTurn = true;
}

/**
 * Whether a synchronous loop over files should let the event loop turn now: after a collection
 * (its finalizers free the trees) and otherwise every few files.
 */
export function turnDue(): boolean {
  sinceTurn++;
  if (!collectedSinceTurn && sinceTurn < 8) return false;
  collectedSinceTurn = false;
  sinceTurn = 0;
  return true;
}
