import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colour for a stream, as CLI tools decide it: --color/--no-color, then FORCE_COLOR (on unless 0 or
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

// Output hygiene: file contents, tool output and error messages are untrusted
// text. Before they reach a terminal they pass through safeText (and, for the GitHub
// Actions log, github/escape.ts as well).

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

// C0 controls except \t (09) and \n (0a), DEL, C1 controls, and the Unicode bidi overrides and
// isolates that reorder what a reader sees ("Trojan Source"), plus line/paragraph separators.
// A \r is kept only as part of a CRLF line ending.
const TERMINAL_UNSAFE = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from files or tools, made safe to print (the one terminal sanitizer): ESC (so no
 * ANSI/OSC sequence survives), every other C0/C1 control except newline and tab, a bare
 * carriage return, and bidi override characters are shown as visible escapes (`\x1b`,
 * `\u202e`). Text without them is returned unchanged.
 */
export function safeText(text: string): string {
  return text.replace(TERMINAL_UNSAFE, escapeChar);
}

/**
 * A unified diff for a terminal: sanitised, coloured by line kind, optionally capped in lines.
 * Only the lines shown are copied; the rest of a long diff is counted, not split.
 */
export function colorDiff(diff: string, c: Colors, maxLines = Infinity): string {
  const text = diff.endsWith("\n") ? diff.slice(0, -1) : diff;
  let lines = 1;
  let end = -1; // where the last line shown ends, when some are not shown
  for (let k = text.indexOf("\n"); k !== -1; k = text.indexOf("\n", k + 1)) {
    if (lines === maxLines) end = k;
    lines++;
  }
  const more = Math.max(0, lines - maxLines);
  // Sanitised with the newline that follows (a CR before a newline is kept), then cut off.
  const head = more === 0 ? safeText(diff).replace(/\n$/, "") : maxLines <= 0 ? undefined : safeText(text.slice(0, end + 1)).slice(0, -1);
  const shown = (head === undefined ? [] : head.split("\n")).map((line) => {
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff --git")) return c.bold(line);
    if (line.startsWith("@@")) return c.cyan(line);
    if (line.startsWith("+")) return c.green(line);
    if (line.startsWith("-")) return c.red(line);
    return line;
  });
  if (more > 0) shown.push(c.dim(`… ${more} more lines (see --patch or --report)`));
  return `${shown.join("\n")}\n`;
}
