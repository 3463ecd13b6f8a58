/**
 * `--changed-since REF`: the run's files narrowed to those changed since `git merge-base REF
 * HEAD`, unless the recipe itself changed. A new or edited rule must see the whole tree, so when
 * the recipe, the policy, or any rule, util, transform or custom tool file the recipe uses is
 * among the changed paths, every file is in scope (and the change set is still recorded).
 */
import path from "node:path";
import { InputError } from "../errors.js";
import { changedSince, ChangedSinceError, type ChangeSet } from "../git.js";
import type { ChangedScope } from "../scope.js";
import { realOf, recipeInputs, type RecipeInput, type RecipeSource } from "./inputs.js";
import { relativeInside, toPosix } from "../util/inside.js";
import type { Env } from "../process-host.js";

interface ChangedRequest extends RecipeSource {
  /** The REF given, or the merge-base a plan recorded (then `exact`). */
  ref: string;
  /** true: `ref` is the merge-base itself (apply reusing its plan's), not a ref to merge with HEAD. */
  exact?: boolean;
  /** The environment git runs with (its GIT_DIR); absent: no git variables set. */
  env?: Env | undefined;
}

/** What CI users need to hear when a ref does not resolve (shallow checkouts). */
const CHANGED_SINCE_HINT =
  "hint: --changed-since needs REF and its merge-base with HEAD in the local history. In CI the checkout is often too shallow: fetch the base branch (actions/checkout with `fetch-depth: 0`, or `git fetch --deepen`); for a pull request's merge commit, `fetch-depth: 2` and `--changed-since HEAD^1` compare against the base branch's side.";

/** Resolves `--changed-since` into the run's changed scope; an unresolvable REF is an InputError (exit 2) with a hint. */
export async function resolveChangedScope(req: ChangedRequest): Promise<ChangedScope> {
  let set: ChangeSet;
  try {
    set = await changedSince(req.cwd, req.ref, { exact: req.exact === true, env: req.env ?? {} });
  } catch (err) {
    if (err instanceof ChangedSinceError) throw new InputError([{ message: err.message }, { message: CHANGED_SINCE_HINT }]);
    throw err;
  }
  const root = realOf(req.cwd);
  const files: string[] = [];
  const changedAbs: string[] = [];
  for (const p of set.paths) {
    const abs = path.join(set.top, p.path);
    changedAbs.push(abs);
    if (p.deleted) continue;
    const rel = relativeInside(root, abs);
    if (rel !== undefined) files.push(rel);
  }
  const inputs = await recipeInputs(req);
  const hit = changedAbs.filter((abs) => inputs.some((i) => covers(i, abs)));
  const shown = (abs: string) => toPosix(path.relative(root, abs)) || ".";
  return {
    ref: req.ref,
    base: set.base,
    files: hit.length > 0 ? null : [...new Set(files)].sort(),
    ...(hit.length > 0 ? { inputs: [...new Set(hit.map(shown))].sort() } : {}),
  };
}

function covers(input: RecipeInput, abs: string): boolean {
  if (input.match) return input.match(abs);
  if (abs === input.path) return true;
  return input.tree === true && abs.startsWith(input.path + path.sep);
}
