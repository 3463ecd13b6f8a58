// The checks the structural tools share, for their own `check`: the language is supported and
// every pattern parses for it (no file is read), and, when asked, that `path`/`glob` find
// something now. Never writes.
import { ToolError } from "../errors.js";
import type { CheckIssue, CheckOptions } from "../domain/types.js";
import { discoverFiles } from "../discovery/index.js";
import { ensureLanguages, loadNapi, resolveLang } from "./ast/langs.js";
import { validatePattern } from "./ast/search.js";
import { pathHint } from "../util/path-hint.js";
import { messageOf } from "../util/thrown.js";

/** A step's pattern and where it is inside the step's `with`. */
interface PlacedPattern {
  pat: string;
  at: Array<string | number>;
}

interface AstParams {
  lang?: string | undefined;
  sel?: string | undefined;
  path?: string | undefined;
  glob?: string | undefined;
}

/** `["ops", 0, "pat"]` as messages spell it: `ops[0].pat`. */
const spelled = (at: ReadonlyArray<string | number>): string => at.join(".").replace(/\.(\d+)/g, "[$1]");

/**
 * The language and the patterns, when `lang` is given. Without it the language comes from the
 * files found when the step runs, and so does the patterns' check.
 */
async function patternIssues(params: AstParams, patterns: readonly PlacedPattern[]): Promise<CheckIssue[]> {
  if (typeof params.lang !== "string" || params.lang.trim() === "") return [];
  let lang: string;
  try {
    lang = resolveLang(params.lang).id;
  } catch (err) {
    return [{ at: ["lang"], message: messageOf(err) }];
  }
  const napi = await loadNapi();
  ensureLanguages(napi, [lang]);
  const issues: CheckIssue[] = [];
  for (const { pat, at } of patterns) {
    try {
      const warning = validatePattern(napi, lang, pat, params.sel, spelled(at));
      if (warning) issues.push({ at, message: warning, warning: true });
    } catch (err) {
      issues.push({ at, message: messageOf(err) });
    }
  }
  return issues;
}

/** `path` (or `glob`) finds the files it names under the workspace root now. */
async function pathIssues(params: AstParams, root: string): Promise<CheckIssue[]> {
  try {
    await discoverFiles({ root, path: params.path, glob: params.glob });
    return [];
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    const message = err.message.startsWith("Path not found") ? `${err.message}; ${pathHint(root)}` : err.message;
    return [{ at: [params.path === undefined ? "glob" : "path"], message }];
  }
}

/** The `check` of a structural tool whose patterns `patternsOf` lists. */
export function astCheck<P extends AstParams>(
  root: string,
  patternsOf: (params: P) => PlacedPattern[],
): (params: P, options: CheckOptions) => Promise<CheckIssue[]> {
  return async (params, options) => [...(await patternIssues(params, patternsOf(params))), ...(options.paths ? await pathIssues(params, root) : [])];
}
