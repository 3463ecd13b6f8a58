/**
 * The result cache's file format: one pack per (build, job), a text file of lines.
 *
 *     tollgate-results <format> <pack id> <build>\n
 *     <id> <mac> <ranges> <value JSON>\n          one line per file answer
 *
 * `id`, `mac` and `ranges` are 64 hex digits each; `id` names the file's content (its part and
 * sha256), `ranges` is the digest of the text at every range the value records, and `mac` is an
 * HMAC-SHA256 over the format, the pack id (which holds the build and the job), the id, the
 * ranges and the value's bytes. A line is checked only when it is asked for, so a run that needs
 * a few answers reads the pack but verifies and parses only those; a line cut short, or one whose
 * MAC does not verify, is unusable by itself and the rest of the pack still serves.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { readRegularFileBounded } from "../util/regular.js";

const PACK_FORMAT = 2;
const MAGIC = "tollgate-results";
const HEX = 64;
/** Offsets in a line: id, mac, ranges, value. */
const MAC_AT = HEX + 1;
const RANGES_AT = MAC_AT + HEX + 1;
const VALUE_AT = RANGES_AT + HEX + 1;
const NEWLINE = 0x0a;

/** Where a pack's lines are: an id's [start, end) in the buffer (end excludes the newline), and whether the line was whole. */
export interface PackIndex {
  buf: Buffer;
  lines: Map<string, { start: number; end: number; whole: boolean }>;
}

/** Thrown by readBounded for a file over the bound. */
export class OversizedError extends Error {}

/**
 * A pack's bytes, at most `max` of them (OversizedError beyond); throws as fs does when it is
 * absent, and NotRegularFileError for anything but a regular file (a FIFO would block the run).
 */
export function readBounded(file: string, max: number): Buffer {
  const bytes = readRegularFileBounded(file, max);
  if (bytes === null) throw new OversizedError();
  return bytes;
}

export function packHeader(packId: string, build: string): string {
  return `${MAGIC} ${PACK_FORMAT} ${packId} ${build}\n`;
}

/** The lines of a pack made for `packId` under `build`, or why it cannot serve. */
export function indexPack(buf: Buffer, packId: string, build: string): PackIndex | { why: string } {
  const headEnd = buf.indexOf(NEWLINE);
  const head = headEnd === -1 ? "" : buf.toString("latin1", 0, headEnd);
  const [magic, format, id, built, ...rest] = head.split(" ");
  if (magic !== MAGIC || format === undefined || id === undefined || built === undefined || rest.length > 0)
    return { why: "not a whole result pack (truncated or corrupt)" };
  if (format !== String(PACK_FORMAT) || built !== build) return { why: "made by another version of tollgate or its engine" };
  if (id !== packId) return { why: "recorded for another step" };
  const lines: PackIndex["lines"] = new Map();
  let start = headEnd + 1;
  while (start < buf.length) {
    const nl = buf.indexOf(NEWLINE, start);
    const end = nl === -1 ? buf.length : nl;
    if (end - start > HEX) lines.set(buf.toString("latin1", start, start + HEX), { start, end, whole: nl !== -1 });
    start = end + 1;
  }
  return { buf, lines };
}

function macOf(key: Buffer, packId: string, id: string, ranges: string | Buffer, value: string | Buffer): Buffer {
  return createHmac("sha256", key).update(`tollgate-cache\0${PACK_FORMAT}\0${packId}\0${id}\0`).update(ranges).update("\0").update(value).digest();
}

/** One line of a pack, newline included. */
export function packLine(key: Buffer, packId: string, id: string, ranges: string, valueText: string): string {
  return `${id} ${macOf(key, packId, id, ranges, valueText).toString("hex")} ${ranges} ${valueText}\n`;
}

/** A line's recorded ranges digest and value, once its MAC verifies; else why it is unusable. */
export function openLine(key: Buffer, packId: string, id: string, index: PackIndex): { ranges: string; value: unknown } | { why: string } | undefined {
  const at = index.lines.get(id);
  if (at === undefined) return undefined;
  const { buf } = index;
  const { start, end } = at;
  if (!at.whole || end - start < VALUE_AT || buf[start + HEX] !== 0x20 || buf[start + RANGES_AT - 1] !== 0x20 || buf[start + VALUE_AT - 1] !== 0x20)
    return { why: "not a whole entry (truncated or corrupt)" };
  const given = Buffer.from(buf.toString("latin1", start + MAC_AT, start + MAC_AT + HEX), "hex");
  const rangesBytes = buf.subarray(start + RANGES_AT, start + RANGES_AT + HEX);
  const valueBytes = buf.subarray(start + VALUE_AT, end);
  const expected = macOf(key, packId, id, rangesBytes, valueBytes);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { why: "its MAC does not verify (corrupt, forged, or made under another cache key)" };
  try {
    return { ranges: rangesBytes.toString("latin1"), value: JSON.parse(valueBytes.toString("utf8")) as unknown };
  } catch {
    return { why: "not a whole entry (truncated or corrupt)" };
  }
}

/** The raw line of `id` (newline included) for carrying it into a rewritten pack. */
export function rawLine(index: PackIndex, id: string): Buffer | undefined {
  const at = index.lines.get(id);
  return at?.whole ? index.buf.subarray(at.start, at.end + 1) : undefined;
}
