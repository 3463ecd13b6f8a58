import { describe, expect, it } from "vitest";
import { goodMatches, matchText } from "../../src/tools/ast/engine.js";
import { loadNapi } from "../../src/tools/ast/langs.js";
import { applyEdits } from "../../src/workspace/change.js";
import {
  changeDetails,
  editOps,
  editsOf,
  limitCut,
  planFile,
  previewLines,
  previewListing,
  type EditOp,
  type FilePlan,
  type ListedFile,
} from "../../src/tools/edit/plan.js";

const MAP = { pat: "Effect.map($A, $B)", out: "Effect.andThen($A, $B)" };

/** The real engine's good matches of the ops in a TypeScript text. */
async function found(text: string, ops: readonly EditOp[]) {
  const napi = await loadNapi();
  const prepared = editOps({ ops });
  const result = matchText(napi, "TypeScript", text, {
    ops: prepared.pats.map((pat, i) => ({ pat, captures: prepared.captures[i]!, all: prepared.allCaptures[i]! })),
    sel: undefined,
  });
  return { prepared, good: goodMatches(result.matches) };
}

async function planned(text: string, ops: readonly EditOp[], keep?: number): Promise<FilePlan> {
  const { prepared, good } = await found(text, ops);
  const p = planFile({ rel: "src/a.ts", lang: "TypeScript", text, sha256: "x" }, good, keep, prepared);
  if (p.kind !== "planned") throw new Error(`expected a plan, got ${p.kind}`);
  return p.plan;
}

describe("editOps", () => {
  it("prepares captures per op: those `out` uses, and every one the pattern has", () => {
    const ops = editOps({ ops: [MAP, { pat: "f($$$ARGS, $X)", out: "g($$$ARGS)" }], sel: "  call_expression ", limit: 3.7 });
    expect(ops.pats).toEqual(["Effect.map($A, $B)", "f($$$ARGS, $X)"]);
    expect(ops.outs).toEqual(["Effect.andThen($A, $B)", "g($$$ARGS)"]);
    expect(ops.captures).toEqual([{ A: false, B: false }, { ARGS: true }]);
    expect(ops.allCaptures).toEqual([
      { A: false, B: false },
      { ARGS: true, X: false },
    ]);
    expect(ops.sel).toBe("call_expression");
    expect(ops.limit).toBe(3);
    expect(editOps({ ops: [MAP], sel: "  " }).sel).toBeUndefined();
  });

  it("refuses bad ops and limits with one message each", () => {
    expect(() => editOps({ ops: [] })).toThrow("`ops` must include at least one op entry");
    expect(() => editOps({ ops: [{ pat: "  ", out: "" }] })).toThrow("`ops[0].pat` must be a non-empty pattern");
    expect(() => editOps({ ops: [MAP, MAP] })).toThrow("Duplicate rewrite pattern: Effect.map($A, $B)");
    expect(() => editOps({ ops: [{ pat: "f($A)", out: "g($B)" }] })).toThrow("`ops[0].out` uses $B, which `ops[0].pat` does not capture");
    expect(() => editOps({ ops: [MAP], limit: 0 })).toThrow("limit must be a positive number");
    expect(() => editOps({ ops: [MAP], limit: Number.NaN })).toThrow("limit must be a positive number");
  });
});

describe("limitCut", () => {
  it("keeps everything without a limit", () => {
    expect(limitCut(undefined, 1_000, 5)).toEqual({ full: false, keep: undefined, reached: false });
  });
  it("keeps all of a file that fits, part of the file that meets the limit, nothing once it is used up", () => {
    expect(limitCut(10, 3, 7)).toEqual({ full: false, keep: undefined, reached: false });
    expect(limitCut(10, 3, 8)).toEqual({ full: false, keep: 7, reached: true });
    expect(limitCut(10, 10, 1)).toEqual({ full: true, keep: undefined, reached: true });
    expect(limitCut(10, 10, 0)).toEqual({ full: true, keep: undefined, reached: true });
  });
});

