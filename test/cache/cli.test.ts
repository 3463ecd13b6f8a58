import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

const ENTRIES = "tollgate-results";

/** Three structural steps over TypeScript and JavaScript: ast_grep, ast_edit, ast_scan (a plain-pattern rule and a relational one). */
const RECIPE = `version: 1
steps:
  - id: find
    tool: ast_grep
    with: { pat: ["Object.keys($A)"], lang: ts }
  - id: edit
    tool: ast_edit
    with:
      ops:
        - { pat: "$A === undefined", out: "$A == null" }
        - { pat: "new Error($M)", out: "new TypeError($M)" }
      lang: ts
  - id: edit-js
    tool: ast_edit
    with: { ops: [{ pat: "$A === null", out: "$A == null" }, { pat: "$A.length === 0", out: "!$A.length" }], lang: js }
  - id: scan
    tool: ast_scan
    with: { rules: [rules.yml] }
`;
const RULES = `id: is-array
language: TypeScript
severity: error
message: Array.isArray($A)
rule: { pattern: "Array.isArray($A)" }
fix: "globalThis.Array.isArray($A)"
---
id: throw-in-function
language: TypeScript
severity: warning
message: throws $E
rule:
  pattern: throw $E
  inside: { kind: function_declaration, stopBy: end }
---
id: js-typeof
language: JavaScript
severity: error
rule: { pattern: "typeof $X === $T" }
fix: "typeof $X == $T"
`;

/** A workspace holding real code: ajv's TypeScript sources and yaml's built JavaScript. */
async function corpus(): Promise<string> {
  const dir = await testdir({ "recipe.yaml": RECIPE, "rules.yml": RULES });
  cpSync(path.join(REPO_ROOT, "node_modules/ajv/lib"), path.join(dir, "ts"), { recursive: true, filter: (f) => !f.endsWith(".d.ts") });
  cpSync(path.join(REPO_ROOT, "node_modules/yaml/dist/compose"), path.join(dir, "js"), { recursive: true, filter: (f) => !f.endsWith(".d.ts") });
  return dir;
}

const codeFiles = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /^(ts|js)\//.test(f) && /\.(ts|js)$/.test(f)).sort();

interface Run {
  code: number;
  stderr: string;
  outcomes: unknown;
  steps: unknown;
  patch: string;
  sarif: unknown;
}

/** A check run's observable answer: outcomes, step results, patch, SARIF results and exit code. */
async function check(dir: string, out: string, extra: string[], env: Record<string, string>, recipe = "recipe.yaml"): Promise<Run> {
  await mkdir(out, { recursive: true });
  const r = await tollgate(
    ["run", recipe, "--check", "--report", path.join(out, "r.json"), "--patch", path.join(out, "p.patch"), "--sarif", path.join(out, "s.sarif"), ...extra],
    { cwd: dir, env },
  );
  if (!existsSync(path.join(out, "r.json"))) throw new Error(`no report (exit ${r.code}): ${r.stderr}`);
  const report = JSON.parse(await readFile(path.join(out, "r.json"), "utf8")) as {
    outcomes: Array<Record<string, unknown>>;
    steps: Array<{ id: string; status: string; resultText: string; details: unknown }>;
  };
  return {
    code: r.code ?? -1,
    stderr: r.stderr,
    outcomes: report.outcomes.map((o) => ({
      id: o.id,
      label: o.label,
      fingerprint: o.fingerprint,
      decision: o.decision,
      outcome: o.outcome,
      files: o.files,
      diff: o.diff,
    })),
    steps: report.steps.map((s) => ({ id: s.id, status: s.status, resultText: s.resultText, details: s.details })),
    patch: existsSync(path.join(out, "p.patch")) ? await readFile(path.join(out, "p.patch"), "utf8") : "",
    sarif: (JSON.parse(await readFile(path.join(out, "s.sarif"), "utf8")) as { runs: Array<{ results: unknown }> }).runs.map((run) => run.results),
  };
}

