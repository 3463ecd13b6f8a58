#!/usr/bin/env node
// `npm run bench` (SPEC 9): tollgate vs the ast-grep CLI on the src/ tree of effect@4.1.0,
// side by side, alternating, in one run. Prints medians, ratios and peak RSS; writes
// bench/.corpus/results.json. Env: BENCH_RUNS (default 5), BENCH_SKIP_10X=1.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CORPUS_DIR = path.join(ROOT, "bench", ".corpus");
const EFFECT = "effect@4.1.0";
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const PATTERN = "Effect.map($A, $B)";
const REWRITE = "Effect.andThen($A, $B)";
const TIME_BIN = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const log = (...a) => console.log(...a);

// ---------------------------------------------------------------- setup
function corpus() {
  const src = path.join(CORPUS_DIR, "effect-src");
  if (existsSync(path.join(src, "Effect.ts"))) return src;
  mkdirSync(CORPUS_DIR, { recursive: true });
  log(`fetching ${EFFECT} with npm pack …`);
  const out = execFileSync("npm", ["pack", EFFECT, "--pack-destination", CORPUS_DIR, "--json"], { encoding: "utf8" });
  const tgz = path.join(CORPUS_DIR, JSON.parse(out)[0].filename);
  const tmp = mkdtempSync(path.join(CORPUS_DIR, "x-"));
  execFileSync("tar", ["xzf", tgz, "-C", tmp]);
  cpSync(path.join(tmp, "package", "src"), src, { recursive: true });
  rmSync(tmp, { recursive: true, force: true });
  return src;
}

function astGrepBinary() {
  const require = createRequire(path.join(ROOT, "package.json"));
  const exe = process.platform === "win32" ? "ast-grep.exe" : "ast-grep";
  const { platform, arch } = process;
  const candidates = [];
  if (platform === "linux") candidates.push(`@ast-grep/cli-linux-${arch}-gnu`);
  if (platform === "darwin") candidates.push(`@ast-grep/cli-darwin-${arch}`);
  if (platform === "win32") candidates.push(`@ast-grep/cli-win32-${arch}-msvc`);
  candidates.push("@ast-grep/cli");
  for (const pkg of candidates) {
    try {
      const file = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), exe);
      if (existsSync(file) && spawnSync(file, ["--version"]).status === 0) return file;
    } catch {}
  }
  throw new Error("ast-grep CLI not found: npm i -D -E @ast-grep/cli@0.51.1 (its binary comes from the optional platform package)");
}

function ensureBuilt() {
  if (!existsSync(path.join(ROOT, "dist", "cli", "main.js")) || process.env.BENCH_BUILD === "1") {
    log("building tollgate (npm run build) …");
    execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  }
}

const RECIPE = `version: 1
name: bench-effect-map
steps:
  - tool: ast_edit
    with:
      ops: [{ pat: "${PATTERN}", out: "${REWRITE}" }]
      lang: ts
      path: src
`;

function makeWorkspace(src, copies = 1) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-"));
  if (copies === 1) cpSync(src, path.join(dir, "src"), { recursive: true });
  else for (let i = 0; i < copies; i++) cpSync(src, path.join(dir, "src", `copy${i}`), { recursive: true });
  writeFileSync(path.join(dir, "recipe.yaml"), RECIPE);
  writeFileSync(path.join(dir, "auto.yaml"), "version: 1\ndefault: auto-apply\n");
  return dir;
}

