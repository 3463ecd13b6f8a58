#!/usr/bin/env node
// `npm run bench`: loads every case module in bench/cases/ (sorted by file name), runs
// each side by side with its peer, prints one table (ratio, CPU ratio, peak RSS, target, PASS/FAIL)
// and writes bench/.corpus/results.json. Env: BENCH_RUNS (default 5), BENCH_CASES=s1,s2 (case ids,
// case-insensitive; default all), BENCH_SKIP_10X=1, BENCH_BUILD=1 (rebuild first).
// A case module exports `id` ("S1"), `title` and `run()` returning
// `{ rows: row()[], results?: object, notes?: string[] }` (see bench/lib/harness.mjs).
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CORPUS_DIR, ROOT, RUNS, astGrepBinary, cpus, ensureBuilt, loadavg, log, printTable } from "./lib/harness.mjs";
import { spawnSync } from "node:child_process";

const casesDir = path.join(ROOT, "bench", "cases");
const wanted = process.env.BENCH_CASES ? new Set(process.env.BENCH_CASES.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean)) : undefined;
const modules = [];
for (const f of readdirSync(casesDir).filter((f) => f.endsWith(".mjs")).sort()) {
  const mod = await import(pathToFileURL(path.join(casesDir, f)).href);
  if (!mod.id || typeof mod.run !== "function") throw new Error(`bench/cases/${f}: a case exports id and run()`);
  if (!wanted || wanted.has(String(mod.id).toLowerCase())) modules.push({ file: f, mod });
}
if (wanted) {
  const known = new Set(modules.map((m) => String(m.mod.id).toLowerCase()));
  const unknown = [...wanted].filter((w) => !known.has(w));
  if (unknown.length) {
    console.error(`BENCH_CASES: no such case: ${unknown.join(", ")}`);
    process.exit(2);
  }
}

ensureBuilt();
const sgVersion = spawnSync(astGrepBinary(), ["--version"], { encoding: "utf8" }).stdout.trim();
log(`${sgVersion}; node ${process.version}; ${cpus()} CPUs; load ${loadavg()}; runs per measurement: ${RUNS} (alternating)`);
log(`cases: ${modules.map((m) => m.mod.id).join(", ")}\n`);

const results = { astGrep: sgVersion, node: process.version, cpus: cpus(), runs: RUNS, loadavgAtStart: loadavg(), cases: {} };
const rows = [];
const notes = [];
let failedCases = 0;
for (const { file, mod } of modules) {
  log(`== ${mod.id}: ${mod.title ?? file}`);
  try {
    const out = await mod.run();
    for (const r of out.rows ?? []) rows.push({ case: mod.id, ...r });
    for (const n of out.notes ?? []) notes.push(`${mod.id}: ${n}`);
    results.cases[mod.id] = { rows: out.rows, ...out.results };
  } catch (e) {
    failedCases++;
    log(`  ✗ ${mod.id} failed: ${e instanceof Error ? e.message : String(e)}`);
    rows.push({ case: mod.id, name: "(case failed)", target: "", pass: false });
    results.cases[mod.id] = { error: String(e) };
  }
  log("");
}
results.loadavgAtEnd = loadavg();

printTable(rows);
if (notes.length) {
  log("");
  for (const n of notes) log(n);
}
log(`\nload average at start ${results.loadavgAtStart}, at end ${results.loadavgAtEnd}`);
mkdirSync(CORPUS_DIR, { recursive: true });
writeFileSync(path.join(CORPUS_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
log(`written: ${path.relative(ROOT, path.join(CORPUS_DIR, "results.json"))}`);
if (failedCases) process.exitCode = 1;
