import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TextEdit } from "../../src/domain/types.js";
import { applyEdits } from "../../src/workspace/change.js";
import { blockHunks, fileDiff } from "../../src/workspace/diff.js";
import { oracleFileDiff } from "../helpers/diff-oracle.js";

/** Real code: this repository's own TypeScript sources, the larger ones first. */
const SOURCES = (() => {
  const root = path.resolve(import.meta.dirname, "../../src");
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts"))
    .map((f) => readFileSync(path.join(root, f), "utf8"))
    .sort((x, y) => y.length - x.length)
    .slice(0, 60);
})();

/**
 * Replacement texts that make ties likely: lines of the same file (a duplicate of a kept line),
 * the replaced text itself, line breaks, and plain rewrites.
 */
function replacement(text: string, start: number, end: number, kind: number, pick: number): string {
  const lines = text.split("\n");
  const line = lines[pick % lines.length] ?? "";
  switch (kind % 9) {
    case 0:
      return "";
    case 1:
      return text.slice(start, end);
    case 2:
      return `${line}\n`;
    case 3:
      return `\n${line}`;
    case 4:
      return "\n";
    case 5:
      return `Effect.andThen(\n  ${line.trim()},\n  x\n)`;
    case 6:
      return `${text.slice(start, end)}\n}\n`;
    case 7:
      return "isArray";
    default:
      return `${text.slice(start, end)}X`;
  }
}

const editedSource = fc
  .record({
    file: fc.nat(),
    finalNewline: fc.constantFrom("keep", "drop", "crlf"),
    cuts: fc.array(fc.record({ at: fc.nat(), len: fc.oneof(fc.nat({ max: 12 }), fc.nat({ max: 400 })), kind: fc.nat(), pick: fc.nat() }), {
      minLength: 1,
      maxLength: 40,
    }),
  })
  .map(({ file, finalNewline, cuts }) => {
    let before = SOURCES[file % SOURCES.length]!;
    if (finalNewline === "drop") before = before.replace(/\n+$/, "");
    if (finalNewline === "crlf") before = before.replace(/\n/g, "\r\n");
    const edits: TextEdit[] = [];
    let pos = 0;
    for (const c of [...cuts].sort((x, y) => x.at - y.at)) {
      const start = Math.min(before.length, Math.max(pos, c.at % (before.length + 1)));
      const end = Math.min(before.length, start + c.len);
      edits.push({ start, end, text: replacement(before, start, end, c.kind, c.pick) });
      pos = end;
    }
    return { before, edits };
  });

describe("diffs built from the edits", () => {
  it("are byte for byte the diffs jsdiff gave over the edits' windows, for random edits of real code", () => {
    fc.assert(
      fc.property(editedSource, ({ before, edits }) => {
        const after = applyEdits(before, edits)!;
        const change = { path: "src/x.ts", before, after, edits };
        expect(fileDiff(change)).toEqual(oracleFileDiff(change));
      }),
      { numRuns: 1500 },
    );
  });

  it("are the whole-text diff where edits are a few lines apart or far apart, at the ends of a file too", () => {
    const before = SOURCES[0]!;
    const lines = before.split("\n").length;
    for (const gap of [1, 5, 6, 7, 8, 13, 200]) {
      const edits: TextEdit[] = [];
      let at = 0;
      for (let k = 0; k < lines; k += gap) {
        at = before.indexOf("\n", at) + 1;
        for (let s = 1; s < gap && at > 0; s++) at = before.indexOf("\n", at) + 1;
        if (at <= 0) break;
        edits.push({ start: at, end: at, text: `/* ${k} */` });
      }
      edits.unshift({ start: 0, end: 0, text: "// head\n" });
      edits.push({ start: before.length, end: before.length, text: "// tail\n" });
      const sorted = edits.filter((e, i) => i === 0 || e.start >= edits[i - 1]!.end);
      const after = applyEdits(before, sorted)!;
      expect(fileDiff({ path: "a.ts", before, after, edits: sorted })).toEqual(oracleFileDiff({ path: "a.ts", before, after }));
    }
  });
});

describe("blockHunks", () => {
  it("builds the hunk of a change whose diff is the only shortest one", () => {
    const hunks = blockHunks("a\nb\nc\nd\ne\n", "a\nb\nX\nY\nd\ne\n", [{ o0: 2, o1: 3, n0: 2, n1: 4 }]);
    expect(hunks).toEqual([{ oldStart: 1, oldLines: 5, newStart: 1, newLines: 6, lines: [" a", " b", "-c", "+X", "+Y", " d", " e"] }]);
  });

  it("leaves a change with another diff as short (a changed line equal to a kept one) to jsdiff", () => {
    expect(blockHunks("a\nb\nc\n", "a\nb\nb\nc\n", [{ o0: 1, o1: 2, n0: 1, n1: 3 }])).toBeUndefined();
    expect(blockHunks("a\nb\nc\nd\n", "a\nc\nb\nd\n", [{ o0: 1, o1: 3, n0: 1, n1: 3 }])).toBeUndefined();
  });
});
