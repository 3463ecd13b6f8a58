// What `tollgate validate` can know about a built-in tool's parameters before any step runs:
// the language is supported, every pattern parses for it, the paths exist (after
// --var). A tool without an entry here is checked against its schema only. Never writes.
import { formatIssue, InputError, ToolError } from "../errors.js";
import { discoverFiles } from "../discovery/index.js";
import { ensureLanguages, loadNapi, resolveLang } from "./ast/langs.js";
import { validatePattern } from "./ast/search.js";
import { pathHint } from "../util/path-hint.js";
import { messageOf } from "../util/thrown.js";

export interface PreflightIssue {
  /** Where, inside the step's `with`. */
  at: Array<string | number>;
  message: string;
  /** true: a likely mistake the run accepts (the run warns too); false: the run would fail. */
  warning?: boolean;
}

export type Preflight = (params: Record<string, unknown>, ctx: { cwd: string; recipeDir?: string }) => Promise<PreflightIssue[]>;

async function checkPath(params: Record<string, unknown>, ctx: { cwd: string }): Promise<PreflightIssue[]> {
  if (params.path !== undefined && typeof params.path !== "string") return [];
  try {
    await discoverFiles({ root: ctx.cwd, path: params.path, glob: params.glob as string | undefined });
    return [];
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    const message = err.message.startsWith("Path not found") ? `${err.message}; ${pathHint(ctx.cwd)}` : err.message;
    return [{ at: [params.path === undefined ? "glob" : "path"], message }];
  }
}

type PatternsOf = (params: Record<string, unknown>) => Array<{ pat: string; at: Array<string | number> }>;

/** The language and patterns of an ast tool's step, when its `lang` is given (no file is read). */
function patternCheck(patterns: PatternsOf): (params: Record<string, unknown>) => Promise<PreflightIssue[]> {
  return async (params) => {
    const issues: PreflightIssue[] = [];
    let lang: string | undefined;
    if (typeof params.lang === "string" && params.lang.trim() !== "") {
      try {
        lang = resolveLang(params.lang).id;
      } catch (err) {
        issues.push({ at: ["lang"], message: messageOf(err) });
      }
    }
    // Without `lang` the language comes from the files found at run time: patterns wait for it.
    if (lang) {
      const napi = await loadNapi();
      ensureLanguages(napi, [lang]);
      const sel = typeof params.sel === "string" ? params.sel : undefined;
      for (const { pat, at } of patterns(params)) {
        try {
          const warning = validatePattern(napi, lang, pat, sel, at.join(".").replace(/\.(\d+)/g, "[$1]"));
          if (warning) issues.push({ at, message: warning, warning: true });
        } catch (err) {
          issues.push({ at, message: messageOf(err) });
        }
      }
    }
    return issues;
  };
}

function astPreflight(patterns: PatternsOf): Preflight {
  const check = patternCheck(patterns);
  return async (params, ctx) => [...(await check(params)), ...(await checkPath(params, ctx))];
}

const PATTERNS: Readonly<Record<string, PatternsOf>> = {
  ast_edit: (p) =>
    (Array.isArray(p.ops) ? (p.ops as Array<{ pat?: unknown } | undefined>) : []).flatMap((op, i) =>
      typeof op?.pat === "string" && op.pat.trim() !== "" ? [{ pat: op.pat, at: ["ops", i, "pat"] }] : [],
    ),
  ast_grep: (p) => (Array.isArray(p.pat) ? p.pat : []).flatMap((pat, i) => (typeof pat === "string" && pat.trim() !== "" ? [{ pat, at: ["pat", i] }] : [])),
};

/**
 * ast_scan: the keys its rules hold that ast-grep ignores, as warnings at the step's `config` or
 * `rules` (each message starts with the rule file's place). The rule set's errors are the tool's
 * own check's (exit 2 before this runs).
 */
const scanPreflight: Preflight = async (params, ctx) => {
  const { checkedRuleSet, ruleSetOf } = await import("./ast-scan.js");
  try {
    const set = checkedRuleSet(params) ?? (await ruleSetOf({ cwd: ctx.cwd, recipeDir: ctx.recipeDir ?? ctx.cwd }, params));
    return set.warnings.map((w) => ({ at: [params.config !== undefined ? "config" : "rules"], message: formatIssue(w), warning: true }));
  } catch (err) {
    if (err instanceof InputError) return [];
    throw err;
  }
};

export const PREFLIGHTS: Readonly<Record<string, Preflight>> = {
  ...Object.fromEntries(Object.entries(PATTERNS).map(([tool, of]) => [tool, astPreflight(of)])),
  ast_scan: scanPreflight,
};

/**
 * What `run`, `plan` and `apply` check before a step runs: the language and the
 * patterns only. Paths wait for the step, as an earlier step may create them.
 */
export const PATTERN_CHECKS: Readonly<Record<string, (params: Record<string, unknown>) => Promise<PreflightIssue[]>>> = Object.fromEntries(
  Object.entries(PATTERNS).map(([tool, of]) => [tool, patternCheck(of)]),
);
