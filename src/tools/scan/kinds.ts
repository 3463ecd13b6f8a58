/**
 * ast-grep's MissPotentialKinds check (crates/config/src/rule_config.rs): `ast-grep scan`
 * refuses a rule whose top-level `rule` cannot say which node kinds it may match ("Rule must
 * specify a set of AST kinds to match. Try adding `kind` rule."). Whether a rule has a known
 * kind set, following each matcher's potential_kinds:
 * - `kind` has one; a pattern has one unless it is a lone metavariable (`$A`, no selector) or
 *   its strictness is `template`; `regex`, `range`, `not` and the relational rules have none;
 *   `nthChild` has its `ofRule`'s;
 * - `all` (and a rule object's several keys, which are an `all`) has one when any part has;
 *   `any` only when every branch has; `matches` has its util's (none for an id a util names
 *   that no util defines).
 * A pattern whose root (as the CLI takes it) is an ERROR node has none either: that needs the
 * parsed pattern, which the caller may pass as `errorRoot`.
 */
import type { RuleObject } from "./types.js";

const LONE_METAVAR = /^\$(?:\$\$?)?[A-Z_][A-Z0-9_]*$/;

/** Whether a pattern's parse has an ERROR node for its root. */
export type ErrorRoot = (pattern: string) => boolean;

const sourceKnown = (src: string, errorRoot: ErrorRoot | undefined) => !LONE_METAVAR.test(src.trim()) && !errorRoot?.(src);

function patternKnown(p: unknown, errorRoot: ErrorRoot | undefined): boolean {
  if (typeof p === "string") return sourceKnown(p, errorRoot);
  if (!p || typeof p !== "object") return true;
  const o = p as { context?: unknown; selector?: unknown; strictness?: unknown };
  if (o.strictness === "template") return false;
  if (typeof o.selector === "string") return true;
  return typeof o.context === "string" ? sourceKnown(o.context, errorRoot) : true;
}

/** Whether `rule` has a set of potential kinds (`utils`: the util rules `matches` can name). */
export function hasPotentialKinds(
  rule: unknown,
  utils: Record<string, RuleObject> | undefined,
  errorRoot?: ErrorRoot,
  seen: ReadonlySet<string> = new Set(),
): boolean {
  if (!rule || typeof rule !== "object") return true;
  const r = rule as RuleObject;
  const parts: boolean[] = [];
  for (const [key, value] of Object.entries(r)) {
    switch (key) {
      case "kind":
        parts.push(true);
        break;
      case "pattern":
        parts.push(patternKnown(value, errorRoot));
        break;
      case "nthChild": {
        const of = value && typeof value === "object" ? (value as { ofRule?: unknown }).ofRule : undefined;
        parts.push(of !== undefined && hasPotentialKinds(of, utils, errorRoot, seen));
        break;
      }
      case "all":
        parts.push(Array.isArray(value) && value.some((sub) => hasPotentialKinds(sub, utils, errorRoot, seen)));
        break;
      case "any":
        parts.push(Array.isArray(value) && value.every((sub) => hasPotentialKinds(sub, utils, errorRoot, seen)));
        break;
      case "matches": {
        const id = String(value);
        // An id the top rule names that does not exist is napi's error to report ("Rule `zz` is
        // not defined"), and a cycle too; one named inside a util is not checked by either,
        // and has no kinds in the CLI (the rule is then refused with MISSING_KINDS).
        const util = utils?.[id];
        if (util === undefined) parts.push(seen.size === 0);
        else parts.push(seen.has(id) || hasPotentialKinds(util, utils, errorRoot, new Set([...seen, id])));
        break;
      }
      default:
        // regex, range, not, inside, has, precedes, follows (and stopBy/field beside them)
        parts.push(false);
    }
  }
  return parts.some(Boolean);
}

export const MISSING_KINDS = "Rule must specify a set of AST kinds to match. Try adding `kind` rule (ast-grep refuses the rule too)";
