import { close, fstat, open, read } from "node:fs";
import { promisify } from "node:util";
import { InputError } from "../errors.js";
import { ioReason } from "../util/errno.js";

/**
 * Recipes and policies are hand-written configuration: anything over 1 MiB is refused before
 * YAML parsing (a 10 MB document takes seconds to parse only to fail). At most this many
 * bytes (+1) are ever read, so a FIFO or a device such as /dev/zero cannot exhaust memory.
 */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Reads a recipe/policy/approvals file as UTF-8; every failure is an InputError naming the file. */
export async function readConfigFile(file: string, displayName: string, kind: string, max = MAX_CONFIG_BYTES): Promise<string> {
  const cannot = (err: unknown): InputError => new InputError(`${displayName}: cannot read ${kind} (${ioReason(err)})`);
  const tooLarge = (size: string): InputError =>
    new InputError(`${displayName}: cannot read ${kind}: the file is too large (${size}; the limit is ${formatSize(max)})`);
  // The callback API, not node:fs/promises: loading that costs a run's start-up a few milliseconds.
  let fd: number;
  try {
    fd = await promisify(open)(file, "r");
  } catch (err) {
    throw cannot(err);
  }
  try {
    const st = await promisify(fstat)(fd);
    if (st.isFile() && st.size > max) throw tooLarge(formatSize(st.size));
    const buf = Buffer.allocUnsafe(max + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await promisify(read)(fd, buf, got, buf.length - got, null);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got > max) throw tooLarge(`more than ${formatSize(max)}`);
    const bytes = buf.subarray(0, got);
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      // a replacement character would slip into a pattern or a file's content unnoticed
      const valid = bytes
        .subarray(0, firstInvalidUtf8(bytes))
        .toString("utf8")
        .replace(/^\uFEFF/, "");
      const lines = valid.split("\n");
      const where = `${lines.length}:${lines[lines.length - 1]!.length + 1}`;
      throw new InputError(`${displayName}:${where}: cannot read ${kind}: not valid UTF-8`);
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw cannot(err);
  } finally {
    await promisify(close)(fd).catch(() => undefined);
  }
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number.isInteger(bytes / 1024 / 1024) ? bytes / 1024 / 1024 : (bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

/** Offset of the first byte that does not decode as UTF-8 (the file is known to contain one). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  // The longest prefix that decodes (a character cut at its end is fine in stream mode) ends
  // right before the bad byte.
  const decodes = (n: number): boolean => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, n), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (decodes(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
