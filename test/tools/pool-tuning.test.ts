import { describe, expect, it } from "vitest";
import { threadCount } from "../../src/tools/ast/pool.js";
import { Reclaimer } from "../../src/tools/ast/reclaim.js";

const files = (n: number, size: number) => {
  const list = Array.from({ length: n }, (_, i) => ({ rel: `f${i}.ts`, abs: `/x/f${i}.ts`, lang: "TypeScript" }));
  return { list, sizes: new Map(list.map((f) => [f.rel, size])) };
};

describe("threadCount: parses under way, from the world or the user's CPUs", () => {
  it("takes the world's count as given (0: all on the main thread), whatever the CPUs", () => {
    const { list, sizes } = files(100, 100_000);
    expect(threadCount(list, { threads: 0, sizes }, 16)).toBe(0);
    expect(threadCount(list, { threads: 3, sizes }, 1)).toBe(3);
  });
  it("keeps a small run on the main thread", () => {
    const few = files(10, 500_000);
    expect(threadCount(few.list, { sizes: few.sizes }, 8)).toBe(0);
    const tiny = files(100, 1_000);
    expect(threadCount(tiny.list, { sizes: tiny.sizes }, 8)).toBe(0);
    const big = files(100, 100_000);
    expect(threadCount(big.list, { sizes: big.sizes }, 1)).toBe(0);
  });
  it("follows the CPUs up to libuv's four pool threads", () => {
    const { list, sizes } = files(100, 100_000);
    expect(threadCount(list, { sizes }, 2)).toBe(2);
    expect(threadCount(list, { sizes }, 3)).toBe(3);
    expect(threadCount(list, { sizes }, 64)).toBe(4);
  });
});

describe("Reclaimer: a full collection after every budget of parsed source", () => {
  it("collects once per budget and asks the loop to turn right after", () => {
    let collections = 0;
    const r = new Reclaimer(() => collections++, 1000);
    r.parsedBytes(600);
    expect(collections).toBe(0);
    expect(r.turnDue()).toBe(false);
    r.parsedBytes(600);
    expect(collections).toBe(1);
    expect(r.turnDue()).toBe(true);
    expect(r.turnDue()).toBe(false);
  });
  it("without a collector never collects, and turns every eight files", () => {
    const r = new Reclaimer(undefined, 10);
    r.parsedBytes(1_000_000);
    const turns = Array.from({ length: 16 }, () => r.turnDue());
    expect(turns.filter(Boolean)).toHaveLength(2);
    expect(turns[7]).toBe(true);
  });
});
