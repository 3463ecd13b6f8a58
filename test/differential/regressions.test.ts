/**
 * Findings of the generative differential sweeps, each reduced to a small input: tollgate's
 * matches are compared with the ast-grep CLI's on the same files (the CLI is the oracle).
 */
import { describe, expect, it } from "vitest";
import { testdir } from "../helpers/testdir.js";
import { makeHost } from "../tools/helpers.js";
import { rangeKey } from "./compare.js";
import { scanPatterns } from "./cli.js";

/** `file:line:col-line:col text` of every match, sorted. */
const keys = (ms: Array<{ file: string; line: number; col: number; endLine: number; endCol: number; text: string }>) =>
  ms.map((m) => `${m.file}:${rangeKey(m)} ${JSON.stringify(m.text)}`).sort();

async function both(files: Record<string, string>, lang: string, cliLang: string, pat: string) {
  const dir = await testdir(files);
  const cli = keys(scanPatterns(dir, cliLang, [pat]));
  const { details } = await makeHost(dir).call("ast_grep", { pat: [pat], lang, limit: 1_000_000 });
  const tg = keys((details.matches as Array<{ path: string } & Parameters<typeof keys>[0][number]>).map((m) => ({ ...m, file: m.path })));
  return { cli, tg, details };
}

describe("generative differential findings", () => {
  it("a pattern whose parse keeps one metavariable matches ERROR nodes too, as the CLI's does (CSS `91.6667$A`)", async () => {
    // `2n-1` parses with an ERROR node for `-1`; the CLI's pattern `91.6667$A` is `$A` alone.
    const { cli, tg } = await both({ "a.css": ".t tr:nth-child(2n-1) td { color: red; }\n" }, "css", "Css", "91.6667$A");
    expect(cli).toContain('a.css:1:19-1:21 "-1"');
    expect(tg).toEqual(cli);
  });
});
