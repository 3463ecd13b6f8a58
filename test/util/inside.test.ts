import path from "node:path";
import { describe, expect, it } from "vitest";
import { isContainedPosix, isInside, relativeInside } from "../../src/util/inside.js";
import { containPath } from "../../src/workspace/paths.js";
import { testdir } from "../helpers/testdir.js";

describe("isInside", () => {
  const root = path.resolve("/w/root");
  it("a file whose name starts with two dots is inside", () => {
    expect(isInside(root, path.join(root, "..foo"))).toBe(true);
    expect(relativeInside(root, path.join(root, "..foo", "a.ts"))).toBe("..foo/a.ts");
    expect(isContainedPosix("..foo")).toBe(true);
    expect(isContainedPosix("a/..b/c")).toBe(true);
  });
  it("the parent, a sibling and absolute paths elsewhere are outside", () => {
    expect(isInside(root, path.resolve("/w"))).toBe(false);
    expect(isInside(root, path.resolve("/w/rootx"))).toBe(false);
    expect(isInside(root, path.join(root, "..", "x"))).toBe(false);
    expect(relativeInside(root, root)).toBeUndefined();
    expect(isInside(root, root)).toBe(true);
    expect(isContainedPosix("../x")).toBe(false);
    expect(isContainedPosix("..")).toBe(false);
    expect(isContainedPosix("a/../../x")).toBe(false);
    expect(isContainedPosix("/etc/passwd")).toBe(false);
    expect(isContainedPosix(".")).toBe(false);
  });
  it("the workspace contains a file named ..foo (containPath)", async () => {
    const dir = await testdir({ "..foo": "x\n" });
    expect(containPath(dir, "..foo").rel).toBe("..foo");
  });
});
