#!/usr/bin/env node
// `npm run bench`: loads every case module in bench/cases/ (sorted by file name), runs each side
// by side with its peer, prints one table (ratios, floor and overhead where the case has one, CPU
// ratio, peak RSS, target, PASS/FAIL) and writes bench/.corpus/results.json.
//   npm run bench                      every case, 5 alternating rounds per measurement
//   npm run bench -- S1 S7 --rounds 9  a subset (case ids, case-insensitive) and the rounds
// Env: BENCH_RUNS (the rounds), BENCH_CASES=s1,s2 (a subset), BENCH_SKIP_10X=1, BENCH_BUILD=1
// (rebuild first). A case module exports `id` ("S1"), `title` and `run()` returning
// `{ rows: row()[], results?: object, notes?: string[] }` (see bench/lib/harness.mjs). S8 needs
// tollgate's `--cache`: without it (or without its case module) S8 is printed as not available.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { CORPUS_DIR, ROOT, RUNS, astGrepBinary, cpus, ensureBuilt, loadavg, log, printTable } from "./lib/harness.mjs";
import { spawnSync } from "node:child_process";

const casesDir = path.join(ROOT, "bench", "cases");
/** Case ids named on the command line (`S1 S7`, skipping `--rounds N`), else BENCH_CASES. */
function wantedCases(argv = process.argv.slice(2)) {
  const named = argv.filter((a, i) => !a.startsWith("--") && !(i > 0 && argv[i - 1] === "--rounds"));
  const list = named.length ? named : (process.env.BENCH_CASES ?? "").split(",");
  const ids = list.map((s) => s.trim().toLowerCase()).filter(Boolean);
  return ids.length ? new Set(ids) : undefined;
}
const wanted = wantedCases();
/** Whether a case is asked for: its id, or the id it varies (`S3` also asks for `S3r`). */
function isWanted(caseId) {
  const id = caseId.toLowerCase();
  return !wanted || wanted.has(id) || wanted.has(id.replace(/(\d)[a-z]+$/, "$1"));
}
/** Cases that need a tollgate flag: when `run --help` lacks it, the case is not available. */
const NEEDS_FLAG = { s8: "--cache" };
const modules = [];
for (const f of readdirSync(casesDir)
  .filter((f) => f.endsWith(".mjs"))
  .sort()) {
  const mod = await import(pathToFileURL(path.join(casesDir, f)).href);
  if (!mod.id || typeof mod.run !== "function") throw new Error(`bench/cases/${f}: a case exports id and run()`);
  if (isWanted(String(mod.id))) modules.push({ file: f, mod });
}
if (wanted) {
  const known = new Set(
    modules.flatMap((m) => [
      String(m.mod.id).toLowerCase(),
      String(m.mod.id)
        .toLowerCase()
        .replace(/(\d)[a-z]+$/, "$1"),
    ]),
  );
  const unknown = [...wanted].filter((w) => !known.has(w) && !NEEDS_FLAG[w]);
  if (unknown.length) {
    console.error(
      `bench: no such case: ${unknown.join(", ")} (cases: ${readdirSync(casesDir)
        .filter((f) => f.endsWith(".mjs"))
        .map((f) => f.split("-")[0].toUpperCase())
        .join(", ")})`,
    );
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
const runHelp = spawnSync(process.execPath, [path.join(ROOT, "bin", "tollgate.js"), "run", "--help"], { encoding: "utf8" }).stdout ?? "";
/** Why a case cannot run on this build, or undefined. */
function unavailable(caseId) {
  const flag = NEEDS_FLAG[caseId.toLowerCase()];
  if (flag && !runHelp.includes(flag)) return `tollgate run has no ${flag}`;
  return undefined;
}
for (const [caseId, flag] of Object.entries(NEEDS_FLAG)) {
  const present = modules.some((m) => String(m.mod.id).toLowerCase() === caseId);
  const asked = isWanted(caseId);
  if (asked && !present)
    modules.push({ file: `${caseId}-*`, mod: { id: caseId.toUpperCase(), title: `needs ${flag}`, missing: `no bench/cases/${caseId}-*.mjs` } });
}
for (const { file, mod } of modules) {
  log(`== ${mod.id}: ${mod.title ?? file}`);
  const why = mod.missing ?? unavailable(String(mod.id));
  if (why) {
    log(`  not available: ${why}`);
    rows.push({ case: mod.id, name: `not available: ${why}`, target: "", unavailable: true });
    results.cases[mod.id] = { unavailable: why };
    log("");
    continue;
  }
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