describe("planFile", () => {
  it("plans the rewrite with nested matches counted, in document order", async () => {
    const text = "const x = Effect.map(a, Effect.map(b, f))\n";
    const plan = await planned(text, [MAP]);
    expect(plan.after).toBe("const x = Effect.andThen(a, Effect.andThen(b, f))\n");
    expect(plan.matches.map((m) => [m.depth, m.matched])).toEqual([
      [0, "Effect.map(a, Effect.map(b, f))"],
      [1, "Effect.map(b, f)"],
    ]);
    expect(plan).toMatchObject({ rel: "src/a.ts", lang: "TypeScript", text, sha256: "x", keep: undefined });
  });

  it("cuts to `keep` matches, outer before inner", async () => {
    const plan = await planned("Effect.map(a, f)\nEffect.map(b, g)\nEffect.map(c, h)\n", [MAP], 2);
    expect(plan.after).toBe("Effect.andThen(a, f)\nEffect.andThen(b, g)\nEffect.map(c, h)\n");
    expect(plan.keep).toBe(2);
  });

  it("reports overlaps with both ranges and patterns", async () => {
    const ops = [
      { pat: "Effect.map($A, $B)", out: "X" },
      { pat: "Effect.map(a, $F)", out: "Y($F)" },
    ];
    const { prepared, good } = await found("\nEffect.map(a, f)\n", ops);
    const p = planFile({ rel: "src/a.ts", lang: "TypeScript", text: "\nEffect.map(a, f)\n", sha256: "x" }, good, undefined, prepared);
    expect(p).toEqual({
      kind: "overlaps",
      lines: ["- src/a.ts:2:1-2:17 (Effect.map(a, $F)) matches the same node as src/a.ts:2:1-2:17 (Effect.map($A, $B))"],
    });
  });

  it("says unchanged when the rewrite gives the same text", async () => {
    const { prepared, good } = await found("Effect.map(a, f)\n", [{ pat: "Effect.map($A, $B)", out: "Effect.map($A, $B)" }]);
    expect(good).toHaveLength(1);
    expect(planFile({ rel: "a.ts", lang: "TypeScript", text: "Effect.map(a, f)\n", sha256: "x" }, good, undefined, prepared)).toEqual({ kind: "unchanged" });
  });
});

describe("editsOf", () => {
  it("gives the top-level replacements as edits when they reproduce the planned text", async () => {
    const plan = await planned("a\nEffect.map(x, Effect.map(y, g))\nb\nEffect.map(z, h)\n", [MAP]);
    const edits = editsOf(plan);
    expect(edits.map((e) => e.text)).toEqual(["Effect.andThen(x, Effect.andThen(y, g))", "Effect.andThen(z, h)"]);
    expect(applyEdits(plan.text, edits)).toBe(plan.after);
  });

  it("falls back to the one edit between the texts when they do not", () => {
    const text = "abc def ghi";
    const matches = [{ op: 0, start: 4, end: 7, depth: 0, matched: "def", replacement: "DEF" }];
    // `after` differs from the replacement elsewhere too: the edits cannot stand for it.
    const edits = editsOf({ text, after: "abc DEF ghI", matches });
    expect(edits).toEqual([{ start: 4, end: 11, text: "DEF ghI" }]);
    expect(editsOf({ text, after: "abc DEF ghi", matches })).toEqual([{ start: 4, end: 7, text: "DEF" }]);
    // a length that matches but a different tail, and a different head
    expect(applyEdits(text, editsOf({ text, after: "abc DEF gh!", matches }))).toBe("abc DEF gh!");
    expect(applyEdits(text, editsOf({ text, after: "abX DEF ghi", matches }))).toBe("abX DEF ghi");
  });
});

describe("changeDetails and previewLines", () => {
  it("lists - and + lines with padded line numbers, and change details with positions", async () => {
    const lines = Array.from({ length: 9 }, () => "x").join("\n");
    const plan = await planned(`Effect.map(a, f)\n${lines}\n  Effect.map(b,\n g)\n`, [MAP]);
    const changes = changeDetails(plan);
    const p = { lines: previewLines(changes), changes };
    // the matched text's first line only; line numbers padded to the widest
    expect(p.lines).toEqual(["- 1:1 Effect.map(a, f)", "+ 1:1 Effect.andThen(a, f)", "-11:3 Effect.map(b,", "+11:3 Effect.andThen(b, g)"]);
    expect(p.changes[1]).toEqual({
      path: "src/a.ts",
      line: 11,
      col: 3,
      endLine: 12,
      endCol: 4,
      matched: "Effect.map(b,\n g)",
      replacement: "Effect.andThen(b, g)",
      nested: false,
    });
  });
});

describe("previewListing", () => {
  const file = (display: string, count: number): ListedFile => ({
    display,
    count,
    lines: [`-${display}`, `+${display}`],
    changes: [{ path: display, line: 1, col: 1, endLine: 1, endCol: 2, matched: "a", replacement: "b", nested: false }],
  });

  it("groups by directory under headings, change details in the listing's order", () => {
    const listing = previewListing([file("a.ts", 1), file("lib/b.ts", 2), file("c.ts", 1), file("lib/d.ts", 3)], false);
    expect(listing.lines).toEqual([
      "# a.ts (1 replacement)",
      "-a.ts",
      "+a.ts",
      "",
      "# c.ts (1 replacement)",
      "-c.ts",
      "+c.ts",
      "",
      "# lib",
      "## └─ b.ts (2 replacements)",
      "-lib/b.ts",
      "+lib/b.ts",
      "## └─ d.ts (3 replacements)",
      "-lib/d.ts",
      "+lib/d.ts",
    ]);
    expect(listing.changes.map((c) => c.path)).toEqual(["a.ts", "c.ts", "lib/b.ts", "lib/d.ts"]);
  });

  it("lists a one-file scope's lines alone", () => {
    expect(previewListing([file("a.ts", 1)], true).lines).toEqual(["-a.ts", "+a.ts"]);
  });
});
