import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../src/cli/app.js";
import { quickParse } from "../../src/cli/quick-parse.js";

// A plain `run` line skips yargs: what the command then receives must be exactly what yargs gives.

const QUICK: string[][] = [
  ["run", "recipe.yaml", "src/a.ts", "--check"],
  ["run", "--check", "--recipe", ".recipes/migrate.yaml", "src/a.ts", "src/b.ts"],
  ["run", "--mode", "auto-apply", "--recipe", "r.yaml", "a.ts"],
  ["run", "recipe.yaml", "--dry-run", "--approve-all", "--atomic", "--cache", "--color"],
  ["run", "recipe.yaml", "--policy", "p.yaml", "--format", "json", "--cwd", ".", "--report", "r.json", "--patch", "x.patch"],
  ["run", "recipe.yaml", "--summary", "s.md", "--sarif", "s.sarif", "--shard", "1/2", "--repository", "o/r", "--approvals", "a.yaml"],
  ["run", "recipe.yaml", "--changed-since", "HEAD~1", "--cache-location", "dir", "--cache"],
  ["run", "recipe.yaml", "12", "0x10", "1e3", "true", "--check"],
  ["run", "--check", "recipe.yaml"],
  ["run", "recipe.yaml", "--policy", "12"],
];

const YARGS: string[][] = [
  ["run"],
  ["run", "--check"],
  ["run", "recipe.yaml", "--check=true"],
  ["run", "recipe.yaml", "--check", "false"],
  ["run", "recipe.yaml", "--check", "true"],
  ["run", "recipe.yaml", "--no-check"],
  ["run", "recipe.yaml", "--check", "--check"],
  ["run", "recipe.yaml", "--approve", "a#1"],
  ["run", "recipe.yaml", "--var", "k=v"],
  ["run", "recipe.yaml", "--policy"],
  ["run", "recipe.yaml", "--policy", "--check"],
  ["run", "recipe.yaml", "--mode", "sometimes"],
  ["run", "recipe.yaml", "--format", "xml"],
  ["run", "recipe.yaml", "--polcy", "p.yaml"],
  ["run", "recipe.yaml", "-h"],
  ["run", "recipe.yaml", "--help"],
  ["run", "recipe.yaml", "--", "--check"],
  ["run", "recipe.yaml", "--policy", ""],
  ["plan", "recipe.yaml"],
  ["--check", "run", "recipe.yaml"],
];

describe("the quick parse of a plain run line", () => {
  it.each(QUICK)("gives what yargs gives: %s", async (...argv) => {
    const quick = quickParse(argv);
    expect(quick).toBeDefined();
    expect(quick).toEqual((await parseCommandLine(argv)).parsed);
  });

  it.each(YARGS)("leaves anything else to yargs: %s", (...argv) => {
    expect(quickParse(argv)).toBeUndefined();
  });
});
