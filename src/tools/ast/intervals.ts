/**
 * A set of [start, end) ranges (a parse's ERROR nodes) asked, for each of many matches, which of
 * them overlap or lie inside it: sorted once, each question a binary search, so a file with
 * tens of thousands of error nodes and of matches costs n·log n, not n² (a hostile file must not
 * hang a run).
 */
export class Intervals {
  readonly #starts: number[];
  readonly #ends: number[];
  /** maxEnd[k]: the largest end among the first k + 1 ranges (by start). */
  readonly #maxEnd: number[];

  constructor(ranges: ReadonlyArray<readonly [number, number]>) {
    const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.#starts = sorted.map((r) => r[0]);
    this.#ends = sorted.map((r) => r[1]);
    this.#maxEnd = [];
    let max = -Infinity;
    for (const e of this.#ends) this.#maxEnd.push((max = Math.max(max, e)));
  }

  get size(): number {
    return this.#starts.length;
  }

  /** Index of the first range whose start is ≥ `value`. */
  #lowerBound(value: number): number {
    let lo = 0;
    let hi = this.#starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#starts[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Whether a range overlaps [start, end) (shares at least one position with it). */
  overlaps(start: number, end: number): boolean {
    const k = this.#lowerBound(end) - 1; // the ranges starting before `end`
    return k >= 0 && this.#maxEnd[k]! > start;
  }

  /** The ranges inside [start, end) (both ends within it), in order of start. */
  *inside(start: number, end: number): Generator<[number, number]> {
    for (let k = this.#lowerBound(start); k < this.#starts.length && this.#starts[k]! <= end; k++) {
      if (this.#ends[k]! <= end) yield [this.#starts[k]!, this.#ends[k]!];
    }
  }
}
