import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync, copyFileSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { engineCodec, type EngineAnswer } from "../../src/cache/answers.js";
import { sha256 } from "../../src/util/hash.js";
import { ResultCache } from "../../src/cache/index.js";
import { ENTRY_DIR, ResultStore } from "../../src/cache/store.js";
import { testdir } from "../helpers/testdir.js";

const TEXT = "const a = foo(1, 2);\nbar(a);\n";
const ANSWER: EngineAnswer = {
  matches: [{ op: 0, start: 10, end: 19, captures: { A: [14, 15], B: [17, 18] } }],
  issues: [],
};
const content = (text: string) => ({ sha256: sha256(text), text });

function storeAt(location: string, options: { key?: Buffer; build?: string; maxBytes?: number; maxEntryBytes?: number } = {}) {
  const warnings: string[] = [];
  const store = new ResultStore({
    location,
    key: options.key ?? Buffer.alloc(32, 7),
    build: options.build ?? "build-1",
    warn: (l) => warnings.push(l),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.maxEntryBytes !== undefined ? { maxEntryBytes: options.maxEntryBytes } : {}),
  });
  const view = store.view("engine", { ops: [{ pat: "foo($A, $B)" }] }, engineCodec)!;
  return { store, view, warnings };
}

const entries = (location: string) => readdirSync(path.join(location, ENTRY_DIR)).filter((n) => n.endsWith(".entry"));

