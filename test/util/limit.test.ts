import { describe, expect, it } from "vitest";
import { mapLimit } from "../../src/util/limit.js";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("mapLimit", () => {
  it("keeps input order and never has more than `limit` calls in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (x, i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await tick(x * 3);
      inFlight--;
      return `${i}:${x}`;
    });
    expect(out).toEqual(["0:5", "1:1", "2:4", "3:2", "4:3", "5:0", "6:6"]);
    expect(most).toBe(3);
  });

  it("after a failure starts nothing more, waits for the calls in flight, and throws the lowest index's error", async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const err = await mapLimit([0, 1, 2, 3, 4, 5, 6, 7], 3, async (x) => {
      started.push(x);
      // 2 fails at once; 1 fails later, while 0 is still running
      if (x === 2) throw new Error("two");
      await tick(x === 0 ? 30 : 10);
      finished.push(x);
      if (x === 1) throw new Error("one");
      return x;
    }).catch((e: Error) => e);
    expect((err as Error).message).toBe("one");
    expect(started).toEqual([0, 1, 2]);
    expect(finished.sort()).toEqual([0, 1]);
  });

  it("handles no items and a limit larger than the input", async () => {
    expect(await mapLimit([], 8, async () => 1)).toEqual([]);
    expect(await mapLimit([1, 2], 8, async (x) => x * 2)).toEqual([2, 4]);
  });
});
