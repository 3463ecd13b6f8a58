// The floor of the bench's ast cases for any tool built on @ast-grep/napi (tollgate's engine):
// napi's own `findInFiles` (its Rust threads read, parse and match; nothing reaches JavaScript
// but the matches) over only the files tollgate's prefilter lets through, timed beside the
// ast-grep CLI over the whole corpus. No staging, diffs, report, policy or Node start-up is in
// it, so a ratio printed here is the least a napi-based run can cost, whatever it does on its
// main thread. `npm run build` first (it uses dist/'s prefilter). Usage: node bench/floor.mjs
// (BENCH_RUNS, default 5; BENCH_CASES, e.g. s2,s3).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { astGrep, effectCorpus, npmCorpus, pythonStdlib, ROOT } from "./lib/harness.mjs";
import { OPS } from "./cases/s3-eight-ops.mjs";

const require = createRequire(path.join(ROOT, "package.json"));
const napi = require("@ast-grep/napi");
const { buildPrefilter, compileBytePrefilter } = await import(path.join(ROOT, "dist/tools/ast/pattern.js"));
const { langById, ensureLanguages } = await import(path.join(ROOT, "dist/tools/ast/langs.js"));
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function filesOf(dir, exts) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && exts.some((x) => e.name.endsWith(x))) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** findInFiles over `paths` with the rule `{ any: patterns }`; resolves when every file's callback ran. */
async function findAll(lang, paths, patterns) {
  let files = 0;
  let nodes = 0;
  let sent = Infinity;
  await new Promise((resolve, reject) => {
    const done = () => files >= sent && resolve();
    napi
      .findInFiles(lang, { paths, matcher: { rule: patterns.length === 1 ? { pattern: patterns[0] } : { any: patterns.map((p) => ({ pattern: p })) } } }, (err, found) => {
        if (err) return reject(err);
        files++;
        nodes += found.length;
        done();
      })
      .then((n) => {
        sent = n;
        done();
      }, reject);
  });
  return nodes;
}

const CASES = [
  { id: "s1", title: "S1 Effect.map($A, $B), effect src/", tree: () => effectCorpus(), lang: "TypeScript", napiLang: "TypeScript", pats: ["Effect.map($A, $B)"], cli: ["run", "-p", "Effect.map($A, $B)", "-l", "ts"] },
  { id: "s2", title: "S2 $A !== undefined, effect src/", tree: () => effectCorpus(), lang: "TypeScript", napiLang: "TypeScript", pats: ["$A !== undefined"], cli: ["run", "-p", "$A !== undefined", "-l", "ts"] },
  { id: "s3", title: "S3 eight patterns, effect src/", tree: () => effectCorpus(), lang: "TypeScript", napiLang: "TypeScript", pats: OPS.map(([p]) => p), rules: true },
  { id: "s5py", title: "S5 isinstance($A, $B), Python stdlib", tree: () => pythonStdlib(), lang: "python", napiLang: "python", pats: ["isinstance($A, $B)"], cli: ["run", "-p", "isinstance($A, $B)", "-l", "python"] },
  { id: "s5js", title: "S5 context.report($A), eslint lib/", tree: () => npmCorpus("eslint@10.15.0", "lib"), lang: "JavaScript", napiLang: "JavaScript", pats: ["context.report($A)"], cli: ["run", "-p", "context.report($A)", "-l", "js"] },
];

const only = process.env.BENCH_CASES?.split(",");
console.log(`ast-grep CLI vs @ast-grep/napi findInFiles over the prefilter's candidates; ${os.availableParallelism()} CPUs; median of ${RUNS}`);
console.log("| case | candidate files (bytes) | CLI (whole corpus) | napi findInFiles (candidates) | floor ratio |");
console.log("|---|---|---|---|---|");
for (const c of CASES) {
  if (only && !only.includes(c.id)) continue;
  const tree = c.tree();
  const info = langById(c.lang);
  ensureLanguages(napi, [c.lang]);
  const all = filesOf(tree, info.extensions);
  const filter = compileBytePrefilter(buildPrefilter(c.pats, info, false));
  const cand = all.filter((f) => !filter || filter(readFileSync(f)));
  const bytes = (fs) => fs.reduce((s, f) => s + statSync(f).size, 0);
  const ws = path.dirname(tree);
  const rel = path.basename(tree);
  let cliArgs;
  let rulesFile;
  if (c.rules) {
    rulesFile = path.join(os.tmpdir(), `tollgate-floor-${process.pid}.yml`);
    (await import("node:fs")).writeFileSync(rulesFile, c.pats.map((p, i) => `id: op-${i}\nlanguage: TypeScript\nrule: { pattern: ${JSON.stringify(p)} }\n`).join("---\n"));
    cliArgs = ["scan", "--rule", rulesFile, rel];
  } else cliArgs = [...c.cli, rel];
  const cli = [];
  const native = [];
  let nodes = 0;
  for (let i = 0; i < RUNS; i++) {
    cli.push(astGrep(cliArgs, ws).ms);
    const t0 = performance.now();
    nodes = await findAll(c.napiLang, cand, c.pats);
    native.push(performance.now() - t0);
  }
  const a = median(cli);
  const b = median(native);
  console.log(`| ${c.title} | ${cand.length} of ${all.length} (${(bytes(cand) / 1e6).toFixed(1)} of ${(bytes(all) / 1e6).toFixed(1)} MB) | ${(a / 1000).toFixed(3)} s | ${(b / 1000).toFixed(3)} s (${nodes} nodes) | ${(b / a).toFixed(2)} |`);
}

