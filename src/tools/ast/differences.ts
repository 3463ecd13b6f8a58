/**
 * The differences between tollgate's structural tools (ast_grep, ast_edit) and the ast-grep CLI
 * of the same version that are allowed: each is an improvement by design or a limit of napi,
 * with its reason and a predicate over one observed difference. The differential tests decide
 * with these predicates alone (a difference none of them explains fails), and the user's page
 * docs/ast-grep-differences.md is rendered from this list by differencesPage().
 */

/** One observed difference between the two tools, with the facts a predicate may weigh. */
export type Observed =
  /** A match tollgate reports that the CLI does not. */
  | { kind: "extra-match"; fileHasErrors: boolean; /** The file's text at the match's range is the match's text. */ textAtRange: boolean }
  /** A match the CLI reports that tollgate does not. */
  | {
      kind: "missing-match";
      fileHasErrors: boolean;
      /** tollgate lists a parse issue with a position inside the match's range. */
      listedIssue: boolean;
      /**
       * The match rests on the CLI's own error recovery: its parse of the file has an ERROR node
       * inside the match (not the match itself), or one ending right where the match begins
       * (only whitespace between), where recovery resumed and read the tokens after the error as
       * whatever parses.
       */
      cliMatchOnError: boolean;
    }
  /**
   * tollgate's rewritten file differs from the CLI's one-pass rewrite, and equals the CLI's
   * rewrite applied inside-out: the matches nested in an applied match's capture first, then
   * the enclosing match on the result (line differences the other entries explain aside).
   */
  | { kind: "nested-rewrite"; /** Matches the CLI reports inside a capture that `out` uses of a match it rewrites. */ nestedInCapture: number }
  /**
   * The tools answer a pattern differently (its matches or its rewrite) in a language whose
   * grammar napi takes from a language package.
   */
  | { kind: "grammars"; /** The package's grammar and the CLI's parse the pattern alike (the same ERROR nodes, the same root). */ agree: boolean }
  /** tollgate refused a rewrite the CLI applied. */
  | {
      kind: "refused";
      /** The refusal says overlapping replacements. */ overlapError: boolean;
      /** Every pair it lists is a pair of CLI matches that overlap other than by nesting in a capture `out` uses. */ pairsConfirmed: boolean;
      pairs: number;
    }
  /** One line of the rewritten file differs (both files have the same number of lines). */
  | {
      kind: "line";
      tollgate: string;
      cli: string;
      /** The line in the file before the rewrite, when the rewrite kept the line count. */
      original: string | undefined;
      /** The line starts inside a string or template literal of tollgate's output, a literal being the innermost enclosing construct (not a `${…}` substitution). */
      inStringLiteral: boolean;
      /** The file uses CRLF line endings. */
      crlf: boolean;
      /** tollgate skipped a match starting on this line as resting on a syntax error, and listed it. */
      skippedMatchLine: boolean;
    };

interface Difference {
  id: string;
  title: string;
  /** Why tollgate differs: user-facing text (Markdown). */
  reason: string;
  /** Whether this entry explains the observed difference. */
  explains(o: Observed): boolean;
}

/** Spaces (and a CR) only. */
const blank = (s: string) => /^[ \t]*\r?$/.test(s);

/** `long` is `short` with spaces added in front. */
function shiftedBySpaces(a: string, b: string): boolean {
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  return long !== short && long.endsWith(short) && /^ +$/.test(long.slice(0, long.length - short.length));
}

