import pc from "picocolors";
import { sanitizeForTerminal } from "./workspace/sanitize.js";

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

/** Text from files or tools, made safe to print: the workspace's one terminal sanitizer. */
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
