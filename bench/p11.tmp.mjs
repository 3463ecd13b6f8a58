import napi from "@ast-grep/napi";
import fs from "node:fs"; import path from "node:path"; import os from "node:os";
const root = path.resolve("bench/.corpus/effect-src");
const files = fs.readdirSync(root, {recursive:true}).filter(f=>f.endsWith(".ts")).sort().map(f=>path.join(root,f));
const rule = { rule: { any: [{ pattern: "Effect.map($A, $B)" }, { kind: "ERROR" }] } };
const re = /(?<![\w$])Effect\s*\.\s*map(?![\w$])/;
async function viaAsync(limit) {
  let n = 0; const queue = [];
  for (const f of files) { const b = fs.readFileSync(f); if (!b.includes("Effect") || !re.test(b.toString("latin1"))) continue; queue.push(b.toString()); }
  queue.sort((a,b)=>b.length-a.length);
  let i = 0;
  async function lane() { while (i < queue.length) { const t = queue[i++]; const r = (await napi.parseAsync("TypeScript", t)).root(); for (const x of r.findAll(rule)) if (x.kind() !== "ERROR") n++; } }
  await Promise.all(Array.from({length: limit}, lane));
  return n;
}
async function viaFind() {
  const cand = files.filter(f => { const b = fs.readFileSync(f); return b.includes("Effect") && re.test(b.toString("latin1")); });
  let n = 0;
  await napi.findInFiles("TypeScript", { paths: cand, matcher: rule }, (err, nodes) => { for (const x of nodes) if (x.kind() !== "ERROR") n++; });
  await new Promise(r => setTimeout(r, 0));
  return n;
}
function viaSync() {
  let n = 0;
  for (const f of files) { const b = fs.readFileSync(f); if (!b.includes("Effect") || !re.test(b.toString("latin1"))) continue; const r = napi.parse("TypeScript", b.toString()).root(); for (const x of r.findAll(rule)) if (x.kind() !== "ERROR") n++; }
  return n;
}
for (let k = 0; k < 3; k++) {
  for (const [name, fn] of [["sync", async () => viaSync()], ["async2", () => viaAsync(2)], ["async4", () => viaAsync(4)], ["findInFiles", viaFind]]) {
    const t0 = performance.now(); const n = await fn(); console.log(name, n, (performance.now() - t0) | 0, "load", os.loadavg()[0].toFixed(1));
  }
}
