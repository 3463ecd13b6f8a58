// A one-pattern case (S2, S5): a tree, one `ast_edit` op, `tollgate run --dry-run` against
// `ast-grep run -p … -r …` side by side, after checking that both find the same matches.
import path from "node:path";
import { readFileSync } from "node:fs";
import { RUNS, alternate, astGrep, astGrepJson, countFiles, log, removeWorkspace, row, summarize, tollgate, workspace } from "./harness.mjs";

/**
 * `tree`: the directory to copy as `src/`; `lang`: tollgate's and ast-grep's language name;
 * `pat`/`out`: the rewrite; `maxRatio`: the dry-run target. Returns a case result.
 */
export function onePatternCase({ label, tree, lang, pat, out, maxRatio }) {
  const recipe = `version: 1
name: bench-one-pattern
steps:
  - tool: ast_edit
    with:
      ops: [{ pat: ${JSON.stringify(pat)}, out: ${JSON.stringify(out)} }]
      lang: ${lang}
      path: src
`;
  const { n, bytes } = countFiles(tree);
  log(`  corpus: ${label} — ${n} files, ${(bytes / 1e6).toFixed(1)} MB; ${pat} → ${out}`);
  const ws = workspace({ src: tree }, { "recipe.yaml": recipe });
  const notes = [];
  const dry = () => tollgate(["run", "recipe.yaml", "--dry-run", "--report", path.join(ws, "report.json")], ws);
  try {
    // Matches first: every ast-grep match must be among tollgate's (files it skips aside).
    const sg = astGrepJson(["run", "-p", pat, "-l", lang, "src"], ws);
    const first = dry();
    if (first.status !== 0) throw new Error(`tollgate dry-run failed (exit ${first.status}): ${first.stderr}`);
    const d = JSON.parse(readFileSync(path.join(ws, "report.json"), "utf8")).steps[0].details;
    const key = (file, line, col) => `${file}:${line}:${col}`;
    const tg = new Set((d.changes ?? []).map((c) => key(c.path, c.line, c.col)));
    const skipped = new Set((d.skipped ?? []).map((s) => s.path));
    const bad = new Set((d.parseErrors ?? []).map((e) => /^(.*:\d+:\d+): parse error \(the match rests/.exec(e)?.[1]).filter(Boolean));
    const missing = sg.filter((m) => {
      const k = key(m.file, m.range.start.line + 1, m.range.start.column + 1);
      return !tg.has(k) && !skipped.has(m.file) && !bad.has(k.replace(/^src\//, ""));
    });
    const sgFiles = new Set(sg.map((m) => m.file)).size;
    log(`  matches: ast-grep ${sg.length} in ${sgFiles} files; tollgate ${d.totalReplacements} in ${d.filesTouched} files (searched ${d.filesSearched}, ${skipped.size} skipped, ${bad.size} resting on syntax errors)`);
    if (missing.length) {
      log(`  ✗ ast-grep matches tollgate misses: ${missing.slice(0, 10).map((m) => key(m.file, m.range.start.line + 1, m.range.start.column + 1)).join(", ")}`);
      notes.push(`${missing.length} ast-grep matches missing from tollgate's`);
    } else log(`  every ast-grep match found ✓`);
    const { a, b } = alternate(RUNS, "dry-run", () => ({ a: astGrep(["run", "-p", pat, "-r", out, "-l", lang, "src"], ws), b: dry() }));
    return {
      rows: [row(`dry-run, ${label}`, summarize(a, b), { maxRatio })],
      results: { matches: { astGrep: sg.length, tollgate: d.totalReplacements, missing: missing.length } },
      notes,
    };
  } finally {
    removeWorkspace(ws);
  }
}
