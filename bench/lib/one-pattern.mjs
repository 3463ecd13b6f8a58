// A one-pattern case (S2, S5): a tree, one `ast_edit` op, `tollgate run --dry-run` against
// `ast-grep run -p … -r …` side by side with napi's floor (findInFiles over the files holding the
// case's needle) and the same recipe over one small file, after checking that both find the
// same matches. Target: the overhead; the ratio to the CLI is printed beside it.
import path from "node:path";
import { readFileSync } from "node:fs";
import { RUNS, astGrep, astGrepJson, countFiles, log, removeWorkspace, row, sideBySide, summarize, tollgate, workspace } from "./harness.mjs";
import { floorRun, needleFiles, oneSmallFile } from "./floor.mjs";

/** The one-op `ast_edit` recipe of a one-pattern case, over `src/`. */
export const recipeOf = (pat, out, lang) => `version: 1
name: bench-one-pattern
steps:
  - tool: ast_edit
    with:
      ops: [{ pat: ${JSON.stringify(pat)}, out: ${JSON.stringify(out)} }]
      lang: ${lang}
      path: src
`;

/** Every ast-grep match must be among tollgate's (files it skips and matches resting on syntax errors aside). */
function compareMatches(ws, pat, lang, report, notes) {
  const sg = astGrepJson(["run", "-p", pat, "-l", lang, "src"], ws);
  const d = JSON.parse(readFileSync(report, "utf8")).steps[0].details;
  const key = (file, line, col) => `${file}:${line}:${col}`;
  const tg = new Set((d.changes ?? []).map((c) => key(c.path, c.line, c.col)));
  const skipped = new Set((d.skipped ?? []).map((s) => s.path));
  const bad = new Set((d.parseErrors ?? []).map((e) => /^(.*:\d+:\d+): parse error \(the match rests/.exec(e)?.[1]).filter(Boolean));
  const missing = sg.filter((m) => {
    const k = key(m.file, m.range.start.line + 1, m.range.start.column + 1);
    return !tg.has(k) && !skipped.has(m.file) && !bad.has(k.replace(/^src\//, ""));
  });
  const sgFiles = new Set(sg.map((m) => m.file)).size;
  log(
    `  matches: ast-grep ${sg.length} in ${sgFiles} files; tollgate ${d.totalReplacements} in ${d.filesTouched} files (searched ${d.filesSearched}, ${skipped.size} skipped, ${bad.size} resting on syntax errors)`,
  );
  if (missing.length) {
    log(
      `  ✗ ast-grep matches tollgate misses: ${missing
        .slice(0, 10)
        .map((m) => key(m.file, m.range.start.line + 1, m.range.start.column + 1))
        .join(", ")}`,
    );
    notes.push(`${missing.length} ast-grep matches missing from tollgate's`);
  } else log("  every ast-grep match found ✓");
  return { astGrep: sg.length, tollgate: d.totalReplacements, missing: missing.length };
}

/**
 * `tree`: the directory to copy as `src/`; `lang`: tollgate's and ast-grep's language name;
 * `pat`/`out`: the rewrite; `needles`: the floor's plain substrings; `maxOverhead`: the target.
 */
export function onePatternCase({ label, tree, lang, pat, out, needles, maxOverhead }) {
  const recipe = recipeOf(pat, out, lang);
  const { n, bytes } = countFiles(tree);
  log(`  corpus: ${label} — ${n} files, ${(bytes / 1e6).toFixed(1)} MB; ${pat} → ${out}`);
  const ws = workspace({ src: tree }, { "recipe.yaml": recipe });
  const small = workspace({}, { "recipe.yaml": recipe });
  const smallFile = oneSmallFile(tree, lang, needles, small);
  const paths = needleFiles(path.join(ws, "src"), lang, needles);
  log(`  floor: findInFiles over ${paths.length} files holding ${needles.map((x) => JSON.stringify(x)).join(" or ")}; one file: ${smallFile}`);
  const floor = floorRun(lang, paths, [pat]);
  const notes = [];
  const dry = (dir) => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(dir, "report.json")], dir);
  try {
    const first = dry(ws);
    if (first.status !== 0) throw new Error(`tollgate dry-run failed (exit ${first.status}): ${first.stderr}`);
    const matches = compareMatches(ws, pat, lang, path.join(ws, "report.json"), notes);
    const s = sideBySide(RUNS, "dry-run", {
      peer: () => astGrep(["run", "-p", pat, "-r", out, "-l", lang, "src"], ws),
      tollgate: () => dry(ws),
      floor: floor.run,
      one: () => dry(small),
    });
    return {
      rows: [row(`dry-run, ${label}`, summarize(s.a, s.b, s), { maxOverhead })],
      results: { matches, floorFiles: paths.length, oneFile: smallFile },
      notes,
    };
  } finally {
    floor.dispose();
    removeWorkspace(ws);
    removeWorkspace(small);
  }
}