const same = (warm: Run, cold: Run, what: string) => {
  expect(warm.code, what).toBe(cold.code);
  expect(warm.outcomes, what).toEqual(cold.outcomes);
  expect(warm.steps, what).toEqual(cold.steps);
  expect(warm.patch, what).toBe(cold.patch);
  expect(warm.sarif, what).toEqual(cold.sarif);
};

/** A deterministic generator (mulberry32) from a fixed start: the same edits on every run of the test. */
function random(start: number): () => number {
  let a = start;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SNIPPETS = [
  'if (x === undefined) throw new Error("gone")',
  "const k = Object.keys(o)",
  "Array.isArray(v)",
  'typeof q === "string"',
  "function f() { throw new Error(1) }",
  "let broken = (",
  "}",
];

/** One random edit of a file: a line gained (often a match, sometimes a syntax error), lost or duplicated. */
function editFile(file: string, rnd: () => number): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const at = Math.floor(rnd() * lines.length);
  const kind = rnd();
  if (kind < 0.5) lines.splice(at, 0, SNIPPETS[Math.floor(rnd() * SNIPPETS.length)]!);
  else if (kind < 0.8) lines.splice(at, 1);
  else lines.splice(at, 0, lines[at] ?? "");
  writeFileSync(file, lines.join("\n"));
}

const inodes = (loc: string) => Object.fromEntries(readdirSync(path.join(loc, ENTRIES)).map((n) => [n, statSync(path.join(loc, ENTRIES, n)).ino]));

