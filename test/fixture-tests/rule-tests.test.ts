/**
 * `tollgate test sgconfig.yml` against `ast-grep test` (the @ast-grep/cli dev dependency) on the
 * same rule tests: the same verdict for every case (ast-grep's per-rule lines `PASS id  ..W.`,
 * one mark per case, valid cases first), with snapshots written by `ast-grep test -U`, without
 * any, and with one made wrong; `--update` writes snapshots that ast-grep accepts.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it, onTestFinished } from "vitest";
import { REPO_ROOT, testdir, tollgate } from "../helpers/testdir.js";

const FIXTURE = path.join(REPO_ROOT, "test/fixture-tests/fixtures/rule-tests");
const SG = path.join(REPO_ROOT, "node_modules/.bin/ast-grep");

async function copy(root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  await cp(FIXTURE, dir, { recursive: true });
  return dir;
}

/** The per-rule verdict lines, sorted (ast-grep prints rules in no fixed order). */
function lines(out: string): string[] {
  return out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^(PASS|FAIL) \S+ {2}\S*$/.test(l))
    .sort();
}

async function sgTest(dir: string, args: string[] = []): Promise<string[]> {
  const r = await execa(SG, ["test", ...args], { cwd: dir, reject: false, env: { NO_COLOR: "1" } });
  return lines(`${r.stdout}\n${r.stderr}`);
}

async function tgTest(dir: string, args: string[] = []) {
  const r = await tollgate(["test", "sgconfig.yml", ...args], { cwd: dir });
  return { ...r, lines: lines(r.stderr) };
}

describe("tollgate test sgconfig.yml", () => {
  it("gives ast-grep test's verdict for every case", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-rule-tests-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));

    // No snapshots: every invalid case that matches is Wrong (no baseline), in both.
    const bare = await copy(root, "bare");
    const cliBare = await sgTest(bare);
    const tgBare = await tgTest(bare);
    expect(tgBare.lines).toEqual(cliBare);
    expect(tgBare.lines).toContain("FAIL no-var  .NWM");
    expect(tgBare.code).toBe(1);

    // Snapshots from ast-grep test -U: Reported where they hold; Noisy and Missing stay.
    const snap = await copy(root, "snap");
    await execa(SG, ["test", "-U"], { cwd: snap, reject: false });
    const cliSnap = await sgTest(snap);
    const tgSnap = await tgTest(snap);
    expect(tgSnap.lines).toEqual(cliSnap);
    expect(tgSnap.lines).toEqual([
      "FAIL no-var  .N.M",
      "PASS debugger-in-fn  ..",
      "PASS labelled  .",
      "PASS no-console  ..",
      "PASS py-none  ..",
      "PASS to-upper  ...",
    ]);
    expect(tgSnap.stderr).toContain("[Noisy] Expect no-var to report no issue");
    expect(tgSnap.stderr).toContain("[Missing] Expect rule no-var to report issues");

    // A snapshot made wrong (its fixed text) is Wrong in both.
    const file = path.join(snap, "rule-tests/__snapshots__/to-upper-snapshot.yml");
    await writeFile(file, (await readFile(file, "utf8")).replace("fixed: const ABC = 1", "fixed: const abc = 1"));
    const cliWrong = await sgTest(snap);
    const tgWrong = await tgTest(snap);
    expect(tgWrong.lines).toEqual(cliWrong);
    expect(tgWrong.lines).toContain("FAIL to-upper  .W.");

    const json = JSON.parse((await tgTest(snap, ["--reporter", "json"])).stdout);
    const upper = json.runs[0].rules.find((r: any) => r.id === "to-upper");
    expect(upper.cases.map((c: any) => c.verdict)).toEqual(["Validated", "Wrong", "Reported"]);
  }, 60_000);

  it("--update writes the snapshots of Wrong cases in ast-grep's layout, which ast-grep test then accepts", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-rule-tests-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const dir = await copy(root, "upd");
    const up = await tgTest(dir, ["--update"]);
    expect(up.lines).toContain("FAIL no-var  .NUM");
    expect(up.stderr).toMatch(/updated/);
    expect((await readdir(path.join(dir, "rule-tests/__snapshots__"))).sort()).toEqual(
      ["debugger-in-fn", "labelled", "no-console", "no-var", "py-none", "to-upper"].map((id) => `${id}-snapshot.yml`),
    );
    const again = await tgTest(dir);
    expect(again.lines).toEqual([
      "FAIL no-var  .N.M",
      "PASS debugger-in-fn  ..",
      "PASS labelled  .",
      "PASS no-console  ..",
      "PASS py-none  ..",
      "PASS to-upper  ...",
    ]);
    // ast-grep agrees, except where its snapshot also holds the secondary labels of a relational
    // rule, which napi cannot report (docs/ast-scan.md: debugger-in-fn's `inside`).
    const cli = await sgTest(dir);
    expect(cli).toEqual(["FAIL debugger-in-fn  .W", "FAIL no-var  .N.M", "PASS labelled  .", "PASS no-console  ..", "PASS py-none  ..", "PASS to-upper  ..."]);
  }, 60_000);

  it("invalid test files are exit 2 with their place", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "tollgate-rule-tests-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const dir = await copy(root, "bad");
    await writeFile(path.join(dir, "rule-tests/bad-test.yml"), "id: nope\nvalid: ['x']\nbogus: 1\n");
    const r = await tgTest(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('rule-tests/bad-test.yml:3:1: Unknown key "bogus" in rule test');
  }, 30_000);

  it("a test whose id names no rule is skipped, as ast-grep test skips it, and fails nothing", async () => {
    const dir = await testdir({
      "sgconfig.yml": "ruleDirs: [rules]\ntestConfigs:\n  - testDir: tests\n",
      "rules/log.yml": "id: no-log\nlanguage: javascript\nrule: { pattern: console.log($A) }\n",
      "tests/log-test.yml": "id: no-log\nvalid: ['let a = 1']\n",
      "tests/gone-test.yml": "id: gone\nvalid: ['x']\ninvalid: ['y']\n",
    });
    const cli = await execa(SG, ["test"], { cwd: dir, reject: false, env: { NO_COLOR: "1" } });
    expect(cli.stdout).toContain("Configuration not found! gone");
    const tg = await tgTest(dir);
    expect(tg.stderr).toContain("SKIP gone  (no rule with this id in the sgconfig's ruleDirs)");
    expect(tg.lines).toContain("PASS no-log  .");
    expect(tg.stderr).not.toContain("invalid");
    expect(tg.code).toBe(cli.exitCode);
    expect(tg.code).toBe(0);
  }, 60_000);
});
