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
  return new StatementLexer(text).boundaries();
}

/** Char codes of the significant characters the lexer tells apart. */
const SEMI = 59;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const CLOSE_PAREN = 41;
const SLASH = 47;
const AT = 64;
const BACKTICK = 96;
const STAR = 42;
const NEWLINE = 10;
const CR = 13;
const BACKSLASH = 92;

/** Operators and openers after which a `/` starts a regex literal (an operand is expected). */
const REGEX_AFTER_CHAR = "(,=:[!&|?{};+-*%<>~^";

/**
 * One pass over a text: the lexer's state (position, brackets, the last significant token) and
 * the boundaries found so far. Each scan method returns false where the lexer gives up.
 */
class StatementLexer {
  readonly #text: string;
  readonly #n: number;
  readonly #out = [0];
  #i = 0;
  #depth = 0;
  /** Open template literals (the bracket depth each opened at). */
  readonly #templates: number[] = [];
  /** The word before each open bracket. */
  readonly #parens: string[] = [];
  /** The closing char each open bracket expects. */
  readonly #kinds: number[] = [];
  #lastSig = 0;
  #lastWord = "";
  #lastParenWord = "";
  /** First significant char code of the current line. */
  #lineFirst = 0;
  /** First significant char code of the line holding lastSig. */
  #sigLineFirst = 0;
  #lineStart = true;
  /** Start of a comment line that may open the next statement. */
  #pending = -1;
  /**
   * A top-level decorator (`@Component({...})`, possibly over many lines) belongs to the
   * declaration after it: no boundary until the `class` keyword it decorates.
   */
  #decorating = false;

  constructor(text: string) {
    this.#text = text;
    this.#n = text.length;
  }

