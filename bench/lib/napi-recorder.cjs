// Preloaded into a tollgate run (`node -r bench/lib/napi-recorder.cjs bin/tollgate.js ...`):
// notes every call tollgate makes into @ast-grep/napi that parses (findInFiles with its paths and
// matcher, parseAsync with its text, registerDynamicLanguage) and writes them as JSON to the file
// named by TOLLGATE_BENCH_NAPI_RECORD when the process exits. replay-process.mjs makes the same
// native work again with nothing of tollgate's around it.
/* global require, __dirname */
const { writeFileSync } = require("node:fs");
const path = require("node:path");

const napi = require(require.resolve("@ast-grep/napi", { paths: [path.join(__dirname, "..", "..")] }));
const record = { dynamic: [], calls: [], parses: [] };

const wrap = (name, note) => {
  const real = napi[name];
  napi[name] = function (...args) {
    note(...args);
    return real.apply(this, args);
  };
};
wrap("registerDynamicLanguage", (langs) => record.dynamic.push(langs));
wrap("findInFiles", (lang, config) => record.calls.push({ lang, paths: config.paths, matcher: config.matcher }));
wrap("parseAsync", (lang, text) => record.parses.push([lang, text]));

process.on("exit", () => {
  const file = process.env.TOLLGATE_BENCH_NAPI_RECORD;
  if (file) writeFileSync(file, JSON.stringify(record));
});
