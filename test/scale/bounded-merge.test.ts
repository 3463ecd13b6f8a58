// merge-reports over shard reports far larger than its heap: two shards of 150 outcomes, each
// with a ~200 KB diff (about 64 MB of reports: each shard as large as the heap, both together
// twice it), merged by the real CLI in a child process under --max-old-space-size. Parsing a
// report whole needs the report as one string in the heap, and its parsed outcomes beside it;
// reading it one outcome at a time with the diffs spilled needs a few MB.
import { createWriteStream } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { once } from "node:events";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { cliUnderHeap } from "../helpers/heap.js";
import { ReportSchema, type Report } from "../../src/report/schema.js";
import { sha256 } from "../../src/util/hash.js";
import { testdir, tollgate } from "../helpers/testdir.js";

const PER_SHARD = 150;
const HEAP_MB = 32;
const MAX_RSS_MB = 300;
const LINE = "export const value_0000 = compute(alpha, beta, gamma) + 1; // filler filler filler\n";

function lines(i: number): string[] {
  const n = Math.floor(100_000 / LINE.length);
  return Array.from({ length: n }, (_, k) => LINE.replace("0000", `${i}_${k}`));
}

/** File i before and after (every line changed), and the git-style diff between them (one hunk). */
function change(i: number, rel: string) {
  const old = lines(i);
  const now = old.map((l) => l.replace("compute(", "evaluate("));
  const diff = `diff --git a/${rel} b/${rel}\n--- a/${rel}\n+++ b/${rel}\n@@ -1,${old.length} +1,${now.length} @@\n${old.map((l) => `-${l}`).join("")}${now.map((l) => `+${l}`).join("")}`;
  return { before: old.join(""), after: now.join(""), diff, count: old.length };
}

/** A shard report: the real run's own report, its outcomes replaced by `PER_SHARD` large ones, written piece by piece. */
async function bigShard(dir: string, template: Report, shard: number): Promise<{ file: string; bytes: number }> {
  const file = path.join(dir, `s${shard}.json`);
  const out = createWriteStream(file);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, "drain");
  };
  const sample = template.outcomes[0]!;
  const { outcomes: _outcomes, ...rest } = template;
  await write(`${JSON.stringify(rest, null, 2).slice(0, -2)},\n  "outcomes": [\n`);
  for (let k = 0; k < PER_SHARD; k++) {
    const i = shard * PER_SHARD + k;
    const rel = `src/f${i}.ts`;
    const { before, after, diff, count } = change(i, rel);
    await writeFile(path.join(dir, rel), before);
    const outcome = {
      ...sample,
      id: `big#${k + 1}`,
      label: `Edit: ${rel}`,
      files: [{ path: rel, change: "modified", additions: count, deletions: count, beforeSha256: sha256(before), afterSha256: sha256(after) }],
      diff,
    };
    await write(`${k > 0 ? ",\n" : ""}    ${JSON.stringify(outcome)}`);
  }
  await write("\n  ]\n}\n");
  out.end();
  await once(out, "finish");
  return { file, bytes: (await stat(file)).size };
}

describe("bounded memory: merge-reports", () => {
  it(`two shard reports of ${PER_SHARD} outcomes with ~200 KB diffs each, under a ${HEAP_MB} MB heap: report, patch and summary`, async () => {
    const dir = await testdir({
      "recipe.yaml": "version: 1\nsteps:\n  - id: big\n    tool: edit\n    with: { path: src/seed.ts, oldText: compute, newText: evaluate }\n",
      "src/seed.ts": "compute(1)\n",
    });
    await mkdir(path.join(dir, "out"));
    const templates: Report[] = [];
    for (const i of [1, 2]) {
      const r = await tollgate(["run", "recipe.yaml", "--dry-run", "--shard", `${i}/2`, "--report", `t${i}.json`], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      templates.push(JSON.parse(await readFile(path.join(dir, `t${i}.json`), "utf8")) as Report);
    }
    // the edit step stages in whichever shard owns src/seed.ts: that shard's outcome is the sample
    const sample = templates.find((t) => t.outcomes.length > 0)!;
    const shards = [];
    for (const [i, t] of templates.entries()) shards.push(await bigShard(dir, { ...t, outcomes: sample.outcomes }, i + 1));
    const total = shards.reduce((n, s) => n + s.bytes, 0);
    expect(total).toBeGreaterThan(2 * PER_SHARD * 190_000);
    expect(total, "the reports are about twice the heap").toBeGreaterThan(1.8 * HEAP_MB * 1_000_000);

    const r = await cliUnderHeap(
      HEAP_MB,
      ["merge-reports", "s1.json", "s2.json", "--report", "out/merged.json", "--patch", "out/merged.patch", "--summary", "out/summary.md"],
      dir,
    );
    expect(r.stderr.slice(-2000)).not.toMatch(/heap|Allocation failed|internal error/i);
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    expect(r.stderr).toContain(`tollgate: merged 2 reports, ${2 * PER_SHARD} actions: ${2 * PER_SHARD} dry-run (exit 0)`);
    const peakMiB = r.peakMiB;
    console.log(
      `bounded-merge figures: ${2 * PER_SHARD} outcomes, ${(total / 1e6).toFixed(0)} MB of reports, heap limit ${HEAP_MB} MB, peak RSS ${peakMiB.toFixed(0)} MiB`,
    );
    expect(peakMiB).toBeLessThan(MAX_RSS_MB);

    const merged = JSON.parse(await readFile(path.join(dir, "out/merged.json"), "utf8")) as Report;
    expect([...Value.Errors(ReportSchema, merged)].map((e) => `${e.path}: ${e.message}`).slice(0, 5)).toEqual([]);
    expect(merged.outcomes).toHaveLength(2 * PER_SHARD);
    expect(merged.outcomes.map((o) => o.shard?.index)).toEqual([...Array(PER_SHARD).fill(1), ...Array(PER_SHARD).fill(2)]);
    const f7 = merged.outcomes.find((o) => o.files[0]?.path === `src/f${2 * PER_SHARD + 7}.ts`)!;
    expect(f7.diff).toBe(change(2 * PER_SHARD + 7, f7.files[0]!.path).diff);

    const patch = await readFile(path.join(dir, "out/merged.patch"), "utf8");
    expect(patch.match(/^diff --git /gm)).toHaveLength(2 * PER_SHARD);
    const check = await execa("git", ["apply", "--check", "out/merged.patch"], { cwd: dir, reject: false });
    expect(check.stderr).toBe("");
    expect(check.exitCode).toBe(0);
    expect(Buffer.byteLength(await readFile(path.join(dir, "out/summary.md"), "utf8"))).toBeLessThan(1024 * 1024);
  }, 300_000);
});
