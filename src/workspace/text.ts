export { sha256 } from "../util/hash.js";

export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Offsets where the lines of a text start (0 first; after every LF). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Index of the last element of an ascending list that is <= value (0 when none is). */
export function lastAtOrBefore(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid]! <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

type TextProblem = "binary" | "non-utf8" | "too-large";

/**
 * Decodes file bytes as UTF-8 text, keeping a BOM as U+FEFF so writing the text back
 * reproduces the bytes. Returns a problem instead for binary, invalid UTF-8 or oversize input.
 */
export function decodeText(bytes: Uint8Array, maxBytes = DEFAULT_MAX_FILE_BYTES): { text: string } | { problem: TextProblem } {
  if (bytes.byteLength > maxBytes) return { problem: "too-large" };
  const head = bytes.subarray(0, 8000);
  if (head.includes(0)) return { problem: "binary" };
  try {
    return { text: decoder.decode(bytes) };
  } catch {
    return { problem: "non-utf8" };
  }
}

export function describeProblem(problem: TextProblem, maxBytes = DEFAULT_MAX_FILE_BYTES): string {
  switch (problem) {
    case "binary":
      return "binary file";
    case "non-utf8":
      return "not valid UTF-8";
    case "too-large":
      return `larger than ${maxBytes} bytes`;
  }
}

/**
 * A full new content for an existing file, in that file's conventions (writes keep line
 * endings and a leading BOM): LF-only content for a file whose line endings are all CRLF gets
 * CRLF, and the file's BOM is kept. Content that already carries CRLF or a BOM is taken as is.
 */
export function inStyleOf(before: string, content: string): string {
  let out = content;
  const crlf = (before.match(/\r\n/g) ?? []).length;
  const lf = (before.match(/\n/g) ?? []).length;
  if (crlf > 0 && crlf === lf && out.includes("\n") && !out.includes("\r\n")) out = out.replace(/\n/g, "\r\n");
  if (before.startsWith("\uFEFF") && !out.startsWith("\uFEFF")) out = `\uFEFF${out}`;
  return out;
}
