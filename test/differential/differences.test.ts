/**
 * The list of allowed differences: the user's page is the generated text, and each predicate
 * explains what it names and nothing next to it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DIFFERENCES, differencesPage, explain, type Observed } from "../../src/tools/ast/differences.js";
import { REPO_ROOT } from "../helpers/testdir.js";

const line = (o: Partial<Extract<Observed, { kind: "line" }>>): Observed => ({
  kind: "line",
  tollgate: "",
  cli: "",
  original: undefined,
  inStringLiteral: false,
  crlf: false,
  skippedMatchLine: false,
  ...o,
});

/** For each entry: differences it explains, and near ones no entry explains. */
const EXAMPLES: Record<string, { explained: Observed[]; unexplained: Observed[] }> = {
  "nested-matches": {
    explained: [{ kind: "nested-rewrite", nestedInCapture: 1 }],
    unexplained: [{ kind: "nested-rewrite", nestedInCapture: 0 }],
  },
  "overlapping-matches": {
    explained: [{ kind: "refused", overlapError: true, pairsConfirmed: true, pairs: 2 }],
    unexplained: [
      { kind: "refused", overlapError: false, pairsConfirmed: true, pairs: 1 },
      { kind: "refused", overlapError: true, pairsConfirmed: false, pairs: 1 },
      { kind: "refused", overlapError: true, pairsConfirmed: true, pairs: 0 },
    ],
  },
  "string-literal-lines": {
    explained: [line({ tollgate: "  text", cli: "      text", inStringLiteral: true }), line({ tollgate: "      text", cli: "  text", inStringLiteral: true })],
    unexplained: [
      line({ tollgate: "  text", cli: "      text" }),
      line({ tollgate: "  text", cli: "  other", inStringLiteral: true }),
      line({ tollgate: "\ttext", cli: "  text", inStringLiteral: true }),
    ],
  },
  "blank-lines": {
    explained: [line({ tollgate: "", cli: "    " }), line({ tollgate: "\r", cli: "  \r" })],
    unexplained: [line({ tollgate: "}", cli: "    }" }), line({ tollgate: " ", cli: "    " })],
  },
  "template-line-endings": {
    explained: [line({ tollgate: "  a\r", cli: "  a", crlf: true })],
    unexplained: [line({ tollgate: "  a\r", cli: "  a" }), line({ tollgate: "  a", cli: "  a\r", crlf: true })],
  },
  "grammar-versions": {
    explained: [{ kind: "grammars", agree: false }],
    unexplained: [{ kind: "grammars", agree: true }],
  },
  "syntax-errors": {
    explained: [
      { kind: "extra-match", fileHasErrors: true, textAtRange: true },
      { kind: "missing-match", fileHasErrors: true, listedIssue: true, cliMatchOnError: false },
      { kind: "missing-match", fileHasErrors: true, listedIssue: false, cliMatchOnError: true },
      line({ tollgate: "foo(a)", cli: "bar(a)", original: "foo(a)", skippedMatchLine: true }),
    ],
    unexplained: [
      { kind: "extra-match", fileHasErrors: false, textAtRange: true },
      { kind: "extra-match", fileHasErrors: true, textAtRange: false },
      { kind: "missing-match", fileHasErrors: true, listedIssue: false, cliMatchOnError: false },
      { kind: "missing-match", fileHasErrors: false, listedIssue: true, cliMatchOnError: false },
      { kind: "missing-match", fileHasErrors: false, listedIssue: false, cliMatchOnError: true },
      line({ tollgate: "baz(a)", cli: "bar(a)", original: "foo(a)", skippedMatchLine: true }),
    ],
  },
};

describe("allowed differences from the ast-grep CLI", () => {
  it("docs/ast-grep-differences.md is the page generated from the list (npm run docs:differences)", () => {
    const page = readFileSync(path.join(REPO_ROOT, "docs", "ast-grep-differences.md"), "utf8");
    expect(page).toBe(differencesPage());
    for (const d of DIFFERENCES) expect(page).toContain(`## \`${d.id}\`: ${d.title}`);
  });

  it("every entry has a distinct id, a title and a reason", () => {
    expect(new Set(DIFFERENCES.map((d) => d.id)).size).toBe(DIFFERENCES.length);
    for (const d of DIFFERENCES) {
      expect(d.id).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(d.title.length).toBeGreaterThan(10);
      expect(d.reason.length).toBeGreaterThan(40);
    }
    expect(Object.keys(EXAMPLES).sort()).toEqual(DIFFERENCES.map((d) => d.id).sort());
  });

  it.each(DIFFERENCES.map((d) => [d.id]))("%s explains its own differences and no near ones", (id) => {
    const { explained, unexplained } = EXAMPLES[id]!;
    for (const o of explained) expect(explain(o)?.id, JSON.stringify(o)).toBe(id);
    for (const o of unexplained) expect(explain(o), JSON.stringify(o)).toBeUndefined();
  });
});
