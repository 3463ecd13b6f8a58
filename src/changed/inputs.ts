/**
 * The files a recipe reads besides the tree it changes: the recipe and policy files, custom tool
 * modules, ast_scan's sgconfig, rule files and rule/util directories, jscodeshift transforms. A
 * module's local imports are not traced: the directory holding a module counts as its input
 * (unless that directory holds the workspace, where only the module itself counts). Erring on
 * the side of "an input changed" costs a whole-tree run, never a missed file.
 */
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { Type } from "@sinclair/typebox";
import { applyVarOverrides, checkSteps, readRecipe } from "../recipe/load.js";
import type { Tool } from "../domain/types.js";
import { readProjectConfig } from "../tools/scan/rules.js";
import { relativeInside } from "../util/inside.js";

/** The recipe run in a workspace. */
export interface RecipeSource {
  /** Workspace root (`--cwd`). */
  cwd: string;
  recipePath: string;
  policyPath?: string | undefined;
  /** `--var name=value` overrides. */
  vars?: readonly string[];
}

/** A path with its symlinks resolved (git reports real paths); as given below the part that does not exist. */
export function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    return parent === p ? p : path.join(realOf(parent), path.basename(p));
  }
}

/** A path whose change puts every file in scope: the path itself, everything below it (`tree`), or what `match` accepts. */
export interface RecipeInput {
  path: string;
  tree?: boolean;
  match?: (abs: string) => boolean;
}

const GLOB = /[*?[\]{}]/;

/** Every input of the recipe (absolute, real paths). A recipe that does not load yields its own file: the run then reports why. */
export async function recipeInputs(req: RecipeSource): Promise<RecipeInput[]> {
  const root = realOf(req.cwd);
  const inputs: RecipeInput[] = [{ path: realOf(req.recipePath) }];
  if (req.policyPath) inputs.push({ path: realOf(req.policyPath) });
  let steps: Array<{ tool: string; with: Record<string, unknown> }>;
  let recipeDir: string;
  try {
    const { recipe, raw } = await readRecipe(req.recipePath);
    recipe.vars = applyVarOverrides(recipe.vars, req.vars ?? []);
    recipeDir = realOf(path.dirname(path.resolve(req.recipePath)));
    for (const m of recipe.tools) inputs.push(...moduleInputs(realOf(m), root));
    // Every tool accepts anything here: only the step parameters, with their vars substituted, are wanted.
    const anyTool = new Map<string, Tool>(raw.steps.map((s) => [s.tool, { name: s.tool, parameters: Type.Unknown() } as unknown as Tool]));
    steps = checkSteps(recipe, raw, anyTool).steps;
  } catch {
    return inputs;
  }
  for (const step of steps) {
    if (step.tool === "ast_scan") inputs.push(...scanInputs(step.with, recipeDir));
    if (step.tool === "jscodeshift" && typeof step.with.transform === "string") {
      const file = path.resolve(recipeDir, step.with.transform);
      // A package specifier resolves under node_modules, which git does not track.
      if (existsSync(file)) inputs.push(...moduleInputs(realOf(file), root));
    }
  }
  return inputs;
}

/** A code module and the directory holding it (its local imports), unless that directory holds the workspace. */
function moduleInputs(file: string, root: string): RecipeInput[] {
  const dir = path.dirname(file);
  const holdsRoot = root === dir || root.startsWith(dir + path.sep);
  return holdsRoot ? [{ path: file }] : [{ path: file }, { path: dir, tree: true }];
}

/** ast_scan's sgconfig (with its rule and util directories) and its `rules` files, directories and globs. */
function scanInputs(params: Record<string, unknown>, recipeDir: string): RecipeInput[] {
  const out: RecipeInput[] = [];
  if (typeof params.config === "string") {
    const file = path.resolve(recipeDir, params.config);
    out.push({ path: realOf(file) });
    const config = readProjectConfig(file, recipeDir, []);
    for (const d of [...(config?.ruleDirs ?? []), ...(config?.utilDirs ?? [])]) out.push({ path: realOf(d), tree: true });
  }
  for (const entry of Array.isArray(params.rules) ? params.rules : []) {
    if (typeof entry !== "string") continue;
    if (!GLOB.test(entry)) {
      out.push({ path: realOf(path.resolve(recipeDir, entry)), tree: true });
      continue;
    }
    const match = picomatch(entry, { dot: true });
    out.push({
      path: recipeDir,
      match: (abs) => {
        const rel = relativeInside(recipeDir, abs);
        return rel !== undefined && match(rel);
      },
    });
  }
  return out;
}
