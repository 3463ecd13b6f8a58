/**
 * What can be known about a `jscodeshift` step before a run (SPEC 3.3, 5 `validate`): the
 * transform module resolves, and it loads and exports a function. It is loaded in a worker
 * process, never called; that worker keeps it for the run's step.
 */
import type { Issue } from "../../errors.js";
import { resolveTransform } from "./resolve.js";

export async function checkTransform(spec: unknown, recipeDir: string, root: string, fileTimeoutMs?: number): Promise<Issue[]> {
  if (typeof spec !== "string") return []; // the schema check has reported it
  let mod;
  try {
    mod = resolveTransform(spec, recipeDir, root);
  } catch (err) {
    return [{ message: (err as Error).message }];
  }
  const { sharedPool } = await import("./pool.js");
  const info = await sharedPool().load(mod, root, typeof fileTimeoutMs === "number" && fileTimeoutMs >= 1 ? fileTimeoutMs : undefined);
  if (!info.ok) return [{ message: `Failed to load jscodeshift transform ${spec}: ${info.error}` }];
  if (!info.isFunction) return [{ message: `jscodeshift transform ${spec} does not export a function (module.exports = fn or export default fn)` }];
  return [];
}
