// The generative differential sweep on demand: `npm run differential -- --patterns N [--seed S]
// [--lang ts,css] [--keep DIR]` runs test/differential/generative.test.ts with N patterns per
// language (and the seed S), for the languages named (default: all), leaving the copies it
// matched in DIR/<lang> (default: temp directories, removed).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const env = { ...process.env };
const usage = "usage: npm run differential -- [--patterns N] [--seed S] [--lang L,...] [--keep DIR]";
const fail = (why) => {
  console.error(`${usage}\n(${why})`);
  process.exit(2);
};
const NUMERIC = { "--patterns": ["TOLLGATE_DIFF_PATTERNS", 1, "a positive"], "--seed": ["TOLLGATE_DIFF_SEED", 0, "a non-negative"] };
const TEXT = { "--lang": "TOLLGATE_DIFF_LANGS", "--keep": "TOLLGATE_DIFF_KEEP" };
for (let i = 0; i < args.length; i++) {
  const [flag, inline] = args[i].split("=", 2);
  if (!(flag in NUMERIC) && !(flag in TEXT)) fail(`unknown argument ${args[i]}`);
  const value = inline ?? args[++i];
  if (value === undefined || value === "") fail(`${flag} takes a value`);
  if (flag in TEXT) {
    env[TEXT[flag]] = flag === "--keep" ? path.resolve(value) : value;
    continue;
  }
  const [name, min, what] = NUMERIC[flag];
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) fail(`${flag} takes ${what} integer`);
  env[name] = String(n);
}
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const r = spawnSync(process.execPath, [vitest, "run", "test/differential/generative.test.ts"], { cwd: root, env, stdio: "inherit" });
process.exit(r.status ?? 1);
