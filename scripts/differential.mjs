// The generative differential sweep on demand: `npm run differential -- --patterns N [--seed S]`
// runs test/differential/generative.test.ts with N patterns per language (and the seed S).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const env = { ...process.env };
const usage = "usage: npm run differential -- [--patterns N] [--seed S]";
for (let i = 0; i < args.length; i++) {
  const [flag, inline] = args[i].split("=", 2);
  const value = inline ?? args[++i];
  const n = Number(value);
  if ((flag !== "--patterns" && flag !== "--seed") || value === undefined || !Number.isInteger(n) || n < (flag === "--seed" ? 0 : 1)) {
    console.error(
      `${usage}\n(${flag === "--patterns" || flag === "--seed" ? `${flag} takes a ${flag === "--seed" ? "non-negative" : "positive"} integer` : `unknown argument ${args[i - (inline === undefined ? 1 : 0)]}`})`,
    );
    process.exit(2);
  }
  env[flag === "--patterns" ? "TOLLGATE_DIFF_PATTERNS" : "TOLLGATE_DIFF_SEED"] = String(n);
}
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const r = spawnSync(process.execPath, [vitest, "run", "test/differential/generative.test.ts"], { cwd: root, env, stdio: "inherit" });
process.exit(r.status ?? 1);
