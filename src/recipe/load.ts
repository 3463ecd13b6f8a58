import path from "node:path";
import { InputError, type Issue } from "../errors.js";
import type { Tool } from "../domain/types.js";
import { readConfigFile } from "../config/read.js";
import { MAX_STEPS, RecipeSchema, type RecipeFile } from "./schema.js";
import { formatPath, locate, parseYaml, schemaIssues, type LocatedDocument, type PathSeg } from "../config/yaml.js";

type VarValue = string | number | boolean;

export interface RecipeStep {
  id: string;
  tool: string;
  with: Record<string, unknown>;
  timeout?: number;
  index: number;
}

export interface Recipe {
  file: string; // absolute
  dir: string;
  text: string;
  name?: string;
  description?: string;
  resolve: "end" | "step";
  /** Milliseconds an action's apply may take (default 10 minutes). */
  applyTimeout: number;
  /** Milliseconds a custom tool module and its factory may take to load (default 30 s). */
  toolLoadTimeout: number;
  tools: string[]; // absolute module paths
  vars: Record<string, VarValue>;
  steps: RecipeStep[];
  located: LocatedDocument;
}

const DEFAULT_APPLY_TIMEOUT_MS = 10 * 60 * 1000;
export const DEFAULT_TOOL_LOAD_TIMEOUT_MS = 30 * 1000;

/** Reads and checks a recipe's own shape. Step tools and `with` are checked by `checkSteps`. */
export async function readRecipe(file: string, displayName = file): Promise<{ recipe: Omit<Recipe, "steps">; raw: RecipeFile }> {
  return parseRecipe(file, await readConfigFile(file, displayName, "recipe"), displayName);
}

export function parseRecipe(file: string, text: string, displayName = file): { recipe: Omit<Recipe, "steps">; raw: RecipeFile } {
  const { located, issues } = parseYaml(displayName, text);
  if (!located) throw new InputError(issues);
  if (located.value === null || typeof located.value !== "object" || Array.isArray(located.value)) {
    throw new InputError([{ file: displayName, line: 1, col: 1, message: "A recipe must be a YAML mapping with version and steps" }]);
  }
  const steps = (located.value as { steps?: unknown }).steps;
  if (Array.isArray(steps) && steps.length > MAX_STEPS) {
    const message = `${steps.length} steps; a recipe may have at most ${MAX_STEPS} (split it into several recipes)`;
    throw new InputError([{ file: displayName, ...locate(located, ["steps"], true), path: "steps", message }]);
  }
  const shape = schemaIssues(located, RecipeSchema, located.value);
  if (shape.length > 0) throw new InputError(shape);
  const raw = located.value as RecipeFile;
  const abs = path.resolve(file);
  const dir = path.dirname(abs);
  return {
    raw,
    recipe: {
      file: abs,
      dir,
      text,
      ...(raw.name !== undefined ? { name: raw.name } : {}),
      ...(raw.description !== undefined ? { description: raw.description } : {}),
      resolve: raw.resolve ?? "end",
      applyTimeout: raw.applyTimeout ?? DEFAULT_APPLY_TIMEOUT_MS,
      toolLoadTimeout: raw.toolLoadTimeout ?? DEFAULT_TOOL_LOAD_TIMEOUT_MS,
      // The same module named twice (./t.ts, t.ts) is loaded once: duplicates are dropped by resolved path.
      tools: [...new Set((raw.tools ?? []).map((t) => path.resolve(dir, t)))],
      vars: { ...(raw.vars ?? {}) },
      located,
    },
  };
}

const REF = /\$\{\{\s*([^}]*?)\s*\}\}/g;

interface BadRef {
  path: PathSeg[];
  ref: string;
  /** `${{` without its closing `}}` (ref is then the whole string). */
  unterminated?: boolean;
}

/**
 * Substitutes `${{ vars.name }}` in every string of `value`. A string that is exactly one
 * reference takes the variable's own type (a number stays a number).
 */
