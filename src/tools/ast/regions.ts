/**
 * Top-level statement boundaries of a TypeScript text, for parsing a statement on its own where
 * the whole file's parse has syntax errors (engine.ts): a top-level statement parses the same
 * alone as in its file, so a clean parse of it is its parse as written.
 *
 * Statement boundaries come from a small lexer (comments, strings, templates, regex literals,
 * bracket depth). A boundary is the start of a line at bracket depth 0, outside any literal,
 * that begins with a declaration keyword, a decorator or a comment, right after a `;` or `}`
 * (so ASI cannot join it to the previous statement); a decorator stays with the class it
 * decorates. Brackets are matched by kind on a stack. Whenever the lexer is unsure (a string or
 * regex literal running into a newline, unbalanced or mismatched brackets, an unterminated
 * literal at the end), it gives up: then no statement is parsed on its own.
 */

const STATEMENT_START = /^(?:export|import|const|let|var|function|async|class|interface|type|declare|enum|abstract|namespace|module)\b|^@/;

/** Keywords after which a `/` starts a regex literal. */
const REGEX_AFTER_WORD = new Set(["return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await"]);

/** Words after which the next line may continue the same statement. */
const CONTINUING_WORDS = new Set([
  "else",
  "do",
  "extends",
  "implements",
  "in",
  "of",
  "instanceof",
  "typeof",
  "keyof",
  "new",
  "delete",
  "void",
  "await",
  "yield",
  "case",
  "as",
  "satisfies",
  "is",
  "infer",
  "readonly",
  "unique",
  "default",
  "export",
  "declare",
  "abstract",
  "async",
  "static",
  "public",
  "private",
  "protected",
  "override",
  "accessor",
  "return",
  "throw",
  "from",
  "import",
  "const",
  "let",
  "var",
  "type",
  "interface",
  "class",
  "function",
  "enum",
  "namespace",
  "module",
  "asserts",
  "out",
]);

/** `(` preceded by these: a `)` closing it may be followed by the statement's body. */
const BODY_PARENS = new Set(["if", "while", "for", "with"]);

const isIdent = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c > 127;

/**
 * Offsets where top-level statements may start (always including 0), or null when the lexer
 * cannot vouch for the file.
 */
