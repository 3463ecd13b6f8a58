/**
 * Where a `jscodeshift` step's `transform` lives: a module path relative to the
 * recipe, or a package specifier resolved from the workspace root (its node_modules), as
 * `require.resolve` does. Cheap: nothing is loaded here.
 */
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const TRANSFORM_EXTENSIONS = [".js", ".cjs", ".mjs", ".jsx", ".ts", ".tsx", ".es6"];

export interface ResolvedTransform {
  /** Absolute path of the module file. */
  file: string;
  /** Cache key for loaded modules: a changed file is loaded afresh. */
  key: string;
  /** How it was found. */
  via: "path" | "package";
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function keyOf(file: string): string {
  const st = statSync(file);
  return `${file}\0${st.size}\0${st.mtimeMs}`;
}

/** Throws an Error with one clear sentence when the transform cannot be found. */
export function resolveTransform(spec: string, recipeDir: string, root: string): ResolvedTransform {
  const text = spec.trim();
  if (text === "") throw new Error("`transform` must name a module (a path relative to the recipe, or a package specifier)");
  const explicit = text.startsWith("./") || text.startsWith("../") || text === "." || text === ".." || path.isAbsolute(text);
  const local = path.resolve(recipeDir, text);
  const localHit = isFile(local) ? local : TRANSFORM_EXTENSIONS.map((e) => local + e).find(isFile);
  if (localHit) return { file: localHit, key: keyOf(localHit), via: "path" };
  if (explicit) throw new Error(`jscodeshift transform not found: ${text} (relative to the recipe's directory ${recipeDir})`);
  try {
    const file = createRequire(path.join(path.resolve(root), "noop.js")).resolve(text);
    if (!path.isAbsolute(file) || !isFile(file)) throw new Error("not a file");
    return { file, key: keyOf(file), via: "package" };
  } catch {
    throw new Error(
      `jscodeshift transform not found: ${text} (neither a file relative to the recipe's directory nor a package resolvable from the workspace ${root})`,
    );
  }
}
