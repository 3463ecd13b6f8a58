// The native work of a recorded tollgate run (napi-recorder.cjs), in a whole Node process with no
// JavaScript work on what napi returns: one findInFiles call per (language, matcher) over every
// path the run handed napi, as the floor process makes its one call, and the statements the run
// parsed alone, all at once. Its time less `node -e 0`'s is what the napi calls tollgate needs for
// its results cost at the least. Prints the counts. Usage: node bench/lib/replay-process.mjs RECORD.json
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { findInFiles } from "./find-in-files.mjs";

const require = createRequire(import.meta.url);
const napi = require("@ast-grep/napi");
const record = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const langs of record.dynamic) napi.registerDynamicLanguage(langs);

const groups = new Map();
for (const { lang, paths, matcher } of record.calls) {
  const key = `${lang}\0${JSON.stringify(matcher)}`;
  const group = groups.get(key) ?? { lang, matcher, paths: [] };
  group.paths.push(...paths);
  groups.set(key, group);
}

// findInFiles passes over a path that is gone without a word: a stale record would time nothing.
const gone = [...groups.values()].flatMap((g) => g.paths).find((p) => !existsSync(p));
if (gone !== undefined) throw new Error(`the recorded file ${gone} is gone`);

const [found] = await Promise.all([
  Promise.all([...groups.values()].map(({ lang, matcher, paths }) => findInFiles(napi, lang, { paths, matcher }))),
  Promise.all(record.parses.map(([lang, text]) => napi.parseAsync(lang, text))),
]);
const nodes = found.reduce((n, f) => n + f.nodes, 0);
const files = [...groups.values()].reduce((n, g) => n + g.paths.length, 0);
process.stdout.write(`${nodes} nodes in ${files} files (${groups.size} call(s)), ${record.parses.length} statement parse(s)\n`);
