import { describe, expect, it } from "vitest";
import { languageOf, ruleFindings } from "../../src/tools/scan/scan.js";
import { LineIndex } from "../../src/tools/ast/rewrite.js";
import type { ScanRule } from "../../src/tools/scan/types.js";

const rule: ScanRule = {
  id: "r",
  lang: "JavaScript",
  rule: { pattern: "foo($A)" },
  severity: "warning",
  message: "m",
  note: "n",
  origin: { file: "rules.yml", line: 1, col: 1 },
};

describe("ruleFindings", () => {
  const text = "foo(1);\n  foo(2); foo(3)\n";
  const starts = new LineIndex(text);

  it("orders matches by start, positions are 1-based, and a fix overlapping an earlier one is left out", () => {
    const { findings, edits } = ruleFindings(rule, "a.js", text, starts, [
      { start: 10, end: 16, message: "two", fix: { start: 10, end: 16, text: "bar(2)" } },
      { start: 0, end: 6, message: "one", fix: { start: 0, end: 12, text: "bar(1)" } },
      { start: 18, end: 24, message: "three", fix: { start: 18, end: 24, text: "foo(3)" } },
    ]);
    expect(findings.map((f) => [f.message, f.start, f.end, f.text])).toEqual([
      ["one", { line: 1, column: 1 }, { line: 1, column: 7 }, "foo(1)"],
      ["two", { line: 2, column: 3 }, { line: 2, column: 9 }, "foo(2)"],
      ["three", { line: 2, column: 11 }, { line: 2, column: 17 }, "foo(3)"],
    ]);
    // The second overlaps the first's fix; the third changes nothing.
    expect(edits).toEqual([{ start: 0, end: 12, text: "bar(1)" }]);
    expect(findings.map((f) => f.replacement !== undefined)).toEqual([true, false, false]);
    expect(findings[0]).toMatchObject({ rule: "r", severity: "warning", note: "n", path: "a.js" });
    expect(findings[0]!.replacement).toEqual({ start: { line: 1, column: 1 }, end: { line: 2, column: 5 }, text: "bar(1)" });
  });

  it("keeps the first line of a match, cut at 200 characters", () => {
    const long = `${"x".repeat(250)}\nrest`;
    const { findings } = ruleFindings(rule, "b.js", long, new LineIndex(long), [{ start: 0, end: long.length, message: "" }]);
    expect(findings[0]!.text).toBe(`${"x".repeat(200)}…`);
  });
});

describe("languageOf", () => {
  it("takes languageGlobs over the path or its base name before the extension", () => {
    const langOf = languageOf({
      file: "/p/sgconfig.yml",
      dir: "/p",
      ruleDirs: [],
      utilDirs: [],
      testConfigs: [],
      languageGlobs: { TypeScript: ["*.mjs"], Html: ["views/**"] },
    });
    expect(langOf("src/a.mjs")).toBe("TypeScript");
    expect(langOf("views/x/page.js")).toBe("Html");
    expect(langOf("src/b.js")).toBe("JavaScript");
    expect(langOf("README")).toBeUndefined();
  });
});
