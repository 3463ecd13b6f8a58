import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { NotRegularFileError, RegularFileReader, readRegularFileBounded, readRegularFileSync } from "../../src/util/regular.js";
import { testdir } from "../helpers/testdir.js";

describe("reading regular files", () => {
  it("RegularFileReader gives each file's bytes, smaller and larger than its buffer, in any order", async () => {
    const dir = await testdir();
    const sizes = [0, 1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 300_000, 7, 1_000_000, 3];
    const files = sizes.map((n, i) => {
      const file = path.join(dir, `f${i}`);
      writeFileSync(file, randomBytes(n));
      return file;
    });
    const reader = new RegularFileReader();
    for (const file of [...files, ...files.reverse()]) {
      expect(Buffer.compare(reader.read(file, 2_000_000)!, readFileSync(file)), file).toBe(0);
      expect(Buffer.compare(readRegularFileSync(file), readFileSync(file)), file).toBe(0);
    }
  });

  it("a file of more than `max` bytes is null; one of exactly `max` is read", async () => {
    const dir = await testdir();
    const file = path.join(dir, "f");
    writeFileSync(file, randomBytes(100_000));
    const reader = new RegularFileReader();
    expect(reader.read(file, 99_999)).toBeNull();
    expect(reader.read(file, 100_000)?.length).toBe(100_000);
    expect(readRegularFileBounded(file, 99_999)).toBeNull();
    expect(Buffer.compare(readRegularFileBounded(file, 100_000)!, readFileSync(file))).toBe(0);
  });

  it("a FIFO is refused at once, a directory with EISDIR, an absent file as fs says", async () => {
    const dir = await testdir();
    await execa("mkfifo", [path.join(dir, "pipe")]);
    mkdirSync(path.join(dir, "sub"));
    const reader = new RegularFileReader();
    expect(() => reader.read(path.join(dir, "pipe"), 1000)).toThrow(NotRegularFileError);
    expect(() => readRegularFileSync(path.join(dir, "pipe"))).toThrow(/not a regular file \(a FIFO\)/);
    expect(() => reader.read(path.join(dir, "sub"), 1000)).toThrow(expect.objectContaining({ code: "EISDIR" }));
    expect(() => reader.read(path.join(dir, "absent"), 1000)).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });
});
