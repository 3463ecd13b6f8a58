import { writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addPathsFor, literalPathspec } from "../../src/campaign/pull-request.js";
import { repositoryFromRemote } from "../../src/util/remote.js";
import { branchProblem, defaultBranch, isRepositoryName, MAX_MATRIX_JOBS, parseRepositoryList, refComponent } from "../../src/campaign/repositories.js";
import { gitdir, testdir, tollgate } from "../helpers/testdir.js";

/** git's own verdict on a branch name (the oracle). */
async function gitAccepts(names: string[]): Promise<boolean[]> {
  // one shell for every name: `git check-ref-format --branch` per name, exit codes in order
  const script = 'for n in "$@"; do if git check-ref-format --branch "$n" >/dev/null 2>&1; then echo 1; else echo 0; fi; done';
  const out = await execa("bash", ["-c", script, "check", ...names]);
  return out.stdout.split("\n").map((l) => l === "1");
}

describe("campaign repository lists", () => {
  it("reads owner/name lines with comments and blank lines, and JSON arrays, to the same list", () => {
    const lines = parseRepositoryList("# the campaign\nacme/api\n\n  acme/web   # the site\r\nacme/docs.github.io\n", "list.txt");
    const json = parseRepositoryList('["acme/api", "acme/web", "acme/docs.github.io"]', "--repositories");
    expect(lines).toEqual({ repositories: ["acme/api", "acme/web", "acme/docs.github.io"], issues: [] });
    expect(json).toEqual(lines);
  });

  it("names every bad entry with its line, duplicates (any case) included", () => {
    const { issues } = parseRepositoryList("acme/api\nnot a name\nacme/API\nacme/..\n-x/y\n", "list.txt");
    expect(issues.map((i) => `${i.line}: ${i.message}`)).toEqual([
      '2: "not a name" is not a repository name (owner/name)',
      "3: acme/API is listed twice",
      '4: "acme/.." is not a repository name (owner/name)',
      '5: "-x/y" is not a repository name (owner/name)',
    ]);
    expect(parseRepositoryList('["acme/api", 3]', "in").issues[0]).toMatchObject({ path: "[1]", message: "3 is not a repository name (owner/name)" });
    expect(parseRepositoryList("[acme/api", "in").issues[0]!.message).toMatch(/^not a JSON array of repositories: /);
    expect(parseRepositoryList("# nothing\n", "in").issues).toEqual([{ file: "in", message: "names no repository" }]);
    expect(MAX_MATRIX_JOBS).toBe(256);
  });

  it("the default branch is tollgate/<recipe name> and git accepts it, for any name", async () => {
    expect(defaultBranch({ name: "Effect.map → andThen", path: "r.yaml" })).toBe("tollgate/Effect.map-andThen");
    expect(defaultBranch({ name: null, path: "recipes/effect-and-then.yaml" })).toBe("tollgate/effect-and-then");
    expect(defaultBranch({ name: "..", path: "r.yaml" })).toBe("tollgate/campaign");
    const names = fc.sample(fc.string({ unit: fc.constantFrom(...Array.from("ab.-/_ ~^:?*[\\@{}é\t.lock")), maxLength: 16 }), { numRuns: 300, seed: 7 });
    const branches = names.map((n) => defaultBranch({ name: n, path: "r.yaml" }));
    expect(await gitAccepts(branches)).toEqual(branches.map(() => true));
    // a valid name is kept as it is
    for (const name of ["effect-and-then", "v2/migrate_api", "a.b"]) expect(refComponent(name)).toBe(name);
  });

  it("a branch given by hand is judged as git judges it", async () => {
    const names = [
      ...[
        "tollgate/x",
        "a..b",
        "a/.b",
        "x.lock",
        "a//b",
        "/a",
        "a/",
        "a.",
        "@",
        "a@{b",
        "-a",
        "a b",
        "a~b",
        "a^b",
        "a:b",
        "a?b",
        "a*b",
        "a[b",
        "a\\b",
        "@{",
        "é/ü",
        "a@b",
        "a.lock/b",
        "",
      ],
      ...fc.sample(fc.string({ unit: fc.constantFrom(...Array.from("ab.-/@{ *~")), maxLength: 8 }), { numRuns: 300, seed: 11 }),
    ];
    // `@` alone: `--branch` reads it as HEAD's branch; as a campaign branch it is refused.
    expect(branchProblem("@")).not.toBeNull();
    const judged = names.filter((n) => n !== "@");
    const verdicts = await gitAccepts(judged);
    expect(judged.map((n) => branchProblem(n) === null)).toEqual(verdicts);
  });
});

