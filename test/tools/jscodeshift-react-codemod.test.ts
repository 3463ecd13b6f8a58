/**
 * Every react-codemod fixture pair through tollgate's `jscodeshift` tool, with the options and
 * parser its own __tests__ use (read by running those test files against a recording
 * `defineTest` / `jest.mock`), compared with the expected output as react-codemod's tests compare
 * (both trimmed). Every output is also compared with jscodeshift's own `applyTransform` (the
 * oracle, run in a child process): a fixture tollgate does not pass must fail there identically
 * (broken upstream under the jscodeshift version used), anything else is a tollgate bug.
 */
import { existsSync } from "node:fs";
import { cp, readFile, readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { cliDefaults } from "../../src/tools/jscodeshift/pool.js";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";
import { ORACLE_ENV } from "../helpers/jscodeshift-oracle.js";
import { makeHost, stagedText } from "./helpers.js";

const require = createRequire(import.meta.url);
const TRANSFORMS = path.join(path.dirname(require.resolve("react-codemod/package.json")), "transforms");
const BABEL_EXTENSIONS = (createRequire(require.resolve("jscodeshift/src/Worker.js"))("@babel/core") as { DEFAULT_EXTENSIONS: string[] }).DEFAULT_EXTENSIONS;
const ORACLE = path.join(REPO_ROOT, "test/tools/fixtures/jscodeshift/apply-transform.cjs");

interface FixtureCase {
  id: string;
  transform: string;
  options: Record<string, unknown>;
  parser: string | undefined;
  input: string;
  output: string;
}

/** Runs one __tests__ file with a recording jest environment; returns its defineTest calls. */
function collect(testFile: string, code: string): FixtureCase[] {
  const cases: FixtureCase[] = [];
  let globalMocks: Record<string, string | undefined> = {};
  let mocks: Record<string, string | undefined> = {};
  const scopes: Array<Array<() => void>> = [[]];
  const mockOf = (p: string, factory: () => { parser?: string }) => {
    const parser = factory().parser;
    return [path.basename(p), parser] as const;
  };
  const jest = {
    mock(p: string, factory: () => { parser?: string }) {
      const [name, parser] = mockOf(p, factory);
      // A jest.mock inside beforeEach applies to the tests of that describe; at top level (hoisted), to all.
      if (running) mocks[name] = parser;
      else globalMocks[name] = parser;
    },
    resetModules() {},
  };
  let running = false;
  const defineTest = (_dir: string, transformName: string, options: Record<string, unknown> | null, prefix?: string, testOptions?: { parser?: string }) => {
    mocks = { ...globalMocks };
    running = true;
    for (const scope of scopes) for (const fn of scope) fn();
    running = false;
    const parser = testOptions?.parser ?? mocks[transformName];
    const name = prefix ?? transformName;
    // jscodeshift 17's defineTest names fixtures by parser (.tsx for tsx); react-codemod's own
    // tests run under its jscodeshift 0.11, whose fixtures are always .js.
    const typed = parser === "ts" || parser === "tsx" ? parser : "js";
    const ext = existsSync(path.join(path.dirname(testFile), "..", "__testfixtures__", `${name}.input.${typed}`)) ? typed : "js";
    cases.push({
      id: `${transformName} ${name}${options ? ` ${JSON.stringify(options)}` : ""}`,
      transform: transformName,
      options: options ?? {},
      parser,
      input: `${name}.input.${ext}`,
      output: `${name}.output.${ext}`,
    });
  };
  const sandboxRequire = Object.assign(
    (id: string) => {
      if (id === "jscodeshift/dist/testUtils") return { defineTest };
      return {};
    },
    { requireActual: () => ({}) },
  );
  const context = vm.createContext({
    require: sandboxRequire,
    __dirname: path.dirname(testFile),
    jest,
    describe: (_name: string, fn: () => void) => {
      scopes.push([]);
      fn();
      scopes.pop();
    },
    beforeEach: (fn: () => void) => scopes[scopes.length - 1]!.push(fn),
    afterEach: () => {},
    it: () => {},
    test: () => {},
    expect: () => ({}),
  });
  vm.runInContext(code, context, { filename: testFile });
  globalMocks = {};
  return cases;
}

async function allCases(): Promise<FixtureCase[]> {
  const dir = path.join(TRANSFORMS, "__tests__");
  const out: FixtureCase[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (!name.endsWith(".js")) continue;
    const file = path.join(dir, name);
    out.push(...collect(file, await readFile(file, "utf8")));
  }
  return out;
}

describe("react-codemod fixtures through the jscodeshift tool", () => {
  it("passes every fixture react-codemod's own tests pass, and matches applyTransform on all", { timeout: 240_000 }, async () => {
    const cases = await allCases();
    expect(cases.length).toBeGreaterThan(150);
    const root = await testdir();
    await cp(path.join(TRANSFORMS, "__testfixtures__"), root, { recursive: true });
    const t = makeHost(root);

    // The oracle: jscodeshift's applyTransform with the options tollgate handed the transform.
    const oracleInput = await Promise.all(
      cases.map(async (c) => ({
        id: c.id,
        file: path.join(TRANSFORMS, `${c.transform}.js`),
        parser: c.parser,
        options: { ...cliDefaults(BABEL_EXTENSIONS), transform: path.join(TRANSFORMS, `${c.transform}.js`), parser: c.parser ?? "babel", ...c.options },
        rel: c.input,
        source: await readFile(path.join(root, c.input), "utf8"),
      })),
    );
    const oracleOut = path.join(await testdir(), "oracle.json");
    // Runs beside tollgate's steps (its own process).
    const oracleRun = execa(process.execPath, [ORACLE, oracleOut], {
      cwd: root,
      env: ORACLE_ENV,
      input: JSON.stringify(oracleInput),
      timeout: 200_000,
    });

    // One step per (transform, parser, options): the tool's unit of work, as one jscodeshift run.
    const groups = new Map<string, FixtureCase[]>();
    for (const c of cases) {
      const key = JSON.stringify([c.transform, c.parser, c.options]);
      groups.set(key, [...(groups.get(key) ?? []), c]);
    }
    const ours = new Map<string, string>();
    for (const group of groups.values()) {
      const first = group[0]!;
      const before = t.actions.length;
      const { details } = await t.call("jscodeshift", {
        transform: path.join(TRANSFORMS, `${first.transform}.js`),
        ...(first.parser ? { parser: first.parser } : {}),
        options: first.options,
        path: group.map((c) => c.input).join(","),
        allowErrors: true,
      });
      const after = new Map((t.actions[before]?.changes ?? []).map((c) => [c.path, stagedText(root, c)!] as const));
      const errors = new Map((details.errors as Array<{ path: string; error: string }>).map((e) => [e.path, e.error] as const));
      const skipped = new Set(details.skipped as string[]);
      for (const c of group) {
        const source = await readFile(path.join(root, c.input), "utf8");
        ours.set(c.id, errors.has(c.input) ? `<error> ${errors.get(c.input)}` : skipped.has(c.input) ? "" : (after.get(c.input) ?? source).trim());
      }
    }

    await oracleRun;
    const theirs = new Map(
      (JSON.parse(await readFile(oracleOut, "utf8")) as Array<{ id: string; output?: string; error?: string }>).map(
        (r) => [r.id, r.error !== undefined ? `<error> ${r.error}` : r.output!] as const,
      ),
    );

    let pass = 0;
    const upstream: string[] = [];
    const mismatches: string[] = [];
    for (const c of cases) {
      const expected = (await readFile(path.join(root, c.output), "utf8")).trim();
      const mine = ours.get(c.id)!;
      if (mine !== theirs.get(c.id)) mismatches.push(c.id);
      if (mine === expected) pass++;
      else upstream.push(c.id);
    }
    process.stderr.write(
      `react-codemod fixtures: ${pass}/${cases.length} pass through tollgate's jscodeshift tool; ${upstream.length} fail identically under jscodeshift's applyTransform (broken upstream):\n${upstream.map((u) => `  - ${u}`).join("\n")}\n`,
    );
    expect(mismatches).toEqual([]);
    expect(pass).toBeGreaterThan(cases.length * 0.8);
  });
});
