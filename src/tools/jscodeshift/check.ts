/**
 * What can be known about a `jscodeshift` step before a run: the transform module (already
 * resolved) loads and exports a function. It is loaded in a worker process, never called; that
 * worker keeps it for the run's step.
 */
import type { CheckIssue } from "../../domain/types.js";
import type { TransformPool } from "./pool.js";
import type { ResolvedTransform } from "./resolve.js";

/** Workers started early for a step over many files: how many its file count calls for, and that count. */
interface Prewarm {
  workers(files: number): number;
  countFiles(): Promise<number>;
}

export async function checkTransform(
  pool: TransformPool,
  spec: string,
  mod: ResolvedTransform,
  root: string,
  fileTimeoutMs: number | undefined,
  prewarm?: Prewarm,
): Promise<CheckIssue[]> {
  const timeout = typeof fileTimeoutMs === "number" && fileTimeoutMs >= 1 ? fileTimeoutMs : undefined;
  const loading = pool.load(mod, root, timeout);
  const counted = prewarm?.countFiles().then(
    (n) => {
      if (prewarm.workers(n) > 1) pool.prewarm(mod, root, prewarm.workers(n), timeout);
    },
    () => {},
  );
  const [info] = await Promise.all([loading, counted]);
  if (!info.ok) return [{ message: `Failed to load jscodeshift transform ${spec}: ${info.error}` }];
  if (!info.isFunction) return [{ message: `jscodeshift transform ${spec} does not export a function (module.exports = fn or export default fn)` }];
  return [];
}
