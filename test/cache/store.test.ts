import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, copyFileSync, existsSync, utimesSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
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

const packs = (location: string) => readdirSync(path.join(location, ENTRY_DIR)).filter((n) => n.endsWith(".pack"));

/** A pack's header and its entry lines (id, mac, ranges, value text). */
function linesOf(raw: string): { header: string; lines: Array<{ id: string; mac: string; ranges: string; value: string }> } {
  const [header, ...rest] = raw.split("\n");
  const lines = rest.filter((l) => l !== "").map((l) => ({ id: l.slice(0, 64), mac: l.slice(65, 129), ranges: l.slice(130, 194), value: l.slice(195) }));
  return { header: header!, lines };
}
const joinLines = (header: string, lines: ReturnType<typeof linesOf>["lines"]) =>
  [header, ...lines.map((l) => `${l.id} ${l.mac} ${l.ranges} ${l.value}`), ""].join("\n");

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

  it("a pack that is a FIFO is a miss with one warning, at once (reading it would block the run)", async () => {
    const loc = await testdir();
    const a = storeAt(loc);
    a.view.put("TypeScript", content(TEXT), ANSWER);
    await a.store.close();
    const file = path.join(loc, ENTRY_DIR, packs(loc)[0]!);
    rmSync(file);
    await execa("mkfifo", [file]);
    const b = storeAt(loc);
    expect(b.view.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(b.warnings).toHaveLength(1);
    expect(b.warnings[0]).toMatch(/not a regular file \(a FIFO\)/);
  });

  it("treats truncated, corrupt, foreign-build, oversized and forged packs and entries as misses with one warning per run", async () => {
    const loc = await testdir();
    const a = storeAt(loc);
    a.view.put("TypeScript", content(TEXT), ANSWER);
    await a.store.close();
    const [name] = packs(loc);
    const file = path.join(loc, ENTRY_DIR, name!);
    const good = readFileSync(file, "utf8");
    const { header, lines } = linesOf(good);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    const value = JSON.parse(line!.value) as EngineAnswer;
    const forged = (change: Partial<typeof line>) => joinLines(header, [{ ...line!, ...change }]);
    const cases: Array<[string, string | Buffer, RegExp]> = [
      ["truncated entry", good.slice(0, good.length - 9), /not a whole entry/],
      ["truncated header", good.slice(0, 20), /not a whole result pack/],
      ["corrupt", randomBytes(200), /not a whole result pack/],
      ["empty", "", /not a whole result pack/],
      ["corrupt entry", forged({ value: "[1,2," }), /MAC does not verify/],
      ["forged nothing", forged({ value: JSON.stringify({ matches: [], issues: [] }) }), /MAC does not verify/],
      ["forged range", forged({ value: JSON.stringify({ ...value, matches: [{ ...value.matches[0]!, start: 0 }] }) }), /MAC does not verify/],
      ["forged ranges digest", forged({ ranges: "0".repeat(64) }), /MAC does not verify/],
      ["forged MAC", forged({ mac: "00".repeat(32) }), /MAC does not verify/],
      ["oversized entry", forged({ value: " ".repeat(2 * 1024 * 1024) + line!.value }), /larger than 1048576 bytes/],
      ["oversized pack", good + "\n".repeat(5 * 1024 * 1024), /larger than the cache's/],
    ];
    for (const [what, data, why] of cases) {
      writeFileSync(file, data);
      const b = storeAt(loc, { maxEntryBytes: 1024 * 1024, maxBytes: 4 * 1024 * 1024 });
      expect(b.view.get("TypeScript", content(TEXT)), what).toBeUndefined();
      expect(b.view.get("TypeScript", content(TEXT)), what).toBeUndefined();
      expect(b.warnings, what).toHaveLength(1);
      expect(b.warnings[0], what).toMatch(/^result cache: .*ignored/);
      expect(b.warnings[0], what).toMatch(why);
      expect(b.store.stats.unusable, what).toBe(2);
    }
    // An entry of another file's content under this file's id: the MAC binds the id.
    const other = storeAt(loc);
    writeFileSync(file, "");
    other.view.put("TypeScript", content("x"), { matches: [], issues: [] });
    await other.store.close();
    const otherLine = linesOf(readFileSync(file, "utf8")).lines[0]!;
    writeFileSync(file, joinLines(header, [{ ...otherLine, id: line!.id }]));
    const moved = storeAt(loc);
    expect(moved.view.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(moved.warnings.join()).toMatch(/MAC does not verify/);
    // Made by another build (or under another key), copied to where this build looks.
    writeFileSync(file, good);
    const foreign = storeAt(loc, { build: "build-2" });
    foreign.view.put("TypeScript", content(TEXT), ANSWER);
    await foreign.store.close();
    const foreignName = packs(loc).find((n) => n !== name)!;
    copyFileSync(path.join(loc, ENTRY_DIR, foreignName), file);
    const c = storeAt(loc);
    expect(c.view.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(c.warnings.join()).toMatch(/another version/);
    writeFileSync(file, good);
    const d = storeAt(loc, { key: Buffer.alloc(32, 8) });
    expect(d.view.get("TypeScript", content(TEXT))).toBeUndefined();
    expect(d.warnings.join()).toMatch(/MAC does not verify/);
    // The untouched pack still verifies.
    expect(storeAt(loc).view.get("TypeScript", content(TEXT))).toEqual(ANSWER);
  });

  it("serves the whole lines of a damaged pack, and the next run that misses writes it whole again", async () => {
    const loc = await testdir();
    const a = storeAt(loc);
    for (let i = 0; i < 5; i++) a.view.put("TypeScript", content(`${TEXT}//${i}\n`), ANSWER);
    await a.store.close();
    const file = path.join(loc, ENTRY_DIR, packs(loc)[0]!);
    const { header, lines } = linesOf(readFileSync(file, "utf8"));
    // One line forged, the last cut short.
    const damaged = joinLines(header, [{ ...lines[0]!, mac: "11".repeat(32) }, ...lines.slice(1)]);
    writeFileSync(file, damaged.slice(0, damaged.length - 20));
    const b = storeAt(loc);
    const got = Array.from({ length: 5 }, (_, i) => b.view.get("TypeScript", content(`${TEXT}//${i}\n`)));
    expect(got.filter((g) => g !== undefined)).toHaveLength(3);
    expect(b.warnings).toHaveLength(1);
    for (let i = 0; i < 5; i++) if (got[i] === undefined) b.view.put("TypeScript", content(`${TEXT}//${i}\n`), ANSWER);
    await b.store.close();
    const c = storeAt(loc);
    for (let i = 0; i < 5; i++) expect(c.view.get("TypeScript", content(`${TEXT}//${i}\n`))).toEqual(ANSWER);
    expect(c.warnings).toEqual([]);
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
    expect(existsSync(path.join(loc, ENTRY_DIR)) ? packs(loc) : []).toEqual([]);
    expect(a.warnings).toEqual([]);
  });

  it("prunes least recently used packs to the size bound, deleting nothing but its own files", async () => {
    const old = `${"b".repeat(64)}.entry`;
    const loc = await testdir({
      "user.ts": "keep me\n",
      [`${ENTRY_DIR}/notes.txt`]: "mine\n",
      [`${ENTRY_DIR}/${"a".repeat(64)}.txt`]: "mine too\n",
      [`${ENTRY_DIR}/${old}`]: "an entry of the one-file-per-answer format\n",
    });
    const jobView = (store: ResultStore, i: number | string) => store.view("engine", { ops: [{ pat: `foo${i}($A, $B)` }] }, engineCodec)!;
    const a = storeAt(loc);
    for (let i = 0; i < 40; i++) jobView(a.store, i).put("TypeScript", content(TEXT), ANSWER);
    await a.store.close();
    const size = statSync(path.join(loc, ENTRY_DIR, packs(loc)[0]!)).size;
    expect(packs(loc)).toHaveLength(40);
    // Job 0 is used again: the most recently used survives pruning.
    const past = new Date(Date.now() - 60_000);
    for (const n of packs(loc)) utimesSync(path.join(loc, ENTRY_DIR, n), past, past);
    const b = storeAt(loc, { maxBytes: size * 10 });
    expect(jobView(b.store, 0).get("TypeScript", content(TEXT))).toEqual(ANSWER);
    jobView(b.store, "new").put("TypeScript", content(TEXT), ANSWER);
    await b.store.close();
    const left = packs(loc);
    expect(left.length).toBeLessThanOrEqual(10);
    expect(left.length).toBeGreaterThan(0);
    const c = storeAt(loc);
    expect(jobView(c.store, 0).get("TypeScript", content(TEXT))).toEqual(ANSWER);
    expect(jobView(c.store, "new").get("TypeScript", content(TEXT))).toEqual(ANSWER);
    expect(readFileSync(path.join(loc, "user.ts"), "utf8")).toBe("keep me\n");
    expect(readFileSync(path.join(loc, ENTRY_DIR, "notes.txt"), "utf8")).toBe("mine\n");
    expect(existsSync(path.join(loc, ENTRY_DIR, `${"a".repeat(64)}.txt`))).toBe(true);
    expect(existsSync(path.join(loc, ENTRY_DIR, old))).toBe(false);
  });

  it("a run over some files keeps the pack's other answers, and writes nothing when it only used them", async () => {
    const loc = await testdir();
    const a = storeAt(loc);
    for (let i = 0; i < 40; i++) a.view.put("TypeScript", content(`${TEXT}//${i}\n`), ANSWER);
    await a.store.close();
    const [name] = packs(loc);
    const file = path.join(loc, ENTRY_DIR, name!);
    const ino = statSync(file).ino;
    const b = storeAt(loc);
    expect(b.view.get("TypeScript", content(`${TEXT}//3\n`))).toEqual(ANSWER);
    await b.store.close();
    expect(statSync(file).ino).toBe(ino);
    const c = storeAt(loc);
    expect(c.view.get("TypeScript", content(`${TEXT}//3\n`))).toEqual(ANSWER);
    c.view.put("TypeScript", content(`${TEXT}//new\n`), ANSWER);
    await c.store.close();
    expect(packs(loc)).toEqual([name]);
    expect(linesOf(readFileSync(file, "utf8")).lines).toHaveLength(41);
    const d = storeAt(loc);
    for (const i of [...Array.from({ length: 40 }, (_, k) => String(k)), "new"]) expect(d.view.get("TypeScript", content(`${TEXT}//${i}\n`))).toEqual(ANSWER);
    expect(d.warnings).toEqual([]);
  });

  it("keeps a whole pack when runs write it at once", async () => {
    const loc = await testdir();
    const stores = Array.from({ length: 4 }, () => storeAt(loc));
    for (let i = 0; i < 30; i++) for (const s of stores) s.view.put("TypeScript", content(`${TEXT}//${i}\n`), ANSWER);
    await Promise.all(stores.map((s) => s.store.close()));
    const names = readdirSync(path.join(loc, ENTRY_DIR));
    expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(names).toHaveLength(1);
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
