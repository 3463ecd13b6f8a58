import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileProcessor, type EngineJob } from "../../src/tools/ast/engine.js";
import { langById, napiSync } from "../../src/tools/ast/langs.js";
import { buildPrefilter } from "../../src/tools/ast/pattern.js";
import { testdir } from "../helpers/testdir.js";

const PAT = "Effect.map($A, $B)";

/** A job for one pattern over TypeScript, with the prefilter the tools build for it. */
function job(): EngineJob {
  const lang = langById("TypeScript");
  return { ops: [{ pat: PAT, captures: {}, all: {} }], prefilter: { TypeScript: buildPrefilter([PAT], lang, false) }, maxFileBytes: 1 << 20 };
}

// Files read by the engine: ASCII ones (their latin1 view is their text) and UTF-8 ones with
// characters of two, three and four bytes before and inside a match.
const FILES: Record<string, string> = {
  "ascii.ts": "const a = Effect.map(x, f)\n// plain\n",
  "latin.ts": "const é = 'café'\nconst b = Effect.map(é, g)\n",
  "cjk.ts": "// 日本語\nconst c = Effect.map('漢字', (s) => s)\n",
  "astral.ts": "const d = '😀'\nexport const e = Effect.map(d, (x) => '🎉' + x)\n",
  "bom.ts": "\uFEFFconst f = Effect.map(y, h)\n",
};

describe("the engine's file text", () => {
  it("is the file's UTF-8 decoding, and every match's offsets spell it, for ASCII and non-ASCII files", async () => {
    const dir = await testdir(FILES);
    const processor = new FileProcessor(napiSync(), job());
    for (const name of Object.keys(FILES)) {
      const abs = path.join(dir, name);
      const r = await processor.processAsync({ rel: name, abs, lang: "TypeScript" });
      expect(r.status, name).toBe("matched");
      if (r.status !== "matched") continue;
      const want = (await readFile(abs)).toString("utf8");
      expect(r.text, name).toBe(want);
      expect(r.matches).toHaveLength(1);
      const m = r.matches[0]!;
      expect(r.text.slice(m.start, m.end), name).toMatch(/^Effect\.map\(.*\)$/);
    }
  });
});