export function statementBoundaries(text: string): number[] | null {
  const n = text.length;
  const out = [0];
  let i = 0;
  let depth = 0;
  const templates: number[] = []; // open template literals
  const parens: string[] = []; // word before each open bracket
  const kinds: number[] = []; // the closing char each open bracket expects
  let lastSig = 0;
  let lastWord = "";
  let lastParenWord = "";
  let lineFirst = 0; // first significant char code of the current line
  let sigLineFirst = 0; // first significant char code of the line holding lastSig
  let lineStart = true;
  let pending = -1; // start of a comment line that may open the next statement
  // A top-level decorator (`@Component({...})`, possibly over many lines) belongs to the
  // declaration after it: no boundary until the `class` keyword it decorates.
  let decorating = false;
  const setSig = (c: number, word: string) => {
    lastSig = c;
    lastWord = word;
    sigLineFirst = lineFirst;
  };
  const prevEnds = (): boolean => {
    if (depth !== 0 || templates.length !== 0) return false;
    if (decorating || sigLineFirst === 64 /* @ decorator line */) return false;
    if (lastWord !== "") return !CONTINUING_WORDS.has(lastWord);
    switch (lastSig) {
      case 59: // ;
      case 125: // }
      case 93: // ]
      case 39:
      case 34:
      case 96:
        return true;
      case 41: // )
        return !BODY_PARENS.has(lastParenWord);
      default:
        return false;
    }
  };
  const lineStartOf = (pos: number): number => {
    let s = pos;
    while (s > 0 && text.charCodeAt(s - 1) !== 10) s--;
    return s;
  };
  if (text.startsWith("#!")) {
    const nl = text.indexOf("\n");
    i = nl === -1 ? n : nl;
  }
  const templateChunk = (): boolean => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        i += 2;
        continue;
      }
      if (c === 96) {
        i++;
        templates.pop();
        return true;
      }
      if (c === 36 && text.charCodeAt(i + 1) === 123) {
        i += 2;
        depth++;
        parens.push("${");
        kinds.push(125);
        return true;
      }
      i++;
    }
    return false;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      i++;
      lineStart = true;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 0xfeff || c === 0xa0) {
      i++;
      continue;
    }
    const isComment = c === 47 && (text.charCodeAt(i + 1) === 47 || text.charCodeAt(i + 1) === 42);
    if (lineStart) {
      lineStart = false;
      lineFirst = c;
      if (isComment) {
        if (pending === -1 && prevEnds()) pending = lineStartOf(i);
      } else {
        const at = pending !== -1 ? pending : prevEnds() ? lineStartOf(i) : -1;
        if (at !== -1 && STATEMENT_START.test(text.slice(i, i + 12)) && at > out[out.length - 1]!) out.push(at);
        if (c === 64 && depth === 0 && templates.length === 0) decorating = true;
        pending = -1;
      }
    } else if (!isComment) {
      pending = -1;
    }
    if (c === 47 /* / */) {
      const d = text.charCodeAt(i + 1);
      if (d === 47) {
        const nl = text.indexOf("\n", i);
        i = nl === -1 ? n : nl;
        continue;
      }
      if (d === 42) {
        const end = text.indexOf("*/", i + 2);
        if (end === -1) return null;
        i = end + 2;
        continue;
      }
      // `/` starts a regex literal where an operand is expected: at the start, after an
      // operator or opening bracket, after a keyword such as `return`, and after the `)` of
      // `if (…)`, `while (…)`, `for (…)` (a statement follows, not a division).
      const regex =
        lastSig === 0 ||
        (lastWord !== ""
          ? REGEX_AFTER_WORD.has(lastWord)
          : lastSig === 41
            ? BODY_PARENS.has(lastParenWord)
            : "(,=:[!&|?{};+-*%<>~^".includes(String.fromCharCode(lastSig)));
      if (regex) {
        let j = i + 1;
        let inClass = false;
        for (;;) {
          if (j >= n) return null;
          const r = text.charCodeAt(j);
          if (r === 10 || r === 13) return null; // a regex literal never spans lines: unsure
          if (r === 92) {
            j += 2;
            continue;
          }
          if (r === 91) inClass = true;
          else if (r === 93) inClass = false;
          else if (r === 47 && !inClass) break;
          j++;
        }
        i = j + 1;
        while (i < n && isIdent(text.charCodeAt(i))) i++;
        setSig(96, ""); // an operand, like a literal
        continue;
      }
      i++;
      setSig(47, "");
      continue;
    }
    if (c === 39 || c === 34) {
      let j = i + 1;
      for (;;) {
        if (j >= n) return null;
        const r = text.charCodeAt(j);
        if (r === 92) {
          j += text.charCodeAt(j + 1) === 13 && text.charCodeAt(j + 2) === 10 ? 3 : 2;
          continue;
        }
        if (r === 10 || r === 13) return null; // unterminated string: unsure
        if (r === c) break;
        j++;
      }
      i = j + 1;
      setSig(c, "");
      continue;
    }
    if (c === 96) {
      i++;
      templates.push(depth); // open template literal; popped at its closing backtick
      if (!templateChunk()) return null;
      setSig(96, "");
      continue;
    }
    if (c === 123 || c === 40 || c === 91) {
      parens.push(lastWord);
      kinds.push(c === 123 ? 125 : c === 40 ? 41 : 93);
      depth++;
      i++;
      setSig(c, "");
      continue;
    }
    if (c === 125 || c === 41 || c === 93) {
      depth--;
      if (depth < 0 || kinds.pop() !== c) return null; // `[}]`: a bracket of another kind: unsure
      const opener = parens.pop();
      i++;
      if (opener === "${") {
        // end of a substitution: back into its template
        if (!templateChunk()) return null;
        setSig(96, "");
        continue;
      }
      lastParenWord = c === 41 ? (opener ?? "") : "";
      setSig(c, "");
      continue;
    }
    if (isIdent(c)) {
      const s = i;
      let lower = true;
      for (; i < n; i++) {
        const d = text.charCodeAt(i);
        if (!isIdent(d)) break;
        if (d < 97 || d > 122) lower = false;
      }
      // Only keywords matter, all lower-case letters and none longer than 10 characters: spare
      // the allocation for any other word.
      setSig(text.charCodeAt(i - 1), lower && i - s <= 10 ? text.slice(s, i) : "#");
      if (decorating && depth === 0 && lastWord === "class") decorating = false;
      continue;
    }
    setSig(c, "");
    i++;
  }
  if (depth !== 0 || templates.length !== 0) return null;
  return out;
}
