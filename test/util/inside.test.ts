import path from "node:path";
import { describe, expect, it } from "vitest";
import { displayPath, isContainedPosix, isInside, relativeInside } from "../../src/util/inside.js";
import { plural } from "../../src/util/plural.js";
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

describe("displayPath", () => {
  const base = path.resolve("/w/root");
  it("names a file inside relative to the base, with POSIX separators", () => {
    expect(displayPath(path.join(base, "src", "a.ts"), base)).toBe("src/a.ts");
    expect(displayPath(path.join(base, "..foo"), base)).toBe("..foo");
  });
  it("names the base itself `.` and a file outside as given", () => {
    expect(displayPath(base, base)).toBe(".");
    const outside = path.resolve("/elsewhere/b.ts");
    expect(displayPath(outside, base)).toBe(outside);
    expect(displayPath(path.join(base, "..", "x.ts"), base)).toBe(path.join(base, "..", "x.ts"));
  });
});

describe("plural", () => {
  it("uses the singular for one and the plural (default: +s) for any other count", () => {
    expect(plural(1, "file")).toBe("1 file");
    expect(plural(0, "file")).toBe("0 files");
    expect(plural(2, "fix", "fixes")).toBe("2 fixes");
    expect(plural(1, "fix", "fixes")).toBe("1 fix");
  });
});
