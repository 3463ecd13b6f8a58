/**
 * Output hygiene (SPEC 8, issue 6): file contents, tool output and error messages are untrusted
 * text. Before they reach a terminal or the GitHub Actions log they pass through these.
 */

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

// C0 controls except \t (09) and \n (0a), DEL, C1 controls, and the Unicode bidi overrides and
// isolates that reorder what a reader sees ("Trojan Source"), plus line/paragraph separators.
// A \r is kept only as part of a CRLF line ending.
// eslint-disable-next-line no-control-regex
const TERMINAL_UNSAFE = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Neutralises terminal control sequences: ESC (so no ANSI/OSC sequence survives), every other
 * C0/C1 control except newline and tab, a bare carriage return, and bidi override characters
 * are shown as visible escapes (`\x1b`, `\u202e`). Text without them is returned unchanged.
 */
export function sanitizeForTerminal(text: string): string {
  return text.replace(TERMINAL_UNSAFE, escapeChar);
}

/** True when `sanitizeForTerminal` would change the text. */
export function hasTerminalControls(text: string): boolean {
  TERMINAL_UNSAFE.lastIndex = 0;
  const found = TERMINAL_UNSAFE.test(text);
  TERMINAL_UNSAFE.lastIndex = 0;
  return found;
}

/**
 * Neutralises GitHub Actions workflow commands in text printed to a job log: a line whose first
 * non-blank characters are `::` (e.g. `::set-output`, `::add-mask::`, `::stop-commands::`) or
 * the legacy `##[` form is broken with a zero-width space after its first character, so the
 * runner no longer recognises it while a human reads the same text.
 */
export function sanitizeForGithubLog(text: string): string {
  return text.replace(/^([ \t]*)(:)(?=:)|^([ \t]*)(#)(?=#\[)/gm, (_m, sp1: string | undefined, c1: string | undefined, sp2: string | undefined, c2: string | undefined) =>
    `${sp1 ?? sp2 ?? ""}${c1 ?? c2}\u200b`,
  );
}

/** Both of the above: for untrusted text printed to a CI log. */
export function sanitizeOutput(text: string): string {
  return sanitizeForGithubLog(sanitizeForTerminal(text));
}

/**
 * Fences untrusted text with `::stop-commands::<token>` … `::<token>::` so the runner does not
 * process any workflow command inside it. The token is random unless given and is changed if
 * the text happens to contain it.
 */
export function fenceWorkflowCommands(text: string, token?: string): string {
  let t = token ?? randomToken();
  while (text.includes(t)) t = randomToken();
  return `::stop-commands::${t}\n${text}${text.endsWith("\n") ? "" : "\n"}::${t}::\n`;
}

function randomToken(): string {
  return `tollgate-${globalThis.crypto.randomUUID()}`;
}

/** Escapes the message part of a workflow command (`::error ...::<data>`). */
export function escapeWorkflowData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escapes a property value of a workflow command (`file=`, `title=`). */
export function escapeWorkflowProperty(text: string): string {
  return escapeWorkflowData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
