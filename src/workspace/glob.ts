import picomatch from "picomatch";

/** One matcher for the globs users write in policies and recipes (dotfiles included). */
export function globMatcher(globs: string | readonly string[], options: { nocase?: boolean } = {}): (path: string) => boolean {
  const list = typeof globs === "string" ? [globs] : [...globs];
  if (list.length === 0) return () => false;
  return picomatch(list, { dot: true, ...(options.nocase ? { nocase: true } : {}) });
}

/** Throws picomatch's own error for a malformed glob; used by validation. */
export function checkGlob(glob: string): string | undefined {
  try {
    picomatch.makeRe(glob, { dot: true, strictBrackets: true });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
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
  const matcher = picomatch(glob.split("/").join(SLASH), { dot: true });
  return (text) => matcher(text.split("/").join(SLASH));
}
