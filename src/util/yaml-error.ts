/**
 * The text of a `yaml` parse error for a positioned issue: its first line, without the
 * " at line N, column M:" the library appends (the issue carries the position), and a plain
 * sentence for the parser's own stack overflow on deeply nested input.
 */
export function yamlErrorText(message: string): string {
  const first = message.split("\n")[0] ?? message;
  if (/Maximum call stack size exceeded/.test(first)) return "YAML is nested too deeply";
  return first.replace(/ at line \d+, column \d+:?$/, "");
}
