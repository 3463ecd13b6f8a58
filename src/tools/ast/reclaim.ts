import v8 from "node:v8";
import vm from "node:vm";

/**
 * Syntax trees live in native memory that V8 does not see: a parse's JS handle is a few bytes,
 * its tree many times the source. With a small JS heap the collector rarely runs, so the trees
 * of thousands of parsed files pile up. Every EVERY bytes of parsed source a full collection is
 * forced; the trees it finds unreferenced are freed by their finalizers, which run when the
 * event loop turns (so a sync loop over files must yield now and then, see pool.ts).
 */
const EVERY = 8 * 1024 * 1024;

let collect: (() => void) | null | undefined;
let parsed = 0;

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
  if (parsed < EVERY) return;
  parsed = 0;
  collector()?.();
}
