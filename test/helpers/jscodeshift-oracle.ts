/**
 * The environment the jscodeshift oracles run in: @babel/register's cache off. That cache is one
 * JSON file in the home directory keyed by each compiled file's path, so every temp transform
 * adds an entry for good and every run reads and rewrites the whole file (seconds once it has
 * grown). It changes how fast a transform loads, not what it does.
 */
export const ORACLE_ENV = { BABEL_DISABLE_CACHE: "1" } as const;
