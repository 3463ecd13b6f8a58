import { describe, expect, it } from "vitest";
import { REPO_ROOT, tollgate } from "../helpers/testdir.js";

// Every example recipe in recipes/ carries fixture cases; they must all pass.
describe("example recipes", () => {
  it("tollgate test recipes passes every fixture case", async () => {
    const r = await tollgate(["test", "recipes", "--reporter", "json"], { cwd: REPO_ROOT });
    const out = JSON.parse(r.stdout);
    const failing = out.cases.filter((c: { status: string }) => c.status !== "passed");
    expect(failing, r.stderr).toEqual([]);
    expect(out.issues, r.stderr).toEqual([]);
    expect(r.code).toBe(0);
    expect(out.cases.length).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
