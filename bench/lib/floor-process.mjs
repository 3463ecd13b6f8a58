// The floor process: a whole Node process that loads @ast-grep/napi and makes one findInFiles
// call with `{ any: [patterns] }` over the files of a job (JSON: `{ lang, paths, patterns,
// dynamic }`), then exits. Nothing reaches JavaScript but the matches; it prints their count.
// `dynamic` names a language package to register first (Python: @ast-grep/lang-python).
// Usage: node bench/lib/floor-process.mjs JOB.json
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const napi = require("@ast-grep/napi");
if (job.dynamic) {
  const mod = require(job.dynamic);
  napi.registerDynamicLanguage({
    [job.lang]: { libraryPath: mod.libraryPath, extensions: mod.extensions, ...(mod.expandoChar ? { expandoChar: mod.expandoChar } : {}) },
  });
}
const rule = { any: job.patterns.map((pattern) => ({ pattern })) };
let files = 0;
let nodes = 0;
let sent = Infinity;
await new Promise((resolve, reject) => {
  const done = () => files >= sent && resolve();
  napi
    .findInFiles(job.lang, { paths: job.paths, matcher: { rule } }, (err, found) => {
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
process.stdout.write(`${nodes} matches in ${files} files\n`);
