// The shared half of `npm run bench`: corpora, the ast-grep binary, one measured
// process (wall, peak RSS and CPU via /usr/bin/time), alternating pairs and their medians, and
// the result rows the runner prints. A case module (bench/cases/*.mjs) uses only this API.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const CORPUS_DIR = path.join(ROOT, "bench", ".corpus");
/** `--rounds N` (or `--rounds=N`) on the command line, else BENCH_RUNS, else 5: rounds per measurement. */
function roundsOption(argv = process.argv.slice(2)) {
  const i = argv.findIndex((a) => a === "--rounds" || a.startsWith("--rounds="));
  const given = i === -1 ? process.env.BENCH_RUNS : argv[i].includes("=") ? argv[i].slice("--rounds=".length) : argv[i + 1];
  const n = Number(given ?? 5);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--rounds/BENCH_RUNS: a whole number of at least 1, not ${JSON.stringify(given)}`);
  return n;
}
export const RUNS = roundsOption();
export const TOLLGATE = path.join(ROOT, "bin", "tollgate.js");
export const NODE = process.execPath;
const TIME_BIN = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
export const log = (...a) => console.log(...a);

// ---------------------------------------------------------------- corpora
/**
 * The `dir` of a published npm package, fetched once with `npm pack` into bench/.corpus/<name>
 * (ignored by git). `spec` is exact (`effect@4.1.0`): the figures are only comparable on the same tree.
 */
export function npmCorpus(spec, dir, name = `${spec.replace(/[@/]/g, "-").replace(/^-/, "")}-${dir}`) {
  const dest = path.join(CORPUS_DIR, name);
  if (existsSync(path.join(dest, ".complete"))) return dest;
  mkdirSync(CORPUS_DIR, { recursive: true });
  log(`fetching ${spec} with npm pack …`);
  const out = execFileSync("npm", ["pack", spec, "--pack-destination", CORPUS_DIR, "--json"], { encoding: "utf8" });
  const tgz = path.join(CORPUS_DIR, JSON.parse(out)[0].filename);
  const tmp = mkdtempSync(path.join(CORPUS_DIR, "x-"));
  execFileSync("tar", ["xzf", tgz, "-C", tmp]);
  rmSync(dest, { recursive: true, force: true });
  cpSync(path.join(tmp, "package", dir), dest, { recursive: true });
  rmSync(tmp, { recursive: true, force: true });
  writeFileSync(path.join(dest, ".complete"), `${spec} ${dir}\n`);
  return dest;
}

/** The main corpus: the src/ tree of effect@4.1.0. */
export function effectCorpus() {
  const src = path.join(CORPUS_DIR, "effect-src");
  if (existsSync(path.join(src, "Effect.ts"))) return src;
  const got = npmCorpus("effect@4.1.0", "src", "effect-src-tmp");
  cpSync(got, src, { recursive: true });
  rmSync(path.join(src, ".complete"), { force: true });
  rmSync(got, { recursive: true, force: true });
  return src;
}

/** The newest /usr/lib/python3.N standard library on this machine, or undefined. */
export function pythonStdlib() {
  const dirs = existsSync("/usr/lib")
    ? readdirSync("/usr/lib")
        .filter((d) => /^python3\.\d+$/.test(d))
        .map((d) => path.join("/usr/lib", d))
        .filter((d) => existsSync(path.join(d, "os.py")))
    : [];
  return dirs.sort((a, b) => Number(a.split(".").pop()) - Number(b.split(".").pop())).pop();
}

export function countFiles(dir, filter = () => true) {
  let n = 0;
  let bytes = 0;
  for (const f of readdirSync(dir, { recursive: true })) {
    if (!filter(f)) continue;
    const st = statSync(path.join(dir, f), { throwIfNoEntry: false });
    if (st?.isFile()) {
      n++;
      bytes += st.size;
    }
  }
  return { n, bytes };
}

export function countOccurrences(dir, needle) {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true })) {
    const p = path.join(dir, f);
    if (!statSync(p).isFile()) continue;
    const t = readFileSync(p, "utf8");
    for (let i = t.indexOf(needle); i !== -1; i = t.indexOf(needle, i + 1)) n++;
  }
  return n;
}

/**
 * A temp work dir (outside any git repository) holding `trees` (`{ "src": dir }`; several copies
 * with `copies`) and `files` (`{ "recipe.yaml": text }`). Callers remove it with `rmSync`.
 */
export function workspace(trees, files = {}, copies = 1) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-"));
  for (const [dest, from] of Object.entries(trees)) {
    if (copies === 1) cpSync(from, path.join(dir, dest), { recursive: true });
    else for (let i = 0; i < copies; i++) cpSync(from, path.join(dir, dest, `copy${i}`), { recursive: true });
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}
export const removeWorkspace = (dir) => rmSync(dir, { recursive: true, force: true });

// ---------------------------------------------------------------- tools
let sgCache;
/** The @ast-grep/cli dev dependency's binary (`sg` on PATH is not ast-grep on Linux). */
export function astGrepBinary() {
  if (sgCache) return sgCache;
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
      if (existsSync(file) && spawnSync(file, ["--version"]).status === 0) return (sgCache = file);
    } catch {}
  }
  throw new Error("ast-grep CLI not found: npm i -D -E @ast-grep/cli@0.51.1 (its binary comes from the optional platform package)");
}

export function ensureBuilt() {
  if (!existsSync(path.join(ROOT, "dist", "cli", "main.js")) || process.env.BENCH_BUILD === "1") {
    log("building tollgate (npm run build) …");
    execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
  }
}

/** ast-grep's `--json=stream` matches of `args` (e.g. `["run", "-p", p, "-l", "ts", "src"]`) in `cwd`. */
export function astGrepJson(args, cwd) {
  const r = spawnSync(astGrepBinary(), [...args, "--json=stream"], { cwd, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

// ---------------------------------------------------------------- measuring
/** Runs a command; returns wall ms, peak RSS (KiB) and CPU ms (user+sys) via /usr/bin/time, and its output. */
export function measure(cmd, args, cwd, env = {}) {
  const full = TIME_BIN ? [TIME_BIN, ["-f", "__TG_RSS__ %M %U %S", cmd, ...args]] : [cmd, args];
  const t0 = performance.now();
  const r = spawnSync(full[0], full[1], { cwd, encoding: "utf8", maxBuffer: 512 * 1024 * 1024, env: { ...process.env, CI: "true", NO_COLOR: "1", ...env } });
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

/** `node -e 0`: Node's own start-up, T_node of the overhead. */
export const nodeStart = () => measure(NODE, ["-e", "0"], ROOT);
/** `node bin/tollgate.js ...args` measured in `cwd`. */
export const tollgate = (args, cwd, env) => measure(NODE, [TOLLGATE, ...args], cwd, env);
/** The ast-grep binary measured in `cwd`. */
export const astGrep = (args, cwd, env) => measure(astGrepBinary(), args, cwd, env);

export const median = (xs) => {
  const s = xs.filter((x) => x !== undefined).sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return undefined;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const maxOf = (xs) => {
  const d = xs.filter((x) => x !== undefined);
  return d.length ? Math.max(...d) : undefined;
};

/**
 * Runs `pair()` `runs` times; each call runs the peer then tollgate (so they alternate) and returns
 * `{ a: peerSample, b: tollgateSample }`. A tollgate run that exits non-zero (beyond `okStatus`) fails the case.
 */
export function alternate(runs, what, pair, okStatus = [0]) {
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
    const r = pair(i);
    if (r.b && !okStatus.includes(r.b.status)) throw new Error(`tollgate ${what} failed (exit ${r.b.status}): ${r.b.stderr}`);
    a.push(r.a);
    b.push(r.b);
  }
  return { a, b };
}

/**
 * The side-by-side measurement of a case with a floor: each round runs the peer, tollgate, the
 * floor process, tollgate over one small file and `node -e 0`, one after another, so all five
 * see the same minute of the machine. `run` holds thunks `{ peer, tollgate, floor, one }`, each
 * returning a measure() sample (`peer`, `floor`, `one` may be omitted). Returns the samples for
 * summarize(): `{ a, b, floor, one, node }`. `prepare(i)`, if given, runs untimed before a round.
 */
export function sideBySide(runs, what, run, { okStatus = [0], prepare } = {}) {
  const out = { a: [], b: [], floor: [], one: [], node: [] };
  const check = (sample, name) => {
    if (!okStatus.includes(sample.status)) throw new Error(`${name} ${what} failed (exit ${sample.status}): ${sample.stderr}`);
    return sample;
  };
  for (let i = 0; i < runs; i++) {
    prepare?.(i);
    if (run.peer) out.a.push(run.peer(i));
    out.b.push(check(run.tollgate(i), "tollgate"));
    if (run.floor) out.floor.push(check(run.floor(i), "the floor process"));
    if (run.one) out.one.push(check(run.one(i), "tollgate over one file"));
    if (run.floor) out.node.push(nodeStart());
  }
  return out;
}

/**
 * overhead = (T_tollgate − T_one) ÷ (T_floor − T_node): what tollgate spends on the work itself
 * against what napi's findInFiles spends on it, start-up taken out of both. Undefined when a
 * term is missing or the floor's work is not measurable (not above Node's start-up).
 */
export function overheadOf(tollgateMs, oneMs, floorMs, nodeMs) {
  if ([tollgateMs, oneMs, floorMs, nodeMs].some((x) => x === undefined)) return undefined;
  return floorMs > nodeMs ? (tollgateMs - oneMs) / (floorMs - nodeMs) : undefined;
}

/**
 * Medians, wall and CPU ratios and peak RSS of paired samples: `a` the peer's, `b` tollgate's;
 * with `more` (sideBySide's floor, one and node samples) also their medians and the overhead.
 */
export function summarize(a, b, more = {}) {
  const ms = (xs) => xs.filter(Boolean).map((x) => x.ms);
  const cpu = (xs) => xs.filter(Boolean).map((x) => x.cpuMs);
  const s = {
    peerMs: median(ms(a)),
    tollgateMs: median(ms(b)),
    peerPeakRssKiB: maxOf(a.filter(Boolean).map((x) => x.rssKiB)),
    tollgatePeakRssKiB: maxOf(b.filter(Boolean).map((x) => x.rssKiB)),
    peerCpuMs: median(cpu(a)),
    tollgateCpuMs: median(cpu(b)),
    samples: { peer: ms(a), tollgate: ms(b) },
  };
  s.ratio = s.peerMs ? s.tollgateMs / s.peerMs : undefined;
  s.cpuRatio = s.peerCpuMs ? s.tollgateCpuMs / s.peerCpuMs : undefined;
  if (more.floor?.length) {
    s.floorMs = median(ms(more.floor));
    s.oneMs = median(ms(more.one ?? []));
    s.nodeMs = median(ms(more.node ?? []));
    s.floorCpuMs = median(cpu(more.floor));
    s.floorRatio = s.peerMs ? s.floorMs / s.peerMs : undefined;
    s.overhead = overheadOf(s.tollgateMs, s.oneMs, s.floorMs, s.nodeMs);
    s.samples.floor = ms(more.floor);
    s.samples.one = ms(more.one ?? []);
    s.samples.node = ms(more.node ?? []);
  }
  return s;
}

// ---------------------------------------------------------------- results
export const fmtMs = (ms) => (ms === undefined ? "n/a" : `${(ms / 1000).toFixed(3)} s`);
export const fmtMiB = (kib) => (kib === undefined ? "n/a" : `${(kib / 1024).toFixed(0)} MiB`);

/**
 * One printed result row. `summary` from summarize(); `maxRatio` the wall-ratio target and
 * `maxOverhead` the overhead target (omit both for an informational row); `maxRssMiB` tollgate's
 * peak-RSS limit (null: none); `extra` a target of its own (`{ text, pass }`, e.g. time growth at
 * 10x) checked beside them.
 */
export function row(name, summary, { maxRatio, maxOverhead, maxRssMiB = 300, extra } = {}) {
  const checks = [];
  if (maxRatio !== undefined) checks.push({ text: `ratio ≤ ${maxRatio.toFixed(2)}`, pass: summary.ratio !== undefined && summary.ratio <= maxRatio });
  if (maxOverhead !== undefined)
    checks.push({ text: `overhead ≤ ${maxOverhead.toFixed(2)}`, pass: summary.overhead !== undefined && summary.overhead <= maxOverhead });
  if (maxRssMiB != null && summary.tollgatePeakRssKiB !== undefined)
    checks.push({ text: `RSS < ${maxRssMiB} MiB`, pass: summary.tollgatePeakRssKiB < maxRssMiB * 1024 });
  if (extra) checks.push(extra);
  const informational = maxRatio === undefined && maxOverhead === undefined && !extra;
  return {
    name,
    ...summary,
    target: informational ? `(no target)${maxRssMiB != null ? `; RSS < ${maxRssMiB} MiB` : ""}` : checks.map((c) => c.text).join("; "),
    pass: checks.length === 0 ? undefined : checks.every((c) => c.pass),
  };
}

/**
 * The result table: per row the peer's and tollgate's median wall time, their wall and CPU
 * ratios, where a floor was measured its time, tollgate over one file, `node -e 0` and the
 * overhead, peak RSS, the target and PASS/FAIL ("not met" spelled out for a missed target).
 */
export function printTable(rows) {
  const head = [
    "case",
    "measurement",
    "peer",
    "tollgate",
    "ratio",
    "CPU ratio",
    "floor / one file / node",
    "overhead",
    "peak RSS tollgate / peer",
    "target",
    "result",
  ];
  const fixed = (x) => (x === undefined ? "n/a" : x.toFixed(2));
  const body = rows.map((r) => [
    r.case,
    r.name,
    fmtMs(r.peerMs),
    fmtMs(r.tollgateMs),
    fixed(r.ratio),
    fixed(r.cpuRatio),
    r.floorMs === undefined ? "" : `${fmtMs(r.floorMs)} / ${fmtMs(r.oneMs)} / ${fmtMs(r.nodeMs)}`,
    r.floorMs === undefined ? "" : fixed(r.overhead),
    `${fmtMiB(r.tollgatePeakRssKiB)} / ${fmtMiB(r.peerPeakRssKiB)}`,
    r.target,
    r.unavailable ? "NOT AVAILABLE" : r.pass === undefined ? "" : r.pass ? "PASS" : "FAIL (target not met)",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
  log(line(head));
  log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const b of body) log(line(b));
}

export const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
export const cpus = () => os.availableParallelism?.() ?? os.cpus().length;

/**
 * Peak of the summed RSS of a command and all its descendants, in KiB, sampled from /proc every
 * 20 ms (Linux; undefined elsewhere). /usr/bin/time's %M is the largest single process of a
 * tree, which understates a run whose work is in child processes (jscodeshift's workers,
 * tollgate's). Not timed: the sampling itself costs CPU.
 */
export async function treePeakKiB(cmd, args, cwd, env = {}) {
  if (!existsSync("/proc/self/stat")) return undefined;
  const { spawn } = await import("node:child_process");
  const child = spawn(cmd, args, { cwd, stdio: "ignore", env: { ...process.env, CI: "true", NO_COLOR: "1", ...env } });
  const pageKiB = 4;
  let peak = 0;
  const sample = () => {
    const kids = new Map();
    const rss = new Map();
    for (const d of readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = readFileSync(`/proc/${d}/stat`, "utf8");
        const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
        const pid = Number(d);
        const ppid = Number(f[1]);
        rss.set(pid, Number(f[21]) * pageKiB);
        if (!kids.has(ppid)) kids.set(ppid, []);
        kids.get(ppid).push(pid);
      } catch {
        // gone between readdir and read
      }
    }
    let sum = 0;
    const stack = [child.pid];
    while (stack.length > 0) {
      const p = stack.pop();
      sum += rss.get(p) ?? 0;
      stack.push(...(kids.get(p) ?? []));
    }
    peak = Math.max(peak, sum);
  };
  const timer = setInterval(sample, 20);
  await new Promise((resolve) => child.on("exit", resolve));
  clearInterval(timer);
  return peak;
}
