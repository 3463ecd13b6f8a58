import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdits, applyEditsToAscii } from "../../src/workspace/change.js";

const edit = (start: number, end: number, text: string) => ({ start, end, text });

describe("applyEditsToAscii (the apply's byte path)", () => {
  it("gives the bytes the text path writes, for any ASCII text and sorted edits (replacement texts may be any Unicode)", () => {
    const asciiText = fc.string({ unit: fc.integer({ min: 1, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 200 });
    fc.assert(
      fc.property(asciiText, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ unit: "grapheme", maxLength: 8 })), { maxLength: 6 }), (text, raw) => {
        const cuts = raw.map(([a, b, t]) => [a % (text.length + 1), b % (text.length + 1), t] as const);
        const points = cuts.flatMap(([a, b]) => [a, b]).sort((x, y) => x - y);
        const edits = cuts.map(([, , t], i) => edit(points[2 * i]!, points[2 * i + 1]!, t));
        const bytes = applyEditsToAscii(Buffer.from(text), edits);
        expect(bytes).toBeDefined();
        expect(bytes!.equals(Buffer.from(applyEdits(text, edits)!, "utf8"))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("leaves non-ASCII, binary-looking files and edits that do not fit to the text path", () => {
    expect(applyEditsToAscii(Buffer.from("caf\u00e9 x"), [edit(0, 1, "C")])).toBeUndefined();
    expect(applyEditsToAscii(Buffer.from("\uFEFFbom"), [edit(1, 2, "B")])).toBeUndefined();
    expect(applyEditsToAscii(Buffer.from("a\0b"), [edit(0, 1, "A")])).toBeUndefined();
    expect(applyEditsToAscii(Buffer.from("abc"), [edit(2, 4, "x")])).toBeUndefined();
    expect(applyEditsToAscii(Buffer.from("abcd"), [edit(2, 3, "x"), edit(1, 2, "y")])).toBeUndefined();
    expect(applyEditsToAscii(Buffer.from("abc"), [])!.toString()).toBe("abc");
  });
});