describe("result cache (CLI)", () => {
  it("a warm run's outcomes, patch, SARIF and exit code equal a cold run's, over random edits of real code", async () => {
    const dir = await corpus();
    const state = await testdir();
    const loc = path.join(state, "cache");
    const env = { XDG_STATE_HOME: path.join(state, "state") };
    const cache = ["--cache", "--cache-location", loc];
    const out = (name: string) => path.join(state, name);
    const filled = await check(dir, out("fill"), cache, env);
    const cold = await check(dir, out("cold0"), [], env);
    same(filled, cold, "filling run");
    expect(cold.code).toBe(1);
    expect((cold.outcomes as unknown[]).length).toBeGreaterThan(2);
    expect(readFileSync(path.join(state, "state/tollgate/cache.key"), "utf8")).toMatch(/^[0-9a-f]{64}$/);
    // Unchanged tree: every answer comes from the cache (no entry is written again).
    const before = inodes(loc);
    same(await check(dir, out("warm0"), cache, env), cold, "unchanged tree");
    expect(inodes(loc)).toEqual(before);
    const files = codeFiles(dir);
    const rnd = random(20251202);
    const rounds = 5;
    let edits = 0;
    for (let round = 1; round <= rounds; round++) {
      const count = 1 + Math.floor(rnd() * 8);
      for (let k = 0; k < count; k++) editFile(path.join(dir, files[Math.floor(rnd() * files.length)]!), rnd);
      edits += count;
      const warm = await check(dir, out(`warm${round}`), cache, env);
      same(warm, await check(dir, out(`cold${round}`), [], env), `round ${round}`);
      expect(warm.stderr).not.toContain("result cache");
    }
    expect(edits).toBeGreaterThanOrEqual(rounds);
  }, 120_000);

  it("changing one op's `out` leaves no stale answer (its captures are part of the key)", async () => {
    const dir = await testdir({ "a.ts": "foo(1, 2);\nfoo(x, y);\n" });
    const recipe = (out: string) =>
      `version: 1\nsteps:\n  - id: e\n    tool: ast_edit\n    with: { ops: [{ pat: "foo($A, $B)", out: ${JSON.stringify(out)} }] }\n`;
    const state = await testdir();
    const cache = ["--cache", "--cache-location", path.join(state, "cache")];
    const env = { XDG_STATE_HOME: state };
    await writeFile(path.join(dir, "one.yaml"), recipe("bar($A)"));
    await writeFile(path.join(dir, "two.yaml"), recipe("bar($B, $A)"));
    const first = await check(dir, path.join(state, "1"), cache, env, "one.yaml");
    expect(first.patch).toContain("+bar(1);");
    const warm = await check(dir, path.join(state, "2"), cache, env, "two.yaml");
    same(warm, await check(dir, path.join(state, "3"), [], env, "two.yaml"), "other out");
    expect(warm.patch).toContain("+bar(2, 1);");
  });

  it("forged, truncated and foreign-key entries are misses with one warning: --check still fails on the violating file", async () => {
    const dir = await testdir({ "a.ts": "if (Array.isArray(v)) throw new Error(x === undefined);\n", "recipe.yaml": RECIPE, "rules.yml": RULES });
    const state = await testdir();
    const loc = path.join(state, "cache");
    const cache = ["--cache", "--cache-location", loc];
    const env = { XDG_STATE_HOME: state };
    const cold = await check(dir, path.join(state, "cold"), [], env);
    expect(cold.code).toBe(1);
    type Span = { start: number };
    type Staged = { edits: Array<[number, number]>; diff: string };
    type Planned = { edits: Span[]; pairs: string };
    type Value = { matches: Span[] } | Array<{ good: Span[] }> | Staged | Planned;
    const shift = (spans: Span[]) => spans.map((m) => ({ ...m, start: m.start + 1 }));
    const isStaged = (v: Value): v is Staged => "diff" in v;
    const isPlanned = (v: Value): v is Planned => "pairs" in v;
    /** Every entry line of a pack (`<id> <mac> <ranges> <value>`) with its value changed and its MAC kept. */
    const eachValue = (raw: string, change: (v: Value) => Value) =>
      raw
        .split("\n")
        .map((l, i) => (i === 0 || l === "" ? l : `${l.slice(0, 195)}${JSON.stringify(change(JSON.parse(l.slice(195)) as Value))}`))
        .join("\n");
    const forgeries: Record<string, (raw: string) => string> = {
      // "nothing" in place of the file's matches (the MAC no longer verifies).
      // (A staged diff: an empty one; a plan: no edits.)
      nothing: (raw) =>
        eachValue(raw, (v) =>
          Array.isArray(v)
            ? v.map(() => ({ good: [], bad: [] }))
            : isStaged(v)
              ? { ...v, diff: "" }
              : isPlanned(v)
                ? { ...v, edits: [] }
                : { ...v, matches: [] },
        ),
      // A range moved by one character: an edit there would be wrong.
      range: (raw) =>
        eachValue(raw, (v) =>
          Array.isArray(v)
            ? v.map((r) => ({ ...r, good: shift(r.good) }))
            : isStaged(v)
              ? { ...v, edits: v.edits.map(([a, b]): [number, number] => [a + 1, b]) }
              : isPlanned(v)
                ? { ...v, edits: shift(v.edits) }
                : { ...v, matches: shift(v.matches) },
        ),
      truncated: (raw) => raw.slice(0, raw.length - 9),
    };
    for (const [name, forge] of Object.entries(forgeries)) {
      await check(dir, path.join(state, `fill-${name}`), cache, env);
      const names = readdirSync(path.join(loc, ENTRIES)).filter((n) => n.endsWith(".pack"));
      expect(names.length, name).toBeGreaterThanOrEqual(3);
      for (const n of names) {
        const file = path.join(loc, ENTRIES, n);
        writeFileSync(file, forge(readFileSync(file, "utf8")));
      }
      const warm = await check(dir, path.join(state, `warm-${name}`), cache, env);
      same(warm, cold, name);
      expect(warm.stderr.match(/result cache: /g), name).toHaveLength(1);
    }
    // Entries signed under another key (another machine's, or a stolen cache without the secret).
    await check(dir, path.join(state, "other-key"), cache, { ...env, TOLLGATE_CACHE_KEY: "someone else's secret" });
    const warm = await check(dir, path.join(state, "mine"), cache, { ...env, TOLLGATE_CACHE_KEY: "our secret" });
    same(warm, cold, "foreign key");
    expect(warm.stderr).toMatch(/result cache: .*MAC does not verify/);
    expect(warm.stderr.match(/result cache: /g)).toHaveLength(1);
  });

  it("lives in node_modules/.cache/tollgate/ where node_modules/ exists, else under XDG_CACHE_HOME; --cache-location src deletes no source file", async () => {
    const withModules = await testdir({ "node_modules/.keep": "", "a.ts": "x === undefined;\n", "recipe.yaml": RECIPE, "rules.yml": RULES });
    const state = await testdir();
    const env = { XDG_STATE_HOME: path.join(state, "state"), XDG_CACHE_HOME: path.join(state, "xdg") };
    await check(withModules, path.join(state, "1"), ["--cache"], env);
    expect(readdirSync(path.join(withModules, "node_modules/.cache/tollgate", ENTRIES)).length).toBeGreaterThan(0);
    const bare = await testdir({ "a.ts": "x === undefined;\n", "recipe.yaml": RECIPE, "rules.yml": RULES });
    await check(bare, path.join(state, "2a"), [], env);
    const listing = readdirSync(bare, { recursive: true }).sort();
    await check(bare, path.join(state, "2"), ["--cache"], env);
    const [hashDir] = readdirSync(path.join(state, "xdg/tollgate"));
    expect(hashDir).toMatch(/^[0-9a-f]{16}$/);
    expect(readdirSync(path.join(state, "xdg/tollgate", hashDir!, ENTRIES)).length).toBeGreaterThan(0);
    // Nothing of the cache in the tree.
    expect(readdirSync(bare, { recursive: true }).sort()).toEqual(listing);
    const src = await testdir({ "src/a.ts": "x === undefined;\n", "src/notes.entry": "mine\n", "recipe.yaml": RECIPE, "rules.yml": RULES });
    const cold = await check(src, path.join(state, "3"), [], env);
    same(await check(src, path.join(state, "4"), ["--cache", "--cache-location", "src"], env), cold, "cache in src");
    same(await check(src, path.join(state, "5"), ["--cache", "--cache-location", "src"], env), cold, "cache in src, warm");
    expect(readFileSync(path.join(src, "src/a.ts"), "utf8")).toBe("x === undefined;\n");
    expect(readFileSync(path.join(src, "src/notes.entry"), "utf8")).toBe("mine\n");
  });
  it("runs at once share a location safely, and apply with --cache writes what apply without it writes", async () => {
    const files = {
      "a.ts": "if (a === undefined) throw new Error(1);\n",
      "b.ts": "const k = Object.keys(o);\nArray.isArray(k);\n",
      "recipe.yaml": RECIPE,
      "rules.yml": RULES,
    };
    const state = await testdir();
    const loc = path.join(state, "cache");
    const cache = ["--cache", "--cache-location", loc];
    const env = { XDG_STATE_HOME: state };
    const dir = await testdir(files);
    const cold = await check(dir, path.join(state, "cold"), [], env);
    const runs = await Promise.all([1, 2, 3].map((i) => check(dir, path.join(state, `at-once-${i}`), cache, env)));
    for (const [i, r] of runs.entries()) same(r, cold, `run ${i + 1} of 3 at once`);
    expect(readdirSync(path.join(loc, ENTRIES)).filter((n) => !n.endsWith(".pack"))).toEqual([]);
    const applied: Record<string, string> = {};
    for (const [name, extra] of [
      ["plain", []],
      ["cached", cache],
    ] as const) {
      const ws = await testdir(files);
      const plan = await tollgate(["plan", "recipe.yaml", "--out", "plan.json", ...extra], { cwd: ws, env });
      const apply = await tollgate(["apply", "plan.json", "--approve-all", ...extra], { cwd: ws, env });
      applied[name] = [plan.code, apply.code, ...["a.ts", "b.ts"].map((f) => readFileSync(path.join(ws, f), "utf8"))].join("\n--\n");
    }
    expect(applied.cached).toBe(applied.plain);
    expect(applied.plain).toContain("a == null");
  });
});
