// colorDiff prints the first lines of a diff and counts the rest without splitting it: checked
// against the whole-text definition (sanitise everything, drop one final newline, split, cap).
import { describe, expect, it } from "vitest";
import { colorDiff, colors, safeText } from "../../src/term.js";

const c = colors(true);

function wholeText(diff: string, maxLines = Infinity): string {
  const lines = safeText(diff).replace(/\n$/, "").split("\n");
  const paint = (line: string) =>
    line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff --git")
      ? c.bold(line)
      : line.startsWith("@@")
        ? c.cyan(line)
        : line.startsWith("+")
          ? c.green(line)
          : line.startsWith("-")
            ? c.red(line)
            : line;
  const shown = lines.slice(0, maxLines).map(paint);
  if (lines.length > maxLines) shown.push(c.dim(`… ${lines.length - maxLines} more lines (see --patch or --report)`));
  return `${shown.join("\n")}\n`;
}

describe("colorDiff", () => {
  it("equals the whole-text definition for every cap, with CR, control characters and empty lines", () => {
    const pieces = ["diff --git a/x b/x", "--- a/x", "+++ b/x", "@@ -1 +1 @@", "-old", "+new", " ctx", "", "\r", "\x1b[31mred", "\u2028"];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const diffs = ["", "\n", "a", "a\n", "a\r\n", "1\r\n2\r\n3\r\n"];
    for (let i = 0; i < 200; i++) {
      const n = rand(12);
      diffs.push(Array.from({ length: n }, () => pieces[rand(pieces.length)]).join(rand(3) === 0 ? "\r\n" : "\n") + (rand(2) ? "\n" : ""));
    }
    for (const d of diffs) for (const cap of [0, 1, 2, 3, 5, 8, Infinity]) expect(colorDiff(d, c, cap)).toBe(wholeText(d, cap));
  });

  it("counts what it does not show", () => {
    const diff = Array.from({ length: 1000 }, (_, i) => `+line ${i}`).join("\n") + "\n";
    const out = colorDiff(diff, colors(false), 400);
    expect(out.split("\n")).toHaveLength(402);
    expect(out).toContain("… 600 more lines (see --patch or --report)\n");
  });
});