// ---------------------------------------------------------------- measuring
/** Runs a command; returns wall ms, peak RSS (KiB, via /usr/bin/time) and output. */
function measure(cmd, args, cwd, env = {}) {
  const full = TIME_BIN ? [TIME_BIN, ["-f", "__TG_RSS__ %M %U %S", cmd, ...args]] : [cmd, args];
  const t0 = performance.now();
  const r = spawnSync(full[0], full[1], { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, env: { ...process.env, CI: "true", NO_COLOR: "1", ...env } });
  const ms = performance.now() - t0;
  const m = /__TG_RSS__ (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? "");
  return {
    ms,
    rssKiB: m ? Number(m[1]) : undefined,
    cpuMs: m ? (Number(m[2]) + Number(m[3])) * 1000 : undefined,
    status: r.status,
    stdout: r.stdout,
    stderr: (r.stderr ?? "").replace(/__TG_RSS__ [\d. ]+\n?/, ""),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const max = (xs) => Math.max(...xs.filter((x) => x !== undefined));
const fmtMs = (ms) => `${(ms / 1000).toFixed(3)} s`;
const fmtMiB = (kib) => (kib === undefined ? "n/a" : `${(kib / 1024).toFixed(0)} MiB`);

function countFiles(dir) {
  let n = 0;
  let bytes = 0;
  for (const f of readdirSync(dir, { recursive: true })) {
    const p = path.join(dir, f);
    const st = statSync(p);
    if (st.isFile()) {
      n++;
      bytes += st.size;
    }
  }
  return { n, bytes };
}

function countOccurrences(dir, needle) {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true })) {
    const p = path.join(dir, f);
    if (!statSync(p).isFile()) continue;
    const t = readFileSync(p, "utf8");
    for (let i = t.indexOf(needle); i !== -1; i = t.indexOf(needle, i + 1)) n++;
  }
  return n;
}

