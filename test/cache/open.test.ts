import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { engineBuildId, engineVersions } from "../../src/cache/build.js";
import { cacheKey, defaultLocation } from "../../src/cache/open.js";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";

describe("opening the result cache", () => {
  it("the build id follows the code files and nothing else", async () => {
    const dir = await testdir({ "cli.cjs": "a()", "chunk.js": "b()", ".code-cache/run.bin": "x", "types.d.ts": "export {}" });
    const id = engineBuildId(dir);
    writeFileSync(path.join(dir, ".code-cache/run.bin"), "y");
    writeFileSync(path.join(dir, "types.d.ts"), "export type T = 1");
    writeFileSync(path.join(dir, "notes.txt"), "n");
    expect(engineBuildId(dir)).toBe(id);
    writeFileSync(path.join(dir, "chunk.js"), "b(1)");
    expect(engineBuildId(dir)).not.toBe(id);
  });

  it("the versions are napi's and every installed language package's", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const versions = engineVersions(path.join(REPO_ROOT, "src"));
    for (const [name, version] of Object.entries(pkg.dependencies)) {
      if (name === "@ast-grep/napi" || name.startsWith("@ast-grep/lang-")) expect(versions).toContain(`${name}@${version}`);
    }
  });

  it("the MAC key: TOLLGATE_CACHE_KEY when set, else one key file in the state directory, made once, private", async () => {
    const state = await testdir();
    expect(cacheKey({ TOLLGATE_CACHE_KEY: "s3cret", XDG_STATE_HOME: state }).toString("utf8")).toBe("s3cret");
    const env = { XDG_STATE_HOME: state };
    const keys = Array.from({ length: 5 }, () => cacheKey(env).toString("hex"));
    expect(new Set(keys).size).toBe(1);
    const file = path.join(state, "tollgate", "cache.key");
    expect(readFileSync(file, "utf8")).toBe(keys[0]);
    expect(statSync(file).mode & 0o077).toBe(0);
    writeFileSync(file, "not a key");
    expect(() => cacheKey(env)).toThrow(/is not a cache key/);
  });

  it("the default location: node_modules/.cache/tollgate/ where node_modules/ exists, else XDG_CACHE_HOME/tollgate/<hash>/", async () => {
    const withModules = await testdir({ "node_modules/.keep": "" });
    expect(defaultLocation(withModules, {})).toBe(path.join(withModules, "node_modules", ".cache", "tollgate"));
    const bare = await testdir();
    const other = await testdir();
    const xdg = await testdir();
    const a = defaultLocation(bare, { XDG_CACHE_HOME: xdg });
    expect(path.dirname(a)).toBe(path.join(xdg, "tollgate"));
    expect(path.basename(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(defaultLocation(other, { XDG_CACHE_HOME: xdg })).not.toBe(a);
    mkdirSync(path.join(bare, "node_modules.txt"), { recursive: true });
    expect(defaultLocation(bare, { XDG_CACHE_HOME: xdg })).toBe(a);
  });
});
