import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Issue } from "../errors.js";
import { STATE_DIR } from "../util/state-dir.js";

const TESTS_DIR = "__tests__";

/** A recipe and the case folders that test it. */
interface RecipeSuite {
  recipe: string;
  caseDirs: string[];
}

const SKIP = new Set(["node_modules", ".git", STATE_DIR, TESTS_DIR]);
const RECIPE_EXT = /\.ya?ml$/i;

async function isDir(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function subdirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => path.join(dir, e.name))
    .sort();
}

/** A YAML file is taken for a recipe when it has a top-level `steps:` key (policies do not). */
async function isRecipe(file: string): Promise<boolean> {
  const text = await readFile(file, "utf8").catch(() => "");
  return /^steps\s*:/m.test(text);
}

async function recipesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    if (e.isFile() && RECIPE_EXT.test(e.name) && (await isRecipe(path.join(dir, e.name)))) out.push(path.join(dir, e.name));
  }
  return out.sort();
}

const stem = (file: string) => path.basename(file).replace(RECIPE_EXT, "");

/**
 * The cases of each recipe in `dir`. A recipe alone in its folder owns every case under
 * `__tests__/`; when several recipes share a folder each owns `__tests__/<recipe-name>/`.
 * A folder that holds `input/` is always a case, never a recipe's group.
 */
async function suitesOf(dir: string, recipes: string[], display: (p: string) => string): Promise<{ suites: RecipeSuite[]; issues: Issue[] }> {
  const testsDir = path.join(dir, TESTS_DIR);
  const children = await subdirs(testsDir);
  const groups = new Map<string, string>();
  for (const child of children) {
    if (!(await isDir(path.join(child, "input"))) && recipes.some((r) => stem(r) === path.basename(child))) {
      groups.set(path.basename(child), child);
    }
  }
  const suites: RecipeSuite[] = [];
  const issues: Issue[] = [];
  for (const recipe of recipes) {
    const group = groups.get(stem(recipe));
    if (group) suites.push({ recipe, caseDirs: await subdirs(group) });
    else if (recipes.length === 1) suites.push({ recipe, caseDirs: children });
  }
  if (recipes.length > 1) {
    for (const child of children) {
      if (groups.has(path.basename(child))) continue;
      issues.push({
        file: display(child),
        message: `belongs to no recipe: ${recipes.length} recipes share ${display(dir) || "."}, so cases go in ${TESTS_DIR}/<recipe-name>/<case>/ (${recipes.map(stem).join(", ")})`,
      });
    }
  }
  return { suites, issues };
}

async function walk(dir: string, found: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  if (entries.some((e) => e.isDirectory() && e.name === TESTS_DIR)) found.push(dir);
  for (const e of entries) {
    if (e.isDirectory() && !SKIP.has(e.name)) await walk(path.join(dir, e.name), found);
  }
}

/**
 * Finds the recipes to test. A file target is one recipe; a folder target finds every recipe
 * with a `__tests__` folder beneath it (skipping node_modules, .git and fixture trees).
 */
export async function discover(targets: string[], display: (p: string) => string): Promise<{ suites: RecipeSuite[]; issues: Issue[] }> {
  const suites: RecipeSuite[] = [];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  const add = (found: { suites: RecipeSuite[]; issues: Issue[] }) => {
    for (const s of found.suites) {
      if (seen.has(s.recipe)) continue;
      seen.add(s.recipe);
      suites.push(s);
    }
    issues.push(...found.issues);
  };
  for (const target of targets) {
    const abs = path.resolve(target);
    const info = await stat(abs).catch(() => undefined);
    if (!info) {
      issues.push({ file: target, message: "not found" });
    } else if (info.isFile()) {
      const dir = path.dirname(abs);
      const recipes = await recipesIn(dir);
      const found = await suitesOf(dir, recipes.includes(abs) ? recipes : [...recipes, abs].sort(), display);
      const mine = found.suites.find((s) => s.recipe === abs);
      if (!mine || mine.caseDirs.length === 0) {
        issues.push({
          file: target,
          message: `no test cases: add ${display(path.join(dir, TESTS_DIR))}/<case>/input/ (or ${TESTS_DIR}/${stem(abs)}/<case>/ when several recipes share the folder)`,
        });
      } else add({ suites: [mine], issues: [] });
    } else {
      const dirs: string[] = [];
      await walk(abs, dirs);
      for (const dir of dirs.sort()) {
        const recipes = await recipesIn(dir);
        if (recipes.length === 0) {
          issues.push({ file: display(path.join(dir, TESTS_DIR)), message: "no recipe next to this folder (a recipe is a YAML file with steps:)" });
          continue;
        }
        add(await suitesOf(dir, recipes, display));
      }
    }
  }
  return { suites, issues };
}
