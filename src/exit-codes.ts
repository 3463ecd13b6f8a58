/**
 * tollgate's exit codes, one name each. When several apply, the highest of `failure` and
 * `outstanding` wins; `interrupted` overrides them all.
 */
export const EXIT = {
  /** Done, nothing outstanding (a plain `--dry-run` that found changes is done). */
  ok: 0,
  /** Outstanding: an action awaits approval, `--check` found changes, an unfixed error-severity finding, a failed fixture test. */
  outstanding: 1,
  /** Invalid input (CLI usage, recipe, policy, custom tool load, a policy `allow` refusal): nothing ran. */
  input: 2,
  /** A failure during the run: a tool error, a failed, stale or blocked apply, a locked or unrecovered workspace. */
  failure: 3,
  /** Interrupted (SIGINT, SIGTERM, SIGHUP): nothing more applied, the report written. */
  interrupted: 130,
} as const;
