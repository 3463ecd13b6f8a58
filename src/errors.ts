import { EXIT } from "./exit-codes.js";

/**
 * Typed errors. Everything a user can cause is a TollgateError with a message fit to print as
 * is; the CLI catches once and maps `exitCode`. Anything else is a bug and is printed as
 * "internal error" (still without a stack unless TOLLGATE_DEBUG is set).
 */
export class TollgateError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

export interface Issue {
  file?: string;
  line?: number;
  col?: number;
  path?: string;
  message: string;
}

export function formatIssue(issue: Issue): string {
  const where = issue.file ? `${issue.file}${issue.line !== undefined ? `:${issue.line}:${issue.col ?? 1}` : ""}` : "";
  const head = [where, issue.path].filter(Boolean).join(" ");
  return head ? `${head}: ${issue.message}` : issue.message;
}

/** Invalid input found before anything ran: exit 2. */
export class InputError extends TollgateError {
  readonly issues: Issue[];
  constructor(issues: Issue[] | string) {
    const list = typeof issues === "string" ? [{ message: issues }] : issues;
    super(list.map(formatIssue).join("\n"), EXIT.input);
    this.issues = list;
  }
}

/** A failure during the run that stops it (lock held, unrecovered journal): exit 3. */
export class RunError extends TollgateError {
  constructor(message: string) {
    super(message, EXIT.failure);
  }
}

/** A tool-level failure: becomes an error result, the run goes on. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** The change no longer matches the files on disk: outcome `stale`. */
export class StaleError extends Error {
  readonly paths: string[];
  constructor(message: string, paths: string[]) {
    super(message);
    this.name = "StaleError";
    this.paths = paths;
  }
}

/** The action touches something it must not (outside the root, protected): outcome `blocked`. */
export class BlockedError extends Error {
  readonly paths: string[];
  constructor(message: string, paths: string[] = []) {
    super(message);
    this.name = "BlockedError";
    this.paths = paths;
  }
}
