/**
 * What can be known about a `jscodeshift` step before a run (`validate`): the
 * transform module resolves, and it loads and exports a function. It is loaded in a worker
 * process, never called; that worker keeps it for the run's step.
 */
import type { Issue } from "../../errors.js";
import { resolveTransform } from "./resolve.js";
import { messageOf } from "../../util/thrown.js";

/**
 * `countFiles` (optional) counts the files the step will transform, while the transform loads:
 * a step over enough files for more workers gets them started now (ready when it runs).
 */
export async function checkTransform(
  spec: unknown,
  recipeDir: string,
  root: string,
  fileTimeoutMs?: number,
  countFiles?: () => Promise<number>,
): Promise<Issue[]> {
  if (typeof spec !== "string") return []; // the schema check has reported it
  let mod;
  try {
    mod = resolveTransform(spec, recipeDir, root);
  } catch (err) {
    return [{ message: messageOf(err) }];
  }
  const { sharedPool, workersFor } = await import("./pool.js");
  const timeout = typeof fileTimeoutMs === "number" && fileTimeoutMs >= 1 ? fileTimeoutMs : undefined;
  const loading = sharedPool().load(mod, root, timeout);
  const counted = countFiles?.().then(
    (n) => {
      if (workersFor(n) > 1) sharedPool().prewarm(mod, root, workersFor(n), timeout);
    },
    () => {},
  );
  const [info] = await Promise.all([loading, counted]);
  if (!info.ok) return [{ message: `Failed to load jscodeshift transform ${spec}: ${info.error}` }];
  if (!info.isFunction) return [{ message: `jscodeshift transform ${spec} does not export a function (module.exports = fn or export default fn)` }];
  return [];
}