function interpolate(value: unknown, vars: Record<string, VarValue>, at: PathSeg[], bad: BadRef[]): unknown {
  if (typeof value === "string") {
    const whole = /^\$\{\{\s*([^}]*?)\s*\}\}$/.exec(value);
    const lookup = (expr: string): VarValue | undefined => {
      const m = /^vars\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(expr);
      if (!m || !Object.hasOwn(vars, m[1]!)) {
        bad.push({ path: at, ref: expr });
        return undefined;
      }
      return vars[m[1]!];
    };
    if (whole) return lookup(whole[1]!) ?? value;
    // `${{` that no `}}` closes is a broken reference, not literal text to pass on silently.
    if (value.replace(REF, "").includes("${{")) bad.push({ path: at, ref: value, unterminated: true });
    return value.replace(REF, (all, expr: string) => {
      const v = lookup(expr);
      return v === undefined ? all : String(v);
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, vars, [...at, i], bad));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, vars, [...at, k], bad)]));
  }
  return value;
}

/**
 * Resolves step ids, `${{ }}` references and checks every step against its tool's schema.
 * Returns all problems at once, each with file:line:col.
 */
export function checkSteps(recipe: Omit<Recipe, "steps">, raw: RecipeFile, tools: ReadonlyMap<string, Tool>): { steps: RecipeStep[]; issues: Issue[] } {
  const located = recipe.located;
  const issues: Issue[] = [];
  const at = (p: PathSeg[], message: string, atKey = false): Issue => ({
    file: located.file,
    ...locate(located, p, atKey),
    path: formatPath(p),
    message,
  });
  const ids = new Map<string, number>();
  const steps: RecipeStep[] = [];
  raw.steps.forEach((step, index) => {
    const id = step.id ?? `${index}-${step.tool}`;
    if (ids.has(id)) issues.push(at(["steps", index, "id"], `Duplicate step id "${id}" (also steps[${ids.get(id)}])`));
    else ids.set(id, index);
    const tool = tools.get(step.tool);
    if (!tool) {
      const known = [...tools.keys()].sort().join(", ");
      issues.push(at(["steps", index, "tool"], `Unknown tool "${step.tool}". Available: ${known}`));
      return;
    }
    const bad: BadRef[] = [];
    const params = interpolate(step.with ?? {}, recipe.vars, ["steps", index, "with"], bad) as Record<string, unknown>;
    const defined = Object.keys(recipe.vars).sort().join(", ") || "(none)";
    for (const b of bad) {
      if (b.unterminated) issues.push(at(b.path, `Unterminated reference in ${JSON.stringify(b.ref)}: \${{ needs a closing }}`));
      else if (b.ref === "") issues.push(at(b.path, `Empty reference \${{ }}; defined vars: ${defined}`));
      else issues.push(at(b.path, `Unknown reference \${{ ${b.ref} }}; defined vars: ${defined}`));
    }
    if (bad.length === 0) issues.push(...schemaIssues(located, tool.parameters, params, ["steps", index, "with"]));
    steps.push({ id, tool: step.tool, with: params, index, ...(step.timeout !== undefined ? { timeout: step.timeout } : {}) });
  });
  return { steps, issues };
}

/**
 * `--var k=v` overrides; values stay strings unless the recipe's default is a number/boolean.
 * Only declared vars can be set (a typo must not pass silently, like Terraform's undeclared variable).
 */
export function applyVarOverrides(vars: Record<string, VarValue>, overrides: readonly string[]): Record<string, VarValue> {
  const out = { ...vars };
  const issues: Issue[] = [];
  for (const item of overrides) {
    const eq = item.indexOf("=");
    if (eq <= 0) {
      issues.push({ message: `--var expects name=value, got "${item}"` });
      continue;
    }
    const name = item.slice(0, eq);
    const text = item.slice(eq + 1);
    if (!Object.hasOwn(vars, name)) {
      const defined = Object.keys(vars).sort().join(", ") || "(none)";
      issues.push({ message: `--var ${name}: the recipe defines no variable "${name}"; defined vars: ${defined}` });
      continue;
    }
    const current = out[name];
    if (typeof current === "number" && text.trim() !== "" && Number.isFinite(Number(text))) out[name] = Number(text);
    else if (typeof current === "boolean" && (text === "true" || text === "false")) out[name] = text === "true";
    else out[name] = text;
  }
  if (issues.length > 0) throw new InputError(issues);
  return out;
}