// ---------------------------------------------------------------- main
const src = corpus();
ensureBuilt();
const sg = astGrepBinary();
const tollgate = path.join(ROOT, "bin", "tollgate.js");
const node = process.execPath;
const sgVersion = spawnSync(sg, ["--version"], { encoding: "utf8" }).stdout.trim();
const { n: nFiles, bytes } = countFiles(src);
log(`corpus: ${EFFECT} src/ — ${nFiles} files, ${(bytes / 1e6).toFixed(1)} MB; ${sgVersion}; node ${process.version}; ${os.availableParallelism?.() ?? os.cpus().length} CPUs; load ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
log(`runs per measurement: ${RUNS} (alternating)\n`);
const results = { corpus: { package: EFFECT, files: nFiles, bytes }, astGrep: sgVersion, node: process.version, cpus: os.availableParallelism?.() ?? os.cpus().length, runs: RUNS, loadavgAtStart: os.loadavg() };

const sgArgs = ["run", "-p", PATTERN, "-r", REWRITE, "-l", "ts", "src"];

// --- correctness: the same matches as ast-grep
// Default (region parsing): every ast-grep match, plus any that the CLI's whole-file parse loses
// to tree-sitter's error recovery. TOLLGATE_PARSE=whole parses whole files as the CLI does and
// must give exactly the CLI's matches.
{
  const ws = makeWorkspace(src);
  const json = spawnSync(sg, ["run", "-p", PATTERN, "-l", "ts", "--json=stream", "src"], { cwd: ws, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const matches = json.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const sgFiles = new Set(matches.map((m) => m.file)).size;
  const key = (file, line, col) => `${file.replace(/^src\//, "")}:${line}:${col}`;
  const sgKeys = matches.map((m) => key(m.file, m.range.start.line + 1, m.range.start.column + 1));
  results.matches = { astGrep: { matches: matches.length, files: sgFiles } };
  log(`matches: ast-grep ${matches.length} in ${sgFiles} files`);
  for (const mode of ["regions", "whole"]) {
    const report = path.join(ws, "report.json");
    const r = measure(node, [tollgate, "run", "recipe.yaml", "--dry-run", "--report", report], ws, { TOLLGATE_PARSE: mode });
    const d = JSON.parse(readFileSync(report, "utf8")).steps[0].details;
    const tgKeys = new Set((d.changes ?? []).map((c) => key(c.path, c.line, c.col)));
    const missing = sgKeys.filter((k) => !tgKeys.has(k));
    const extra = [...tgKeys].filter((k) => !sgKeys.includes(k));
    results.matches[mode] = { replacements: d.totalReplacements, files: d.filesTouched, filesSearched: d.filesSearched, exit: r.status, missingFromTollgate: missing, extraInTollgate: extra };
    const label = mode === "regions" ? "tollgate (default, region parsing)" : "tollgate (TOLLGATE_PARSE=whole)";
    log(`  ${label}: ${d.totalReplacements} in ${d.filesTouched} files (searched ${d.filesSearched})`);
    if (mode === "whole") {
      const same = missing.length === 0 && extra.length === 0 && d.totalReplacements === matches.length && d.filesTouched === sgFiles;
      log(same ? `    the same ${matches.length} matches in ${sgFiles} files as ast-grep ✓` : `    ✗ differs from ast-grep: missing ${missing.join(", ") || "none"}; extra ${extra.join(", ") || "none"}`);
      results.matches.wholeSameAsAstGrep = same;
    } else {
      log(missing.length === 0 ? `    every one of ast-grep's ${matches.length} matches ✓` : `    ✗ ast-grep matches tollgate misses: ${missing.join(", ")}`);
      if (extra.length > 0) log(`    plus ${extra.length} that the whole-file parse loses to grammar error recovery: ${extra.join(", ")}`);
    }
  }
  rmSync(ws, { recursive: true, force: true });
}

/** Medians, ratio, peak RSS and CPU of paired samples: `a` is ast-grep's, `b` tollgate's. */
function summarize(a, b) {
  const ms = (xs) => xs.map((x) => x.ms);
  return {
    astGrepMs: median(ms(a)),
    tollgateMs: median(ms(b)),
    ratio: median(ms(b)) / median(ms(a)),
    astGrepPeakRssKiB: max(a.map((x) => x.rssKiB)),
    tollgatePeakRssKiB: max(b.map((x) => x.rssKiB)),
    astGrepCpuMs: median(a.map((x) => x.cpuMs)),
    tollgateCpuMs: median(b.map((x) => x.cpuMs)),
    samples: { astGrep: ms(a), tollgate: ms(b) },
  };
}

/** Runs `pair()` `runs` times (ast-grep then tollgate each time: alternating); fails on a tollgate error. */
function alternate(runs, what, pair) {
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
    const r = pair();
    if (r.b.status !== 0) throw new Error(`tollgate ${what} failed (${r.b.status}): ${r.b.stderr}`);
    a.push(r.a);
    b.push(r.b);
  }
  return { a, b };
}

const tgDryRun = (ws, env) => measure(node, [tollgate, "run", "recipe.yaml", "--dry-run", "--report", path.join(ws, "report.json")], ws, env);

// --- dry-run
{
  const ws = makeWorkspace(src);
  const { a, b } = alternate(RUNS, "dry-run", () => ({ a: measure(sg, sgArgs, ws), b: tgDryRun(ws) }));
  results.dryRun = summarize(a, b);
  // The cost of ast-grep's exact answer (TOLLGATE_PARSE=whole): informational, no target.
  const whole = alternate(RUNS, "whole-parse dry-run", () => ({ a: undefined, b: tgDryRun(ws, { TOLLGATE_PARSE: "whole" }) })).b;
  const wT = whole.map((x) => x.ms);
  results.dryRunWhole = { tollgateMs: median(wT), ratio: median(wT) / results.dryRun.astGrepMs, tollgatePeakRssKiB: max(whole.map((x) => x.rssKiB)), samples: wT };
  rmSync(ws, { recursive: true, force: true });
}

// --- apply on fresh copies
{
  let sgApplied;
  let tgRemaining;
  let sgRemaining;
  const { a, b } = alternate(RUNS, "apply", () => {
    const w1 = makeWorkspace(src);
    const sgRun = measure(sg, [...sgArgs, "-U"], w1);
    sgApplied = /Applied (\d+) changes/.exec(sgRun.stdout + sgRun.stderr)?.[1];
    sgRemaining = countOccurrences(path.join(w1, "src"), "Effect.map(");
    rmSync(w1, { recursive: true, force: true });
    const w2 = makeWorkspace(src);
    const tgRun = measure(node, [tollgate, "run", "recipe.yaml", "--policy", "auto.yaml", "--report", path.join(w2, "report.json")], w2);
    tgRemaining = countOccurrences(path.join(w2, "src"), "Effect.map(");
    rmSync(w2, { recursive: true, force: true });
    return { a: sgRun, b: tgRun };
  });
  results.apply = {
    ...summarize(a, b),
    astGrepApplied: sgApplied === undefined ? undefined : Number(sgApplied),
    remainingEffectMapCalls: { astGrep: sgRemaining, tollgate: tgRemaining },
  };
}

// --- 10x corpus
if (process.env.BENCH_SKIP_10X !== "1") {
  const ws = makeWorkspace(src, 10);
  const { a, b } = alternate(Math.max(1, Math.min(RUNS, 3)), "10x dry-run", () => ({ a: measure(sg, sgArgs, ws), b: tgDryRun(ws) }));
  const rep = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8"));
  const summary = summarize(a, b);
  results.tenX = { ...summary, tollgateGrowth: summary.tollgateMs / results.dryRun.tollgateMs, replacements: rep.steps[0].details.totalReplacements };
  rmSync(ws, { recursive: true, force: true });
}

// --- startup
{
  const a = [];
  const b = [];
  for (let i = 0; i < Math.max(RUNS, 10); i++) {
    a.push(measure(node, ["-e", "0"], ROOT).ms);
    b.push(measure(node, [tollgate, "--version"], ROOT).ms);
  }
  results.version = { nodeMs: median(a), tollgateMs: median(b), ratio: median(b) / median(a) };
}
results.loadavgAtEnd = os.loadavg();

// ---------------------------------------------------------------- report
const ok = (cond) => (cond ? "PASS" : "FAIL");
const rows = [
  ["dry-run (preview, policy, report with diffs)", fmtMs(results.dryRun.astGrepMs), fmtMs(results.dryRun.tollgateMs), results.dryRun.ratio.toFixed(2), "≤ 0.80", ok(results.dryRun.ratio <= 0.8)],
  ["dry-run, TOLLGATE_PARSE=whole (ast-grep's exact matches)", fmtMs(results.dryRun.astGrepMs), fmtMs(results.dryRunWhole.tollgateMs), results.dryRunWhole.ratio.toFixed(2), "(no target)", ""],
  ["apply (fresh copy)", fmtMs(results.apply.astGrepMs), fmtMs(results.apply.tollgateMs), results.apply.ratio.toFixed(2), "≤ 1.00", ok(results.apply.ratio <= 1.0)],
];
if (results.tenX) rows.push(["10× corpus dry-run", fmtMs(results.tenX.astGrepMs), fmtMs(results.tenX.tollgateMs), results.tenX.ratio.toFixed(2), `growth ${results.tenX.tollgateGrowth.toFixed(1)}× ≤ 10`, ok(results.tenX.tollgateGrowth <= 10)]);
rows.push(["--version vs node -e 0", fmtMs(results.version.nodeMs), fmtMs(results.version.tollgateMs), results.version.ratio.toFixed(2), "≤ 1.50", ok(results.version.ratio <= 1.5)]);
log("");
log(["measurement", "ast-grep / node", "tollgate", "ratio", "target", ""].join(" | "));
for (const r of rows) log(r.join(" | "));
log("");
log(`peak RSS: dry-run ${fmtMiB(results.dryRun.tollgatePeakRssKiB)} (ast-grep ${fmtMiB(results.dryRun.astGrepPeakRssKiB)}), apply ${fmtMiB(results.apply.tollgatePeakRssKiB)} (ast-grep ${fmtMiB(results.apply.astGrepPeakRssKiB)}) — target < 300 MiB: ${ok(Math.max(results.dryRun.tollgatePeakRssKiB ?? 0, results.apply.tollgatePeakRssKiB ?? 0) < 300 * 1024)}`);
if (results.tenX) log(`peak RSS at 10×: ${fmtMiB(results.tenX.tollgatePeakRssKiB)} (ast-grep ${fmtMiB(results.tenX.astGrepPeakRssKiB)}) — target < 600 MiB: ${ok((results.tenX.tollgatePeakRssKiB ?? 0) < 600 * 1024)}; 10× replacements ${results.tenX.replacements}`);
log(`apply: ast-grep applied ${results.apply.astGrepApplied} (left ${results.apply.remainingEffectMapCalls.astGrep} "Effect.map(" in the tree), tollgate left ${results.apply.remainingEffectMapCalls.tollgate}`);
const cpu = (r) => (r && r.astGrepCpuMs !== undefined ? `${fmtMs(r.astGrepCpuMs)} vs ${fmtMs(r.tollgateCpuMs)} (${(r.tollgateCpuMs / r.astGrepCpuMs).toFixed(2)})` : "n/a");
log(`CPU time (user+sys, median) ast-grep vs tollgate: dry-run ${cpu(results.dryRun)}; apply ${cpu(results.apply)}${results.tenX ? `; 10× ${cpu(results.tenX)}` : ""}`);
log(`load average at start ${results.loadavgAtStart.map((x) => x.toFixed(1)).join(" ")}, at end ${results.loadavgAtEnd.map((x) => x.toFixed(1)).join(" ")}`);
writeFileSync(path.join(CORPUS_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
log(`\nwritten: ${path.relative(ROOT, path.join(CORPUS_DIR, "results.json"))}`);
