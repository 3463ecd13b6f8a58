// Diff scaling: a change of every line of one file at 2k/4k/8k/12k lines, through the
// built workspace diff (npm run build first). Near-linear since the diff's work is bounded.
// Run: node bench/diff-scaling.mjs
const mod = await import(process.argv[2] ?? new URL("../dist/workspace/diff.js", import.meta.url).href);
for (const n of [2000, 4000, 8000, 12000]) {
  const before = Array.from({ length: n }, (_, i) => `const value${i} = compute(${i}, "some text here");`).join("\n") + "\n";
  const after = Array.from({ length: n }, (_, i) => `let other${i} = different(${i * 7}, 'more words');`).join("\n") + "\n";
  const t = Date.now();
  const d = mod.fileDiff({ path: "a.ts", before, after });
  const ms = Date.now() - t;
  console.log(`${n} lines (${(before.length / 1024).toFixed(0)} KB): ${ms} ms, ${d.text.length} chars of diff, +${d.additions} -${d.deletions}`);
}
