import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/testdir.js";

const SRC = path.join(REPO_ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [abs] : [];
  });
}

// Every module edge, type-only imports and lazy `import()` included: the structure, not only
// what loads at run time, must be acyclic.
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']|(?:^|[\s;])import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;

export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
    const deps: string[] = [];
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (!spec.startsWith(".")) continue;
      deps.push(path.relative(SRC, path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts"))));
    }
    graph.set(path.relative(SRC, file), deps);
  }
  return graph;
}

/** Strongly connected components with more than one module (or a self-import): the cycles. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("module structure", () => {
  it("finds a cycle when there is one (the checker itself)", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(cyclesOf(g)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("src/ has no import cycles (type-only and lazy imports included)", () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(cyclesOf(graph)).toEqual([]);
  });

  it("every relative import names a module that exists", () => {
    const graph = importGraph();
    const missing = [...graph].flatMap(([file, deps]) => deps.filter((d) => !graph.has(d)).map((d) => `${file} -> ${d}`));
    expect(missing).toEqual([]);
  });

  it("folders form layers: the folder-level graph has no cycle either (docs/internals.md's Layout)", () => {
    const folders = new Map<string, string[]>();
    const folderOf = (file: string) => (file.includes("/") ? file.split("/")[0]! : file);
    for (const [file, deps] of importGraph()) {
      const from = folderOf(file);
      const list = folders.get(from) ?? [];
      for (const d of deps) if (folderOf(d) !== from) list.push(folderOf(d));
      folders.set(from, list);
    }
    expect(cyclesOf(folders)).toEqual([]);
  });

  it("lower layers never import the CLI, and report/github/shard/session/workspace/tools never import the runner", () => {
    const graph = importGraph();
    const bad = [...graph].flatMap(([file, deps]) =>
      deps
        .filter(
          (d) =>
            (!file.startsWith("cli/") && d.startsWith("cli/")) || (/^(report|github|shard|session|workspace|tools)\//.test(file) && d.startsWith("runner/")),
        )
        .map((d) => `${file} -> ${d}`),
    );
    expect(bad).toEqual([]);
  });
});
