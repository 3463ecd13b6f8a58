import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { applyPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TextEdit } from "../../src/domain/types.js";
import { lineStats, textDiff as gitDiff } from "../../src/workspace/diff.js";
import { gitdir } from "../helpers/testdir.js";

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = "";
  let pos = 0;
  for (const e of edits) {
    out += text.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  return out + text.slice(pos);
}

/** Random text, and non-overlapping sorted edits on it. */
const textAndEdits = fc
  .record({
    lines: fc.array(fc.constantFrom("alpha", "beta", "", "  gamma(x)", "delta", "eps\r"), { minLength: 0, maxLength: 60 }),
    finalNewline: fc.boolean(),
    cuts: fc.array(fc.record({ at: fc.nat(), len: fc.nat({ max: 30 }), text: fc.constantFrom("", "X", "new\nline", "\n", "a\nb\nc\n", "beta") }), {
      maxLength: 8,
    }),
  })
  .map(({ lines, finalNewline, cuts }) => {
    const before = lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "");
    const edits: TextEdit[] = [];
    let pos = 0;
    for (const c of [...cuts].sort((a, b) => a.at - b.at)) {
      const start = Math.min(before.length, Math.max(pos, c.at % (before.length + 1)));
      const end = Math.min(before.length, start + c.len);
      edits.push({ start, end, text: c.text });
      pos = end;
    }
    return { before, edits };
  });

describe("diffs from known edit positions", () => {
  it("give a patch that turns before into after, with the same line counts as a whole-text diff", () => {
    fc.assert(
      fc.property(textAndEdits, ({ before, edits }) => {
        const after = applyEdits(before, edits);
        if (after === before) return;
        const hinted = gitDiff([{ path: "f.txt", before, after, edits }]);
        expect(applyPatch(before, hinted)).toBe(after);
        // Both are minimal diffs of the same change: same numbers of added and removed lines.
        expect(lineStats({ path: "f.txt", before, after, edits })).toEqual(lineStats({ path: "f.txt", before, after }));
      }),
      { numRuns: 400 },
    );
  });

  it("ignore a hint that does not reproduce the after text", () => {
    const before = "a\nb\nc\n";
    const after = "a\nB\nc\n";
    const wrong = gitDiff([{ path: "f.txt", before, after, edits: [{ start: 0, end: 1, text: "Z" }] }]);
    expect(wrong).toBe(gitDiff([{ path: "f.txt", before, after }]));
    expect(applyPatch(before, wrong)).toBe(after);
  });

  it("are accepted by git apply on a large file with scattered edits", async () => {
    const dir = await gitdir({});
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} Effect.map(a${i}, f)`);
    const before = lines.join("\n") + "\n";
    const edits: TextEdit[] = [];
    for (let i = 0; i < 5000; i += 97) {
      const start = before.indexOf(`line ${i} `) + `line ${i} `.length;
      edits.push({ start, end: start + "Effect.map".length, text: i % 2 ? "Effect.andThen" : "Effect.andThen(\n  x)" });
    }
    const after = applyEdits(before, edits);
    writeFileSync(path.join(dir, "big.ts"), before);
    writeFileSync(path.join(dir, "p.patch"), gitDiff([{ path: "big.ts", before, after, edits }]));
    execFileSync("git", ["apply", "p.patch"], { cwd: dir });
    expect(execFileSync("cat", ["big.ts"], { cwd: dir, encoding: "utf8" })).toBe(after);
  });
});
