import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colour for a stream (ecosystem.md 3.2): --color/--no-color, then FORCE_COLOR (on unless 0 or
 * false), then NO_COLOR, then GitHub Actions, then a TTY that is not dumb.
 */
export function colorEnabled(stream: NodeJS.WriteStream, flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (flag !== undefined) return flag;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  if (env.NO_COLOR) return false;
  if (env.GITHUB_ACTIONS === "true") return true;
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

export function colors(enabled: boolean): Colors {
  return pc.createColors(enabled);
}

// Output hygiene (SPEC 8, issue 6): file contents, tool output and error messages are untrusted
// text. Before they reach a terminal they pass through sanitizeForTerminal (and, for the GitHub
// Actions log, github/escape.ts as well).

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

/** Text from files or tools, made safe to print: the one terminal sanitizer. */
export const safeText = sanitizeForTerminal;

/** A unified diff for a terminal: sanitised, coloured by line kind, optionally capped in lines. */
export function colorDiff(diff: string, c: Colors, maxLines = Infinity): string {
  const lines = safeText(diff).replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, maxLines).map((line) => {
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff --git")) return c.bold(line);
    if (line.startsWith("@@")) return c.cyan(line);
    if (line.startsWith("+")) return c.green(line);
    if (line.startsWith("-")) return c.red(line);
    return line;
  });
  if (lines.length > maxLines) shown.push(c.dim(`… ${lines.length - maxLines} more lines (see --patch or --report)`));
  return `${shown.join("\n")}\n`;
}