  boundaries(): number[] | null {
    const text = this.#text;
    const n = this.#n;
    if (text.startsWith("#!")) {
      const nl = text.indexOf("\n");
      this.#i = nl === -1 ? n : nl;
    }
    while (this.#i < n) {
      const c = text.charCodeAt(this.#i);
      if (c === NEWLINE) {
        this.#i++;
        this.#lineStart = true;
        continue;
      }
      if (c === 32 || c === 9 || c === CR || c === 0xfeff || c === 0xa0) {
        this.#i++;
        continue;
      }
      const d = text.charCodeAt(this.#i + 1);
      const isComment = c === SLASH && (d === SLASH || d === STAR);
      if (this.#lineStart) this.#firstOnLine(c, isComment);
      else if (!isComment) this.#pending = -1;
      if (!this.#token(c, d)) return null;
    }
    if (this.#depth !== 0 || this.#templates.length !== 0) return null;
    return this.#out;
  }

  /** Scans the token starting with `c` (`d` after it); false where the lexer is unsure. */
  #token(c: number, d: number): boolean {
    if (c === SLASH) return this.#slash(d);
    if (c === 39 || c === 34) return this.#string(c);
    if (c === BACKTICK) {
      this.#i++;
      this.#templates.push(this.#depth); // popped at its closing backtick
      if (!this.#templateChunk()) return false;
      this.#setSig(BACKTICK, "");
      return true;
    }
    if (c === 123 || c === 40 || c === 91) {
      this.#parens.push(this.#lastWord);
      this.#kinds.push(c === 123 ? CLOSE_BRACE : c === 40 ? CLOSE_PAREN : CLOSE_BRACKET);
      this.#depth++;
      this.#i++;
      this.#setSig(c, "");
      return true;
    }
    if (c === CLOSE_BRACE || c === CLOSE_PAREN || c === CLOSE_BRACKET) return this.#close(c);
    if (isIdent(c)) {
      this.#word();
      return true;
    }
    this.#setSig(c, "");
    this.#i++;
    return true;
  }

  /** The first significant character of a line: where a statement may start. */
  #firstOnLine(c: number, isComment: boolean): void {
    this.#lineStart = false;
    this.#lineFirst = c;
    if (isComment) {
      if (this.#pending === -1 && this.#prevEnds()) this.#pending = this.#lineStartOf(this.#i);
      return;
    }
    const at = this.#pending !== -1 ? this.#pending : this.#prevEnds() ? this.#lineStartOf(this.#i) : -1;
    if (at !== -1 && STATEMENT_START.test(this.#text.slice(this.#i, this.#i + 12)) && at > this.#out[this.#out.length - 1]!) this.#out.push(at);
    if (c === AT && this.#depth === 0 && this.#templates.length === 0) this.#decorating = true;
    this.#pending = -1;
  }

  #setSig(c: number, word: string): void {
    this.#lastSig = c;
    this.#lastWord = word;
    this.#sigLineFirst = this.#lineFirst;
  }

  /** Whether the statement before a new line ends there (ASI cannot join the line to it). */
  #prevEnds(): boolean {
    if (this.#depth !== 0 || this.#templates.length !== 0) return false;
    if (this.#decorating || this.#sigLineFirst === AT) return false;
    if (this.#lastWord !== "") return !CONTINUING_WORDS.has(this.#lastWord);
    switch (this.#lastSig) {
      case SEMI:
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
      case 39:
      case 34:
      case BACKTICK:
        return true;
      case CLOSE_PAREN:
        return !BODY_PARENS.has(this.#lastParenWord);
      default:
        return false;
    }
  }

  #lineStartOf(pos: number): number {
    let s = pos;
    while (s > 0 && this.#text.charCodeAt(s - 1) !== NEWLINE) s--;
    return s;
  }

  /** A comment, a regex literal or a division sign at `/` (`d` after it). */
  #slash(d: number): boolean {
    const text = this.#text;
    if (d === SLASH) {
      const nl = text.indexOf("\n", this.#i);
      this.#i = nl === -1 ? this.#n : nl;
      return true;
    }
    if (d === STAR) {
      const end = text.indexOf("*/", this.#i + 2);
      if (end === -1) return false;
      this.#i = end + 2;
      return true;
    }
    if (this.#regexAllowed()) return this.#regex();
    this.#i++;
    this.#setSig(SLASH, "");
    return true;
  }

  /**
   * `/` starts a regex literal where an operand is expected: at the start, after an operator or
   * opening bracket, after a keyword such as `return`, and after the `)` of `if (…)`,
   * `while (…)`, `for (…)` (a statement follows, not a division).
   */
  #regexAllowed(): boolean {
    const lastSig = this.#lastSig;
    if (lastSig === 0) return true;
    if (this.#lastWord !== "") return REGEX_AFTER_WORD.has(this.#lastWord);
    if (lastSig === CLOSE_PAREN) return BODY_PARENS.has(this.#lastParenWord);
    return REGEX_AFTER_CHAR.includes(String.fromCharCode(lastSig));
  }

  /** A regex literal and its flags; a regex literal never spans lines (unsure). */
  #regex(): boolean {
    const text = this.#text;
    const n = this.#n;
    let j = this.#i + 1;
    let inClass = false;
    for (;;) {
      if (j >= n) return false;
      const r = text.charCodeAt(j);
      if (r === NEWLINE || r === CR) return false;
      if (r === BACKSLASH) {
        j += 2;
        continue;
      }
      if (r === 91) inClass = true;
      else if (r === CLOSE_BRACKET) inClass = false;
      else if (r === SLASH && !inClass) break;
      j++;
    }
    let i = j + 1;
    while (i < n && isIdent(text.charCodeAt(i))) i++;
    this.#i = i;
    this.#setSig(BACKTICK, ""); // an operand, like a literal
    return true;
  }

  /** A string literal quoted by `q`; one running into a newline or the end is unsure. */
  #string(q: number): boolean {
    const text = this.#text;
    let j = this.#i + 1;
    for (;;) {
      if (j >= this.#n) return false;
      const r = text.charCodeAt(j);
      if (r === BACKSLASH) {
        j += text.charCodeAt(j + 1) === CR && text.charCodeAt(j + 2) === NEWLINE ? 3 : 2;
        continue;
      }
      if (r === NEWLINE || r === CR) return false;
      if (r === q) break;
      j++;
    }
    this.#i = j + 1;
    this.#setSig(q, "");
    return true;
  }

  /** A template literal's text up to its end or its next `${` (false: it never ends). */
  #templateChunk(): boolean {
    const text = this.#text;
    const n = this.#n;
    let i = this.#i;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) {
        i += 2;
        continue;
      }
      if (c === BACKTICK) {
        this.#i = i + 1;
        this.#templates.pop();
        return true;
      }
      if (c === 36 && text.charCodeAt(i + 1) === 123) {
        this.#i = i + 2;
        this.#depth++;
        this.#parens.push("${");
        this.#kinds.push(CLOSE_BRACE);
        return true;
      }
      i++;
    }
    this.#i = i;
    return false;
  }

  /** A closing bracket: it must close the innermost open one (`[}]` is unsure). */
  #close(c: number): boolean {
    this.#depth--;
    if (this.#depth < 0 || this.#kinds.pop() !== c) return false;
    const opener = this.#parens.pop();
    this.#i++;
    if (opener === "${") {
      // end of a substitution: back into its template
      if (!this.#templateChunk()) return false;
      this.#setSig(BACKTICK, "");
      return true;
    }
    this.#lastParenWord = c === CLOSE_PAREN ? (opener ?? "") : "";
    this.#setSig(c, "");
    return true;
  }

  /** An identifier or keyword. */
  #word(): void {
    const text = this.#text;
    const n = this.#n;
    const s = this.#i;
    let i = s;
    let lower = true;
    for (; i < n; i++) {
      const d = text.charCodeAt(i);
      if (!isIdent(d)) break;
      if (d < 97 || d > 122) lower = false;
    }
    this.#i = i;
    // Only keywords matter, all lower-case letters and none longer than 10 characters: spare
    // the allocation for any other word.
    this.#setSig(text.charCodeAt(i - 1), lower && i - s <= 10 ? text.slice(s, i) : "#");
    if (this.#decorating && this.#depth === 0 && this.#lastWord === "class") this.#decorating = false;
  }
}
