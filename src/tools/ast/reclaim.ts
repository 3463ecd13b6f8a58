/**
 * Syntax trees live in native memory that V8 does not see: a parse's JS handle is a few bytes,
 * its tree about twelve times the parsed source (TypeScript). With a small JS heap the collector
 * rarely runs, so the trees of thousands of parsed files pile up (napi exposes no way to free
 * one). After every `budget` bytes of parsed source a full collection is asked for: that bounds
 * the dead trees to ~12 × budget. The trees it finds unreferenced are freed by their finalizers,
 * which run when the event loop turns, so a synchronous loop over files must yield after a
 * collection (`turnDue`, see pool.ts).
 *
 * A collection costs in proportion to the live JS heap, which stays small where parsing happens
 * (ast_edit streams results instead of keeping them). One Reclaimer per run; the collection
 * itself (`gc`) is given by the world (the CLI makes it; without it nothing is forced).
 */
const BUDGET = 1024 * 1024;
/** Files a synchronous loop handles between turns of the event loop when nothing was collected. */
const FILES_PER_TURN = 8;

export class Reclaimer {
  #parsed = 0;
  #collectedSinceTurn = false;
  #sinceTurn = 0;

  constructor(
    readonly gc: (() => void) | undefined,
    readonly budget = BUDGET,
  ) {}

  /** Counts source bytes just parsed; collects when enough have been parsed since the last time. */
  parsedBytes(n: number): void {
    this.#parsed += n;
    if (this.#parsed < this.budget) return;
    this.#parsed = 0;
    if (!this.gc) return;
    this.gc();
    this.#collectedSinceTurn = true;
  }

  /**
   * Whether a synchronous loop over files should let the event loop turn now: after a
   * collection (its finalizers free the trees) and otherwise every few files.
   */
  turnDue(): boolean {
    this.#sinceTurn++;
    if (!this.#collectedSinceTurn && this.#sinceTurn < FILES_PER_TURN) return false;
    this.#collectedSinceTurn = false;
    this.#sinceTurn = 0;
    return true;
  }
}
