/**
 * The CLI's indentation arithmetic for rewrites (ast-grep's replacer/indent.rs), shared by
 * ast_edit's templates and ast_scan's fixes. Indentation counts spaces only (a tab ends it: a
 * tab-indented line has indentation 0), a line starting past 512 bytes back has none, and
 * removing takes the spaces off only where a line has them all. One documented difference: a
 * blank line gets no indentation.
 */

/** The CLI's look-back window for indentation, in UTF-8 bytes (MAX_LOOK_AHEAD). */
const LOOK_BACK = 512;

/**
 * The CLI's `get_indent_at_offset`: the spaces that start the line holding `offset` (a tab or
 * any other character before them ends the count), 0 when the line start lies more than 512
 * bytes back.
 */
export function indentAt(text: string, offset: number): number {
  let bytes = 0;
  let indent = 0;
  for (let i = offset - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
    if (bytes > LOOK_BACK) return 0;
    if (c === 10) return indent;
    indent = c === 32 ? indent + 1 : 0;
  }
  return indent;
}

/**
 * The CLI's `indent_lines` from indentation `from` to `to` (spaces). Lines starting with `keep`
 * (a marker for a line break inside a string literal) are left as they are, and a blank line
 * gets no indentation; the value's last line is indented even when empty, since the text after
 * the value continues it.
 */
export function shiftLines(value: string, from: number, to: number, keep?: string): string {
  if (from === to || !value.includes("\n")) return value;
  const lines = value.split("\n");
  if (from > to) {
    const prefix = " ".repeat(from - to);
    return lines.map((l) => (l.startsWith(prefix) ? l.slice(prefix.length) : l)).join("\n");
  }
  const lead = " ".repeat(to - from);
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!;
    // A blank line stays blank; the last line is not blank here, whatever follows it does.
    if (((l === "" || l === "\r") && i < lines.length - 1) || (keep !== undefined && l.startsWith(keep))) continue;
    lines[i] = lead + l;
  }
  return lines.join("\n");
}
