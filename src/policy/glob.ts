import picomatch from "picomatch";
import { messageOf } from "../util/thrown.js";

/**
 * Glob complexity is bounded (never hang). picomatch compiles a glob to a backtracking
 * regex in which every `*` run is a lazy loop: `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b` against a
 * 60-character name takes longer than 30 s, and a repeated extglob with alternatives
 * (`+(a|aa)`) is exponential on its own. Past these bounds a glob is refused with a message;
 * within them the worst case stays small (a few `*` per name, short names).
 */
const MAX_GLOB_LENGTH = 1024;
const MAX_STAR_RUNS = 4;
const MAX_STAR_RUNS_PER_SEGMENT = 3;
const MAX_RANGE = 1000;

/** Why a glob is too complex to match safely, or undefined. */
function globComplexity(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_LENGTH) return `the glob is longer than ${MAX_GLOB_LENGTH} characters`;
  const plain = glob.replace(/\\./g, "x"); // escaped characters are literals
  let total = 0;
  for (const seg of plain.split("/")) {
    const runs = (seg.match(/\*+/g) ?? []).length;
    if (runs > MAX_STAR_RUNS_PER_SEGMENT) {
      return `too many wildcards: ${runs} "*" in one path segment (${JSON.stringify(seg)}; at most ${MAX_STAR_RUNS_PER_SEGMENT})`;
    }
    total += runs;
  }
  if (total > MAX_STAR_RUNS) return `too many wildcards: ${total} "*"/"**" (at most ${MAX_STAR_RUNS})`;
  if (/[*+]\([^)]*\|/.test(plain)) return "a repeated extglob with alternatives (*(a|b), +(a|b)) can take exponential time";
  if (/[*+?@!]\([^)]*[*+?@!]\(/.test(plain)) return "nested extglobs can take exponential time";
  for (const m of plain.matchAll(/\{(-?\d+)\.\.(-?\d+)/g)) {
    if (Math.abs(Number(m[2]) - Number(m[1])) > MAX_RANGE) return `the range {${m[1]}..${m[2]}} spans more than ${MAX_RANGE} values`;
  }
  return undefined;
}

/** Throws for a glob past the complexity bounds (the message names the glob). */
export function assertGlobBounded(glob: string): void {
  const why = globComplexity(glob);
  if (why) throw new Error(`Glob ${JSON.stringify(glob.length > 80 ? `${glob.slice(0, 80)}…` : glob)} is refused: ${why}`);
}

/** One matcher for the globs users write in policies and recipes (dotfiles included). */
export function globMatcher(globs: string | readonly string[], options: { nocase?: boolean } = {}): (path: string) => boolean {
  const list = typeof globs === "string" ? [globs] : [...globs];
  if (list.length === 0) return () => false;
  for (const g of list) assertGlobBounded(g);
  return picomatch(list, { dot: true, ...(options.nocase ? { nocase: true } : {}) });
}

/** Throws picomatch's own error for a malformed glob, or says why it is too complex; used by validation. */
export function checkGlob(glob: string): string | undefined {
  const complex = globComplexity(glob);
  if (complex) return complex;
  try {
    picomatch.makeRe(glob, { dot: true, strictBrackets: true });
    return undefined;
  } catch (err) {
    return messageOf(err);
  }
}

/** Stands in for "/" so that picomatch, which is path-aware, treats it as an ordinary character. */
const SLASH = "\uE000";

/**
 * A glob over free text (policy `tool`, `step`, `label`): `*` matches any run of characters,
 * "/" included. A label such as `Write: create src/new.ts` names paths, and `Write: *` must
 * match it; path-aware matching would stop `*` at the first "/".
 */
export function textGlobMatcher(glob: string): (text: string) => boolean {
  assertGlobBounded(glob);
  const matcher = picomatch(glob.split("/").join(SLASH), { dot: true });
  return (text) => matcher(text.split("/").join(SLASH));
}