describe("the repository a run records", () => {
  it("origin URLs give owner/name on github.com and host/path elsewhere, never credentials", () => {
    expect(repositoryFromRemote("https://github.com/acme/api.git")).toBe("acme/api");
    expect(repositoryFromRemote("https://x-access-token:ghs_secret@github.com/acme/api")).toBe("acme/api");
    expect(repositoryFromRemote("git@github.com:acme/api.git")).toBe("acme/api");
    expect(repositoryFromRemote("ssh://git@github.com/acme/api.git/")).toBe("acme/api");
    expect(repositoryFromRemote("https://gitlab.example.com/group/sub/api.git")).toBe("gitlab.example.com/group/sub/api");
    expect(repositoryFromRemote("git@gitlab.example.com:group/api.git")).toBe("gitlab.example.com/group/api");
    expect(repositoryFromRemote("/srv/git/api.git")).toBe("/srv/git/api");
    expect(repositoryFromRemote("file:///srv/git/api.git")).toBe("/srv/git/api");
    expect(repositoryFromRemote("  ")).toBeNull();
    for (const url of ["https://u:tok@example.com/a/b", "https://tok@github.com/a/b"]) expect(repositoryFromRemote(url)).not.toMatch(/tok/);
  });

  it("run records --repository, else GITHUB_REPOSITORY, else the origin remote, else null", async () => {
    const repo = await gitdir({ "a.ts": "const a = Effect.map(x, f);\n" });
    const out = await testdir({
      "r.yaml":
        "version: 1\nsteps:\n  - tool: ast_edit\n    with: { ops: [{ pat: 'Effect.map($A, $B)', out: 'Effect.andThen($A, $B)' }], lang: ts, path: . }\n",
    });
    const repositoryOf = async (args: string[], env: Record<string, string>) => {
      const report = path.join(out, "report.json");
      const r = await tollgate(["run", path.join(out, "r.yaml"), "--dry-run", "--report", report, ...args], {
        cwd: repo,
        env: { GITHUB_REPOSITORY: "", ...env },
      });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(await (await import("node:fs/promises")).readFile(report, "utf8")).run.repository;
    };
    expect(await repositoryOf([], {})).toBeNull();
    await execa("git", ["remote", "add", "origin", "https://x-access-token:ghs_abc@github.com/acme/api.git"], { cwd: repo });
    expect(await repositoryOf([], {})).toBe("acme/api");
    expect(await repositoryOf([], { GITHUB_REPOSITORY: "acme/caller" })).toBe("acme/caller");
    expect(await repositoryOf(["--repository", "acme/target"], { GITHUB_REPOSITORY: "acme/caller" })).toBe("acme/target");
  });
});

describe("add-paths for create-pull-request", () => {
  /** What create-pull-request does with add-paths: split on commas and newlines, trim, `git add -- …` (or `-A` when empty). */
  async function stagedBy(repo: string, addPaths: string[]): Promise<string[]> {
    const split = addPaths
      .join("\n")
      .split(/[\n,]+/)
      .map((s) => s.trim())
      .filter((s) => s !== "");
    await execa("git", ["add", ...(split.length > 0 ? ["--", ...split] : ["-A"])], { cwd: repo });
    const out = (await execa("git", ["diff", "--cached", "--name-only", "-z"], { cwd: repo })).stdout;
    return out.split("\0").filter(Boolean).sort();
  }

  async function changedRepo(applied: string[], others: string[]) {
    const files: Record<string, string> = {};
    for (const n of [...applied, ...others]) files[n] = "before\n";
    const repo = await gitdir(files);
    for (const n of [...applied, ...others]) await writeFile(path.join(repo, n), "after\n");
    return repo;
  }

  it("names exactly the applied files, glob characters and non-ASCII included, and leaves other changes out", async () => {
    const applied = ["plain.ts", "star*.ts", "q?.ts", "br[a].ts", "dir/ünï.ts", ":(glob)x.ts"];
    const others = ["star1.ts", "qx.ts", "bra.ts", "built.js"];
    const repo = await changedRepo(applied, others);
    const add = addPathsFor(applied, [...applied, ...others]);
    expect("addPaths" in add && add.addPaths.every((p) => p.startsWith(":(literal)"))).toBe(true);
    expect(await stagedBy(repo, "addPaths" in add ? add.addPaths : [])).toEqual([...applied].sort());
  });

  it("a file the list cannot name goes in when every change is applied, else the pull request is refused with the reason", async () => {
    const applied = ["with,comma.ts", " lead.ts", "plain.ts"];
    const repo = await changedRepo(applied, []);
    const all = addPathsFor(applied, applied);
    expect(all).toEqual({ addPaths: [] });
    expect(await stagedBy(repo, [])).toEqual([...applied].sort());
    const mixed = addPathsFor(applied, [...applied, "withXcomma.ts"]);
    expect("problem" in mixed && mixed.problem).toMatch(
      /^"with,comma.ts", " lead.ts" cannot be named to create-pull-request .* while other files changed too \("withXcomma.ts"\)$/,
    );
    expect(literalPathspec("a,b")).toBeNull();
    expect(literalPathspec("a b")).toBe(":(literal)a b");
  });
});

describe("repository names", () => {
  it("accepts GitHub's owner/name forms only", () => {
    for (const ok of ["a/b", "acme-co/api.v2", "A1/_x-y.z"]) expect(isRepositoryName(ok), ok).toBe(true);
    for (const bad of ["a", "a/b/c", "-a/b", "a/.", "a/..", "a b/c", "a/b c", `${"a".repeat(40)}/b`]) expect(isRepositoryName(bad), bad).toBe(false);
  });
});
