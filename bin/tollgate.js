#!/usr/bin/env node
// The CLI's launcher, a CommonJS script (bin/package.json): an ES module entry point would start
// Node's ES loader, a few milliseconds of every run. `--version` is answered from package.json
// before anything else loads. Otherwise it runs the bundled CLI (dist/bundle/cli.cjs, one CommonJS
// file: scripts/bundle.mjs) through node:vm with a V8 code cache, so a run does not compile again
// what the same command compiled last time. The cache lives in dist/bundle/.code-cache/ (tollgate's
// own directory, wiped by every build), one file per command, keyed by the Node version, its flags
// and the bundle's size and mtime; V8 itself refuses data of another V8 or source, and then the run
// compiles as usual and writes a fresh file as it exits (atomically: a temp file renamed). A
// directory that is not writable only means no cache. TOLLGATE_CODE_CACHE=0 turns it off.
/* global __dirname */
const { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } = process.getBuiltinModule("node:fs");
const { createRequire } = process.getBuiltinModule("node:module");
const path = process.getBuiltinModule("node:path");
const v8 = process.getBuiltinModule("node:v8");
const vm = process.getBuiltinModule("node:vm");

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  process.stdout.write(`${JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).version}\n`);
} else {
  launch();
}

function launch() {
  const bundle = path.join(__dirname, "..", "dist", "bundle", "cli.cjs");
  const dir = path.dirname(bundle);
  // The bundle is ASCII (scripts/bundle.mjs checks): read as latin1, it needs no UTF-8 decoding.
  const source = readFileSync(bundle, "latin1");
  const cacheFile = process.env.TOLLGATE_CODE_CACHE === "0" ? undefined : path.join(dir, ".code-cache", `${cacheKey(bundle)}.bin`);
  let cachedData;
  try {
    if (cacheFile) cachedData = readFileSync(cacheFile);
  } catch {
    // no cache yet
  }
  // A cache carries a hash of V8's flags, and a run that parses enough sets --expose-gc to free
  // native syntax trees (tools/ast/reclaim.ts): a cache written after that would be refused by
  // every other run. Set first, it is in every run's hash (and exposes gc to new contexts only).
  v8.setFlagsFromString("--expose-gc");
  const wrapped = `(function (exports, require, module, __filename, __dirname, __tgImport) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  // A cache holds what its run compiled: one that stopped at a usage or input error (exit 2) or
  // failed (3) would stand for the command's later runs without most of what they compile.
  if (cacheFile && (!cachedData || script.cachedDataRejected)) process.once("exit", (code) => code <= 1 && saveCache(script, cacheFile));
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dir, (specifier) => import(specifier));
}

/**
 * `<stamp>-<command>`: what V8's check does not cover (flags chosen per run) and which command ran;
 * `--help` has a file of its own (`run --help` compiles little of what a run does).
 */
function cacheKey(bundle) {
  const st = statSync(bundle);
  const flags = `${process.version} ${process.arch} ${st.size} ${st.mtimeMs} ${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < flags.length; i++) h = Math.imul(h ^ flags.charCodeAt(i), 0x01000193) >>> 0;
  const command = argv.find((a) => !a.startsWith("-")) ?? "";
  const help = argv.includes("--help") || argv.includes("-h") ? "-help" : "";
  return `${h.toString(16)}-${/^[a-z-]{1,20}$/.test(command) ? command : "other"}${help}`;
}

/** Writes the code V8 compiled in this run; at most 16 files kept (the oldest go). Never throws. */
function saveCache(script, file) {
  try {
    const dir = path.dirname(file);
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, file);
    const files = readdirSync(dir).map((f) => path.join(dir, f));
    if (files.length > 16) {
      const byAge = files.map((f) => ({ f, t: statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => a.t - b.t);
      for (const { f } of byAge.slice(0, files.length - 16)) unlinkSync(f);
    }
  } catch {
    // read-only install, a full disk, a race with another run's pruning: no cache this time
  }
}