export const DIFFERENCES: readonly Difference[] = [
  {
    id: "nested-matches",
    title: "A match nested in another match's capture is rewritten too",
    reason:
      "`ast_edit` rewrites a match lying wholly inside a metavariable capture of another match within that capture, in the same pass: " +
      "`Effect.map(a, Effect.map(b, f))` becomes `Effect.andThen(a, Effect.andThen(b, f))`. The CLI rewrites the outer match only " +
      "and leaves the inner one as it was, so a codemod would need as many runs as the code has levels of nesting.",
    explains: (o) => o.kind === "nested-rewrite" && o.nestedInCapture > 0,
  },
  {
    id: "overlapping-matches",
    title: "Overlapping matches are refused at preview",
    reason:
      "When two matches of a rewrite overlap other than by one lying in a capture of the other that `out` uses (they cross, " +
      "match the same node with different patterns, or one lies in the other's fixed text or in a capture `out` drops), " +
      "`ast_edit` stages nothing and reports an error naming both ranges. The CLI rewrites the first and silently drops the other.",
    explains: (o) => o.kind === "refused" && o.overlapError && o.pairs > 0 && o.pairsConfirmed,
  },
  {
    id: "string-literal-lines",
    title: "Lines inside string and template literals are never re-indented",
    reason:
      "When a multi-line capture is moved to another indentation, the CLI shifts every line of it, also the lines inside a " +
      "multi-line string or template literal, which changes the literal's value. tollgate leaves those lines as they are. " +
      "The innermost enclosing construct decides: a line that starts inside a template's `${…}` substitution is code and is " +
      "re-indented as the CLI does.",
    explains: (o) => o.kind === "line" && o.inStringLiteral && shiftedBySpaces(o.tollgate, o.cli),
  },
  {
    id: "blank-lines",
    title: "A blank line gets no indentation",
    reason:
      "When a multi-line capture is re-indented, the CLI writes the indentation on its blank lines too (trailing whitespace); tollgate leaves them empty.",
    explains: (o) => o.kind === "line" && /^\r?$/.test(o.tollgate) && blank(o.cli) && o.tollgate !== o.cli,
  },
  {
    id: "template-line-endings",
    title: "A template's line breaks follow the file's line endings",
    reason:
      "In a file with CRLF line endings, the line breaks of a multi-line `out` template are written as CRLF, as every write " +
      "keeps a file's line endings; the CLI inserts the template's LF and leaves the file with mixed line endings.",
    explains: (o) => o.kind === "line" && o.crlf && o.tollgate === `${o.cli}\r`,
  },
  {
    id: "grammar-versions",
    title: "Go and Rust patterns follow the grammars of tollgate's language packages",
    reason:
      "napi parses Go and Rust with `@ast-grep/lang-go` and `@ast-grep/lang-rust`, which are built from other tree-sitter " +
      "grammar versions than the ones compiled into the CLI. Where the two grammars parse a pattern differently (one finds " +
      "a syntax error in it that the other does not, or gives it another root), the tools can match different nodes: the CLI " +
      "then warns that its pattern has an error and finds nothing, while tollgate matches the nodes its grammar gives the " +
      "pattern. Each match is still a node of the file as the package's grammar parses it. Patterns both grammars parse " +
      "alike match alike; no released language package carries the CLI's grammar versions.",
    explains: (o) => o.kind === "grammars" && !o.agree,
  },
  {
    id: "syntax-errors",
    title: "Matches resting on syntax errors are skipped and listed; matches lost to error recovery are found",
    reason:
      "A match that rests on an ERROR node or an invented (MISSING) token outside its metavariables is skipped and listed under " +
      "`Parse issues:` with its position, where the CLI reports and rewrites it. A match the CLI finds that holds an ERROR node of " +
      "its own parse, or begins right where one ends, is no node of the file as written, and where tollgate's parse recovers otherwise it is not found at all " +
      "(nor listed when the file lacks the text every real match shows, such as an operand beside its operator: such a file is not parsed). On a file with syntax errors tollgate parses the " +
      "statements near an error on their own too, so it can find real matches that the CLI's parse loses to error recovery; " +
      "it never reports a match that is not text of the file. (napi hands tree-sitter the text as UTF-16, the CLI as UTF-8, " +
      "and tree-sitter prices an error by the bytes it skips, so the two can recover differently from the same error.)",
    explains: (o) =>
      (o.kind === "extra-match" && o.fileHasErrors && o.textAtRange) ||
      (o.kind === "missing-match" && o.fileHasErrors && (o.listedIssue || o.cliMatchOnError)) ||
      (o.kind === "line" && o.skippedMatchLine && o.original !== undefined && o.tollgate === o.original),
  },
];

/** The entry explaining an observed difference, if any. */
export function explain(o: Observed): Difference | undefined {
  return DIFFERENCES.find((d) => d.explains(o));
}

/** The user-facing page listing the differences (docs/ast-grep-differences.md). */
export function differencesPage(): string {
  const lines = [
    "<!-- Generated from src/tools/ast/differences.ts by `npm run docs:differences`; do not edit. -->",
    "",
    "# Differences from the ast-grep CLI",
    "",
    "tollgate's `ast_grep` and `ast_edit` are held to the `ast-grep` CLI of the same version (the `@ast-grep/cli`",
    "dev dependency) as their oracle: the patterns it accepts are accepted, the ones it refuses are refused with its",
    "reason, and matches (path, line, column, text) and rewritten files are its own, byte for byte, indentation of",
    "multi-line metavariables included. The differential tests (`test/tools/differential.test.ts` on fixtures of every",
    "language, `test/differential/` on patterns made from real code) fail on any difference that none of the entries",
    "below explains; each entry is a predicate in `src/tools/ast/differences.ts`, which this page is generated from.",
    "",
  ];
  for (const d of DIFFERENCES) lines.push(`## \`${d.id}\`: ${d.title}`, "", d.reason, "");
  return `${lines.join("\n").trimEnd()}\n`;
}
