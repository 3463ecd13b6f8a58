// A run whose change is far larger than its heap: 500 generated files of ~100 KB (half again as
// large as the heap), one edit in each, through the real CLI in a child process under
// --max-old-space-size. Keeping whole before/after texts per pending action would need ~100 MB
// of strings, three times the heap; edits, spilled diffs and outputs assembled piece by piece
// need a few MB.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliUnderHeap } from "../helpers/heap.js";
import { ReportSchema, type Report } from "../../src/report/schema.js";
import { schemaText } from "../../src/schema/emit.js";
import { REPO_ROOT } from "../helpers/testdir.js";

const FILES = 500;
const LINE = "export const value_0000 = compute(alpha, beta, gamma) + 1; // filler filler filler\n";
const HEAP_MB = 32;
const MAX_RSS_MB = 300;
// ast_edit also holds napi's native parse trees of the files in flight in its threads, outside the
// heap, about twenty times the size of each file being parsed, and their peak varies from run to
// run with the threads' timing. The heap cap is what proves no text is kept; this bound catches
// native memory growing with the tree. The 300 MiB peak on real corpora is the bench's to measure (docs/benchmarks.md).
const MAX_AST_RSS_MB = 330;

function fileText(i: number): string {
  const n = Math.floor(100_000 / LINE.length);
  const lines = Array.from({ length: n }, (_, k) => LINE.replace("0000", String(k).padStart(4, "0")));
  lines[Math.floor(n / 2)] = `export const target = legacyCall(${i});\n`;
  return lines.join("");
}

// One generated tree for both runs: each is a dry run, so the tree stays as generated.
let dir: string;
let bytes = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "tollgate-bounded-memory-"));
  await mkdir(path.join(dir, "src"));
  for (let i = 0; i < FILES; i++) {
    const text = fileText(i);
    bytes += text.length;
    await writeFile(path.join(dir, "src", `f${i}.ts`), text);
  }
  const git = (...args: string[]) => execa("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir });
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", "init");
}, 120_000);
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe("bounded memory", () => {
  it(`${FILES} files of 100 KB, an edit in each, under a ${HEAP_MB} MB heap: report, patch and summary`, async () => {
    const steps = Array.from(
      { length: FILES },
      (_, i) => `  - tool: edit\n    with: { path: src/f${i}.ts, oldText: "legacyCall(${i})", newText: "modernCall(${i})" }`,
    );
    expect(bytes, "the tree is half again as large as the heap").toBeGreaterThan(1.45 * HEAP_MB * 1_000_000);
    await writeFile(path.join(dir, "edit.yaml"), `version: 1\nsteps:\n${steps.join("\n")}\n`);
    const r = await cliUnderHeap(
      HEAP_MB,
      ["run", "edit.yaml", "--dry-run", "--report", "out/report.json", "--patch", "out/changes.patch", "--summary", "out/summary.md"],
      dir,
    );
    expect(r.stderr.slice(-2000)).not.toMatch(/heap|Allocation failed|internal error/i);
    expect(r.exitCode).toBe(0);

    const peakMiB = r.peakMiB;
    console.log(`bounded-memory figures: ${FILES} files, ${(bytes / 1e6).toFixed(0)} MB, heap limit ${HEAP_MB} MB, peak RSS ${peakMiB.toFixed(0)} MiB`);
    expect(peakMiB).toBeLessThan(MAX_RSS_MB);

    // The report: one valid JSON document, against the shipped schema (the committed file is
    // the TypeBox definition checked here: the drift test in test/report/schema.test.ts).
    expect(await readFile(path.join(REPO_ROOT, "schema", "report.schema.json"), "utf8")).toBe(schemaText("report"));
    const report = JSON.parse(await readFile(path.join(dir, "out/report.json"), "utf8")) as Report;
    expect([...Value.Errors(ReportSchema, report)].map((e) => `${e.path}: ${e.message}`).slice(0, 5)).toEqual([]);
    expect(report.outcomes).toHaveLength(FILES);
    expect(report.summary.outcomes["dry-run"]).toBe(FILES);
    const sample = report.outcomes.find((o) => o.files[0]?.path === "src/f7.ts")!;
    expect(sample.diff).toContain("-export const target = legacyCall(7);\n+export const target = modernCall(7);\n");
    expect(sample.files[0]).toMatchObject({ change: "modified", additions: 1, deletions: 1 });

    // The patch holds every file's change and applies to the tree as it is.
    const patch = await readFile(path.join(dir, "out/changes.patch"), "utf8");
    expect(patch.match(/^diff --git /gm)).toHaveLength(FILES);
    const check = await execa("git", ["apply", "--check", "out/changes.patch"], { cwd: dir, reject: false });
    expect(check.stderr).toBe("");
    expect(check.exitCode).toBe(0);

    const summary = await readFile(path.join(dir, "out/summary.md"), "utf8");
    expect(summary).toContain("dry-run");
    expect(Buffer.byteLength(summary)).toBeLessThan(1024 * 1024);
    // Nothing of the run's spill is left behind.
    const { readdir } = await import("node:fs/promises");
    expect((await readdir(path.join(dir, ".tollgate")).catch(() => [])).filter((n) => n !== ".gitignore")).toEqual([]);
  }, 300_000);

  it(`one ast_edit step over ${FILES} files of 100 KB, a match in each, under a ${HEAP_MB} MB heap: the engine streams, nothing keeps a text`, async () => {
    await writeFile(
      path.join(dir, "ast-edit.yaml"),
      `version: 1\nsteps:\n  - tool: ast_edit\n    with: { lang: ts, path: src, ops: [{ pat: "legacyCall($A)", out: "modernCall($A)" }] }\n`,
    );
    const r = await cliUnderHeap(HEAP_MB, ["run", "ast-edit.yaml", "--dry-run", "--report", "out/ast-report.json", "--patch", "out/ast-changes.patch"], dir);
    expect(r.stderr.slice(-2000)).not.toMatch(/heap|Allocation failed|internal error/i);
    expect(r.exitCode).toBe(0);
    const peakMiB = r.peakMiB;
    console.log(
      `bounded-memory figures (ast_edit): ${FILES} files, ${(bytes / 1e6).toFixed(0)} MB, heap limit ${HEAP_MB} MB, peak RSS ${peakMiB.toFixed(0)} MiB`,
    );
    expect(peakMiB).toBeLessThan(MAX_AST_RSS_MB);
    const report = JSON.parse(await readFile(path.join(dir, "out/ast-report.json"), "utf8")) as Report;
    expect([...Value.Errors(ReportSchema, report)].map((e) => `${e.path}: ${e.message}`).slice(0, 5)).toEqual([]);
    expect(report.steps[0]!.details).toMatchObject({ totalReplacements: FILES, filesTouched: FILES });
    const patch = await readFile(path.join(dir, "out/ast-changes.patch"), "utf8");
    expect(patch.match(/^diff --git /gm)).toHaveLength(FILES);
    expect(patch).toContain("-export const target = legacyCall(7);\n+export const target = modernCall(7);\n");
    const check = await execa("git", ["apply", "--check", "out/ast-changes.patch"], { cwd: dir, reject: false });
    expect(check.stderr).toBe("");
    expect(check.exitCode).toBe(0);
  }, 300_000);
});
