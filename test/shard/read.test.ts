import { writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copyLazily, readJsonStreamed, spillDiff } from "../../src/shard/read.js";
import { fileSpill } from "../../src/spill/store.js";
import { testdir } from "../helpers/testdir.js";

const STREAMED = new Set(["steps", "outcomes"]);

describe("reading a report one member (and one outcome) at a time", () => {
  it("gives what JSON.parse gives, key order included, whatever the reads' boundaries", async () => {
    const dir = await testdir();
    const file = path.join(dir, "doc.json");
    const value = fc.jsonValue({ maxDepth: 3 });
    const doc = fc.record({
      schemaVersion: fc.constant(1),
      run: fc.dictionary(fc.string(), value, { maxKeys: 4 }),
      steps: fc.array(value, { maxLength: 4 }),
      outcomes: fc.array(fc.record({ id: fc.string(), diff: fc.string({ unit: "grapheme" }), extra: value }), { maxLength: 5 }),
      tail: value,
    });
    await fc.assert(
      fc.asyncProperty(doc, fc.boolean(), fc.integer({ min: 1, max: 17 }), async (d, pretty, chunk) => {
        const text = pretty ? `${JSON.stringify(d, null, 2)}\n` : JSON.stringify(d);
        await writeFile(file, text);
        const got = await readJsonStreamed(file, STREAMED, (_k, v) => v, chunk);
        expect(JSON.stringify(got)).toBe(JSON.stringify(JSON.parse(text)));
      }),
      { numRuns: 80 },
    );
  });

  it("refuses what JSON.parse refuses, and parses a top level that is not an object whole", async () => {
    const dir = await testdir();
    const file = path.join(dir, "doc.json");
    for (const bad of ['{"a": 1', '{"a": 1}}', '{"outcomes": [1,]}', '{"outcomes": [,1]}', '{"a" 1}', '{"a": [}', "", '{"a": 1} x']) {
      await writeFile(file, bad);
      await expect(
        readJsonStreamed(file, STREAMED, (_k, v) => v, 3),
        bad,
      ).rejects.toThrow(SyntaxError);
      expect(() => JSON.parse(bad), bad).toThrow(SyntaxError);
    }
    await writeFile(file, ' [1, {"outcomes": []}] ');
    expect(await readJsonStreamed(file, STREAMED, (_k, v) => v)).toEqual([1, { outcomes: [] }]);
    await writeFile(file, '{"__proto__": {"x": 1}, "outcomes": []}');
    expect(JSON.stringify(await readJsonStreamed(file, STREAMED, (_k, v) => v))).toBe('{"__proto__":{"x":1},"outcomes":[]}');
    await writeFile(file, "{}");
    expect(await readJsonStreamed(file, STREAMED, (_k, v) => v)).toEqual({});
  });

  it("spills each outcome's diff and reads it back through a getter that copies keep", async () => {
    const dir = await testdir();
    const spill = fileSpill(() => [path.join(dir, "spill")]);
    try {
      const o = spillDiff({ id: "a#1", diff: "+x\n", error: null }, spill) as Record<string, unknown>;
      expect(Object.getOwnPropertyDescriptor(o, "diff")?.get).toBeTypeOf("function");
      expect(JSON.stringify(o)).toBe(JSON.stringify({ id: "a#1", diff: "+x\n", error: null }));
      const copy = copyLazily(o, { shard: { index: 1, count: 2 } });
      expect(Object.getOwnPropertyDescriptor(copy, "diff")?.get).toBeTypeOf("function");
      expect(JSON.stringify(copy)).toBe(JSON.stringify({ id: "a#1", diff: "+x\n", error: null, shard: { index: 1, count: 2 } }));
    } finally {
      spill.dispose();
    }
  });
});
