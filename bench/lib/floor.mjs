// The floor of an ast case (what napi's own findInFiles costs on the same work) and the one-file
// run that takes tollgate's start-up out of its time. See sideBySide() and overheadOf() in
// harness.mjs for how the suite measures and combines them.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NODE, ROOT, measure } from "./harness.mjs";

/** File-name endings per language of the suite, as ast-grep's `-l` picks files. */
export const EXTENSIONS = {
  ts: [".ts", ".mts", ".cts"],
  js: [".js", ".mjs", ".cjs", ".jsx"],
  python: [".py", ".py3", ".pyi"],
};
/** napi's name of each language, and the package a dynamic one is registered from. */
const NAPI = { ts: { lang: "TypeScript" }, js: { lang: "JavaScript" }, python: { lang: "python", dynamic: "@ast-grep/lang-python" } };

/** Every file under `dir` (sorted) whose name ends in one of `exts`. */
export function filesOf(dir, exts) {
  return readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, f))
    .filter((f) => exts.some((x) => f.endsWith(x)) && statSync(f).isFile())
    .sort();
}

/** The files of `lang` under `dir` that contain at least one of `needles` (plain substrings). */
export function needleFiles(dir, lang, needles) {
  return filesOf(dir, EXTENSIONS[lang]).filter((f) => {
    const text = readFileSync(f, "latin1");
    return needles.some((n) => text.includes(n));
  });
}

/**
 * The floor process over `paths` with `patterns`: `run()` measures one (its job file is written
 * once, untimed, in a temp dir that `dispose()` removes).
 */
export function floorRun(lang, paths, patterns) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tollgate-floor-"));
  const job = path.join(dir, "job.json");
  writeFileSync(job, JSON.stringify({ ...NAPI[lang], paths, patterns }));
  const script = path.join(ROOT, "bench", "lib", "floor-process.mjs");
  return { run: () => measure(NODE, [script, job], ROOT), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The smallest file of `lang` under `tree` that contains a needle (else the smallest of all),
 * copied to `<dest>/src/<its name>`: the one small file a case's recipe runs over for T_one.
 * Returns its path relative to `dest`.
 */
export function oneSmallFile(tree, lang, needles, dest) {
  const all = filesOf(tree, EXTENSIONS[lang]);
  const withNeedle = all.filter((f) => needles.some((n) => readFileSync(f, "latin1").includes(n)));
  const pool = withNeedle.length ? withNeedle : all;
  const file = pool.reduce((best, f) => (statSync(f).size < statSync(best).size ? f : best));
  const rel = path.join("src", path.basename(file));
  mkdirSync(path.join(dest, "src"), { recursive: true });
  copyFileSync(file, path.join(dest, rel));
  return rel;
}
