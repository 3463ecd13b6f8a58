/**
 * The streamed report writer (src/report/json.ts) is JSON.stringify(value, null, 2) byte for
 * byte, also when a string value is given in pieces.
 */
import { describe, expect, it } from "vitest";
import { STRING_PIECES, writeReportJson } from "../../src/report/json.js";
import type { Report } from "../../src/report/types.js";

async function written(value: unknown, chunks: string[] = []): Promise<string> {
  await writeReportJson(value as Report, (c) => void chunks.push(c));
  return chunks.join("");
}

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  "",
  "plain",
  'quote " and \\ backslash',
  "line\nbreak\r\n",
  "tab\tcontrol\u0001\u001f",
  "é ü 漢字",
  "emoji 😀 pair",
  "\u2028\u2029",
  "</script>",
];

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 3 ? 6 : 10));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return [0, -0, 1.5, -3, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53][Math.floor(r() * 9)];
    case 3:
    case 4:
      return STRINGS[Math.floor(r() * STRINGS.length)];
    case 5:
      return [undefined, () => 1, Symbol("s")][Math.floor(r() * 3)];
    case 6:
      return new Date(Math.floor(r() * 1e12));
    case 7:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 5); i > 0; i--) o[STRINGS[Math.floor(r() * STRINGS.length)]! + i] = randomValue(r, depth + 1);
      return o;
    }
  }
}

describe("writeReportJson", () => {
  it("writes JSON.stringify(value, null, 2) and a newline, for generated values", async () => {
    const r = rng(7);
    for (let n = 0; n < 500; n++) {
      const v = { steps: [randomValue(r, 0), randomValue(r, 0)], outcomes: randomValue(r, 0), summary: randomValue(r, 0) };
      expect(await written(v)).toBe(`${JSON.stringify(v, null, 2)}\n`);
    }
  });

  it("writes a value given in pieces as the pieces joined by newlines, reading them as it goes", async () => {
    const pieces = ['diff --git a/x b/x\n-"old"\n+😀 new\n', "", "tab\there\r\n\u0001", "é"];
    const read: number[] = [];
    const outcome: Record<string, unknown> = { id: "s#1", diff: "(not read)", after: [1, {}] };
    Object.defineProperty(outcome, STRING_PIECES, {
      value: {
        *diff() {
          for (const [i, p] of pieces.entries()) {
            read.push(i);
            yield p;
          }
        },
      },
    });
    const report = { outcomes: [outcome], exitCode: 0 };
    const want = `${JSON.stringify({ outcomes: [{ ...outcome, diff: pieces.join("\n") }], exitCode: 0 }, null, 2)}\n`;
    expect(await written(report)).toBe(want);
    expect(read).toEqual([0, 1, 2, 3]);
  });

  it("writes in bounded chunks", async () => {
    const big = { steps: Array.from({ length: 5000 }, (_, i) => ({ i, text: "x".repeat(100) })) };
    const chunks: string[] = [];
    expect(await written(big, chunks)).toBe(`${JSON.stringify(big, null, 2)}\n`);
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(70 * 1024);
  });

  it("never cuts a chunk between the halves of a surrogate pair", async () => {
    for (const pad of [0, 1, 2, 3]) {
      const big = { findings: Array.from({ length: 3000 }, (_, i) => ({ i, text: `${"x".repeat(pad + (i % 3))}${"😀".repeat(40)}` })) };
      const chunks: string[] = [];
      expect(await written(big, chunks)).toBe(`${JSON.stringify(big, null, 2)}\n`);
      for (const c of chunks) expect(Buffer.from(c, "utf8").toString("utf8")).toBe(c);
    }
  });
});
