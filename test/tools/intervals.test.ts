import { describe, expect, it } from "vitest";
import { Intervals } from "../../src/tools/ast/intervals.js";

/** A deterministic pseudo-random sequence (no flaky seeds). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe("Intervals (a parse's error ranges asked per match)", () => {
  it("answers overlaps and inside as a scan of every range does, on random nested, empty and equal ranges", () => {
    const next = rng(7);
    for (let round = 0; round < 200; round++) {
      const ranges: Array<[number, number]> = [];
      const n = Math.floor(next() * 30);
      for (let i = 0; i < n; i++) {
        const s = Math.floor(next() * 100);
        ranges.push([s, s + Math.floor(next() * (next() < 0.2 ? 1 : 40))]);
      }
      const index = new Intervals(ranges);
      expect(index.size).toBe(ranges.length);
      for (let q = 0; q < 40; q++) {
        const s = Math.floor(next() * 110);
        const e = s + Math.floor(next() * 50);
        expect(index.overlaps(s, e), `overlaps(${s}, ${e}) of ${JSON.stringify(ranges)}`).toBe(ranges.some(([rs, re]) => rs < e && s < re));
        const want = ranges.filter(([rs, re]) => rs >= s && re <= e).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect([...index.inside(s, e)]).toEqual(want);
      }
    }
  });

  it("an empty set overlaps and holds nothing", () => {
    const none = new Intervals([]);
    expect(none.overlaps(0, 10)).toBe(false);
    expect([...none.inside(0, 10)]).toEqual([]);
  });
});
