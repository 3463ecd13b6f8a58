// The floor process: a whole Node process that loads @ast-grep/napi and makes one findInFiles
// call with `{ any: [patterns] }` over the files of a job (JSON: `{ lang, paths, patterns,
// dynamic }`), then exits. Nothing reaches JavaScript but the matches; it prints their count.
// `dynamic` names a language package to register first (Python: @ast-grep/lang-python).
// Usage: node bench/lib/floor-process.mjs JOB.json
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { findInFiles } from "./find-in-files.mjs";

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
const { files, nodes } = await findInFiles(napi, job.lang, { paths: job.paths, matcher: { rule } });
process.stdout.write(`${nodes} matches in ${files} files\n`);
