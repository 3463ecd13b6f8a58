import path from "node:path";
import type { Issue } from "../errors.js";
import { messageOf } from "../util/thrown.js";

/** GitHub's limit on the jobs one matrix generates in a workflow run. */
export const MAX_MATRIX_JOBS = 256;

const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;

/** Whether `name` is a GitHub repository name, `owner/name`. */
export function isRepositoryName(name: string): boolean {
  return NAME.test(name);
}

/**
 * A campaign's repository list: a JSON array of `owner/name` strings, or text with one
 * `owner/name` a line (`#` starts a comment, blank lines are skipped). Every entry is checked and
 * every problem returned with its line, so one run names them all; duplicates are problems too.
 */
export function parseRepositoryList(text: string, file: string): { repositories: string[]; issues: Issue[] } {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  const entries: Array<{ name: unknown; line?: number }> = [];
  const issues: Issue[] = [];
  if (trimmed.startsWith("[")) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (err) {
      return { repositories: [], issues: [{ file, message: `not a JSON array of repositories: ${messageOf(err)}` }] };
    }
    if (!Array.isArray(data)) return { repositories: [], issues: [{ file, message: "not a JSON array of repositories" }] };
    for (const name of data) entries.push({ name });
  } else {
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.replace(/#.*$/, "").trim();
      if (line !== "") entries.push({ name: line, line: i + 1 });
    });
  }
  const seen = new Set<string>();
  const repositories: string[] = [];
  entries.forEach(({ name, line }, index) => {
    const at = line !== undefined ? { file, line, col: 1 } : { file, path: `[${index}]` };
    if (typeof name !== "string" || !isRepositoryName(name)) {
      issues.push({ ...at, message: `${JSON.stringify(name)} is not a repository name (owner/name)` });
    } else if (seen.has(name.toLowerCase())) {
      issues.push({ ...at, message: `${name} is listed twice` });
    } else {
      seen.add(name.toLowerCase());
      repositories.push(name);
    }
  });
  if (issues.length === 0 && repositories.length === 0) issues.push({ file, message: "names no repository" });
  return { repositories, issues };
}

/**
 * `name` as one valid git branch name (the rules of `git check-ref-format --branch`): every run
 * of characters git refuses or that a shell or URL would need to quote becomes `-`, and what a
 * component may not start or end with is dropped. Never empty.
 */
export function refComponent(name: string): string {
  const parts = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split("/")
    .map((part) =>
      part
        .replace(/[^A-Za-z0-9._-]+/g, "-")
        .replace(/\.{2,}/g, ".")
        .replace(/-{2,}/g, "-")
        .replace(/^[.-]+|[.-]+$/g, "")
        .replace(/\.lock$/i, "-lock"),
    )
    .filter((part) => part !== "");
  const joined = parts.join("/");
  return joined === "" ? "campaign" : joined;
}

/** The campaign's default branch: `tollgate/<recipe name as a valid ref>` (else the recipe file's name). */
export function defaultBranch(recipe: { name: string | null; path: string }): string {
  const name = recipe.name ?? path.basename(recipe.path).replace(/\.ya?ml$/i, "");
  return `tollgate/${refComponent(name)}`;
}

/** Why `name` is not a branch name git accepts (`git check-ref-format --branch`), or null. */
export function branchProblem(name: string): string | null {
  if (name === "" || name === "@") return "is empty or @";
  if (name.startsWith("-")) return "starts with -";
  if (name.startsWith("/") || name.endsWith("/") || name.includes("//")) return "has an empty path component";
  if (name.endsWith(".")) return "ends with .";
  if (name.includes("..")) return "contains ..";
  if (name.includes("@{")) return "contains @{";
  if (Array.from({ length: name.length }, (_, i) => name.charCodeAt(i)).some((c) => c <= 0x20 || c === 0x7f) || /[~^:?*[\\]/.test(name))
    return "contains a space, a control character or one of ~ ^ : ? * [ \\";
  if (name.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock"))) return "has a component that starts with . or ends with .lock";
  return null;
}
