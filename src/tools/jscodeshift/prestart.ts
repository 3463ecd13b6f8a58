/**
 * A `jscodeshift` step's first worker, started before tollgate has loaded the rest of itself
 * (SPEC 9.1 S6). A worker needs a Node start-up and jscodeshift's own loading (recast, Babel's
 * parser, ast-types) before it can take a file; started only when the step's transform is
 * checked, that waits until tollgate's runner, tools and recipe are loaded, with a CPU idle.
 *
 * Contract: a recipe whose text names the tool (`tool: jscodeshift`) gets one worker started
 * in the workspace root, unref'd (it never keeps tollgate alive, and is killed when tollgate
 * exits); the step's check adopts it (./pool.ts). A recipe that only seems to use the tool, or
 * whose step is refused, costs one idle worker's start-up. Nothing is loaded for other recipes
 * but this module.
 */
import { readFileSync } from "node:fs";

// `tool: jscodeshift` in block or flow style, quoted or not (YAML or JSON).
const NAMES_TOOL = /\btool["']?\s*:\s*["']?jscodeshift["']?\s*(?:[,}#]|$)/m;
const MAX_RECIPE_BYTES = 1024 * 1024;

export async function prestartFor(recipePath: string, cwd: string): Promise<void> {
  let text: string;
  try {
    const bytes = readFileSync(recipePath);
    if (bytes.byteLength > MAX_RECIPE_BYTES) return;
    text = bytes.toString("utf8");
  } catch {
    return; // the recipe's own loading reports it
  }
  if (!NAMES_TOOL.test(text)) return;
  try {
    const { sharedPool } = await import("./pool.js");
    sharedPool().prestart(cwd);
  } catch {
    // jscodeshift not resolvable here: the step's check says so
  }
}
