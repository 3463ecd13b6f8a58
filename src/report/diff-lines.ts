/**
 * First changed line of each file section of a git-style diff, in section order: the line in
 * the new text for applied changes (where the change now is), else in the current text.
 */
export function firstChangedLines(diff: string, applied: boolean): number[] {
  const lines: number[] = [];
  let state: "header" | "hunk" | "done" = "done";
  let oldLine = 0;
  let newLine = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("diff --git ")) {
      state = "header";
      continue;
    }
    if (state === "header") {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      if (m) {
        oldLine = Number(m[1]);
        newLine = Number(m[2]);
        state = "hunk";
      }
      continue;
    }
    if (state !== "hunk") continue;
    if (line.startsWith("+") || line.startsWith("-")) {
      // A created file has old start 0, a deleted one new start 0: use the side that exists.
      const useNew = (applied && newLine > 0) || oldLine === 0;
      lines.push(Math.max(1, useNew ? newLine : oldLine));
      state = "done";
    } else if (line.startsWith(" ")) {
      oldLine++;
      newLine++;
    }
  }
  return lines;
}