describe("result store", () => {
  it("returns what was put, for the same job, part and content only", async () => {
    const loc = await testdir();
    const a = storeAt(loc);
    a.view.put("TypeScript", content(TEXT), ANSWER);
    await a.store.close();
    const b = storeAt(loc);
    expect(b.view.get("TypeScript", content(TEXT))).toEqual(ANSWER);
    expect(b.view.get("JavaScript", content(TEXT))).toBeUndefined();
    expect(b.view.get("TypeScript", content(TEXT + " "))).toBeUndefined();
    const other = b.store.view("engine", { ops: [{ pat: "foo($A, $C)" }] }, engineCodec)!;
    expect(other.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(b.warnings).toEqual([]);
    expect(b.store.stats).toMatchObject({ hits: 1, misses: 3, unusable: 0 });
  });

  it("treats truncated, corrupt, foreign-build, oversized and forged entries as misses with one warning per run", async () => {
    const loc = await testdir();
    const a = storeAt(loc);
    a.view.put("TypeScript", content(TEXT), ANSWER);
    await a.store.close();
    const [name] = entries(loc);
    const file = path.join(loc, ENTRY_DIR, name!);
    const good = readFileSync(file, "utf8");
    const entry = JSON.parse(good) as { value: EngineAnswer; mac: string };

    const forgedNothing = JSON.stringify({ ...entry, value: { matches: [], issues: [] } });
    const forgedRange = JSON.stringify({ ...entry, value: { ...entry.value, matches: [{ ...entry.value.matches[0]!, start: 0 }] } });
    const cases: Array<[string, string | Buffer]> = [
      ["truncated", good.slice(0, good.length >> 1)],
      ["corrupt", randomBytes(200)],
      ["empty", ""],
      ["not an object", "[1,2,3]"],
      ["forged nothing", forgedNothing],
      ["forged range", forgedRange],
      ["forged MAC", JSON.stringify({ ...entry, mac: "00".repeat(32) })],
      ["oversized", " ".repeat(2 * 1024 * 1024) + good],
    ];
    for (const [what, data] of cases) {
      writeFileSync(file, data);
      const b = storeAt(loc, { maxEntryBytes: 1024 * 1024 });
      expect(b.view.get("TypeScript", content(TEXT)), what).toBeUndefined();
      expect(b.view.get("TypeScript", content(TEXT)), what).toBeUndefined();
      expect(b.warnings, what).toHaveLength(1);
      expect(b.warnings[0], what).toMatch(/^result cache: .*ignored/);
      expect(b.store.stats.unusable, what).toBe(2);
    }
    // Made by another build (or under another key), copied to where this build looks.
    writeFileSync(file, good);
    const foreign = storeAt(loc, { build: "build-2" });
    foreign.view.put("TypeScript", content(TEXT), ANSWER);
    await foreign.store.close();
    const foreignName = entries(loc).find((n) => n !== name)!;
    copyFileSync(path.join(loc, ENTRY_DIR, foreignName), file);
    const c = storeAt(loc);
    expect(c.view.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(c.warnings.join()).toMatch(/another version/);
    writeFileSync(file, good);
    const d = storeAt(loc, { key: Buffer.alloc(32, 8) });
    expect(d.view.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(d.warnings.join()).toMatch(/MAC does not verify/);
    // The untouched entry still verifies.
    expect(storeAt(loc).view.get("TypeScript", content(TEXT))).toEqual(ANSWER);
  });

  it("uses an entry only where the file holds the recorded text at every range", async () => {
    const loc = await testdir();
    const a = storeAt(loc);
    // Signed with the right key but recorded against other text: as a forger holding the key could.
    a.view.put("TypeScript", { sha256: sha256(TEXT), text: TEXT.replace("foo", "fob") }, ANSWER);
    await a.store.close();
    const b = storeAt(loc);
    expect(b.view.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(b.warnings.join()).toMatch(/recorded text does not match/);
  });

  it("never writes an entry over the entry size bound, and never a range outside the text", async () => {
    const loc = await testdir();
    const a = storeAt(loc, { maxEntryBytes: 4096 });
    const many: EngineAnswer = { matches: Array.from({ length: 500 }, (_, i) => ({ op: 0, start: 0, end: 1, captures: { [`A${i}`]: [0, 1] } })), issues: [] };
    a.view.put("TypeScript", content(TEXT), many);
    a.view.put("JavaScript", content(TEXT), { matches: [{ op: 0, start: 0, end: 999, captures: {} }], issues: [] });
    await a.store.close();
    expect(existsSync(path.join(loc, ENTRY_DIR)) ? entries(loc) : []).toEqual([]);
    expect(a.warnings).toEqual([]);
  });

  it("prunes least recently used entries to the size bound, deleting nothing but its own entries", async () => {
    const loc = await testdir({ "user.ts": "keep me\n", [`${ENTRY_DIR}/notes.txt`]: "mine\n", [`${ENTRY_DIR}/${"a".repeat(64)}.txt`]: "mine too\n" });
    const a = storeAt(loc);
    for (let i = 0; i < 40; i++) a.view.put("TypeScript", content(`${TEXT}//${i}\n`), ANSWER);
    await a.store.close();
    const size = statSync(path.join(loc, ENTRY_DIR, entries(loc)[0]!)).size;
    expect(entries(loc)).toHaveLength(40);
    // Entry 0 is used again: the most recently used survives pruning.
    const past = new Date(Date.now() - 60_000);
    for (const n of entries(loc)) (await import("node:fs")).utimesSync(path.join(loc, ENTRY_DIR, n), past, past);
    const b = storeAt(loc, { maxBytes: size * 10 });
    expect(b.view.get("TypeScript", content(`${TEXT}//0\n`))).toEqual(ANSWER);
    b.view.put("TypeScript", content(`${TEXT}//new\n`), ANSWER);
    await b.store.close();
    const left = entries(loc);
    expect(left.length).toBeLessThanOrEqual(10);
    expect(left.length).toBeGreaterThan(0);
    const c = storeAt(loc);
    expect(c.view.get("TypeScript", content(`${TEXT}//0\n`))).toEqual(ANSWER);
    expect(c.view.get("TypeScript", content(`${TEXT}//new\n`))).toEqual(ANSWER);
    expect(readFileSync(path.join(loc, "user.ts"), "utf8")).toBe("keep me\n");
    expect(readFileSync(path.join(loc, ENTRY_DIR, "notes.txt"), "utf8")).toBe("mine\n");
    expect(existsSync(path.join(loc, ENTRY_DIR, `${"a".repeat(64)}.txt`))).toBe(true);
  });

  it("keeps whole entries when runs write the same entries at once", async () => {
    const loc = await testdir();
    const stores = Array.from({ length: 4 }, () => storeAt(loc));
    for (let i = 0; i < 30; i++) for (const s of stores) s.view.put("TypeScript", content(`${TEXT}//${i}\n`), ANSWER);
    await Promise.all(stores.map((s) => s.store.close()));
    const names = readdirSync(path.join(loc, ENTRY_DIR));
    expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(names).toHaveLength(30);
    const check = storeAt(loc);
    for (let i = 0; i < 30; i++) expect(check.view.get("TypeScript", content(`${TEXT}//${i}\n`))).toEqual(ANSWER);
    expect(check.warnings).toEqual([]);
  });

  it("warns once and goes on when the cache cannot be written", async () => {
    const loc = await testdir({ [ENTRY_DIR]: "a file where the directory should be\n" });
    const a = storeAt(loc);
    a.view.put("TypeScript", content(TEXT), ANSWER);
    a.view.put("TypeScript", content(TEXT + "x"), ANSWER);
    await a.store.close();
    expect(a.warnings).toHaveLength(1);
    expect(a.warnings[0]).toMatch(/cannot write/);
  });

  it("keys ast_scan rules by everything but where they were read from", async () => {
    const loc = await testdir();
    mkdirSync(loc, { recursive: true });
    const cache = new ResultCache(storeAt(loc).store);
    const rule = { id: "r", lang: "TypeScript", rule: { pattern: "foo($A)" }, severity: "error" as const, message: "m" };
    const answer = [{ good: [{ start: 10, end: 19, message: "m" }], bad: [] }];
    cache.scan([{ ...rule, origin: { file: "a.yml", line: 1, col: 1 } }])!.put("TypeScript", content(TEXT), answer);
    await cache.close();
    const again = new ResultCache(storeAt(loc).store);
    expect(again.scan([{ ...rule, origin: { file: "b.yml", line: 9, col: 1 } }])!.get("TypeScript", content(TEXT))).toEqual(answer);
    expect(again.scan([{ ...rule, message: "other", origin: { file: "a.yml", line: 1, col: 1 } }])!.get("TypeScript", content(TEXT))).toBeUndefined();
  });
});
