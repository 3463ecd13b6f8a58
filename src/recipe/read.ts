import { open } from "node:fs/promises";
import { InputError } from "../errors.js";

/**
 * Recipes and policies are hand-written configuration: anything over 1 MiB is refused before
 * YAML parsing (a 10 MB document takes seconds to parse only to fail). At most this many
 * bytes (+1) are ever read, so a FIFO or a device such as /dev/zero cannot exhaust memory.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Reads a recipe/policy/approvals file as UTF-8; every failure is an InputError naming the file. */
export async function readConfigFile(file: string, displayName: string, kind: string, max = MAX_CONFIG_BYTES): Promise<string> {
  const cannot = (err: unknown): InputError => {
    const code = (err as NodeJS.ErrnoException).code;
    return new InputError(`${displayName}: cannot read ${kind} (${code === "ENOENT" ? "file not found" : code ?? String(err)})`);
  };
  const tooLarge = (size: string): InputError =>
    new InputError(`${displayName}: cannot read ${kind}: the file is too large (${size}; the limit is ${formatSize(max)})`);
  let fh;
  try {
    fh = await open(file, "r");
  } catch (err) {
    throw cannot(err);
  }
  try {
    const st = await fh.stat();
    if (st.isFile() && st.size > max) throw tooLarge(formatSize(st.size));
    const buf = Buffer.allocUnsafe(max + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, null);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got > max) throw tooLarge(`more than ${formatSize(max)}`);
    return buf.subarray(0, got).toString("utf8");
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw cannot(err);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number.isInteger(bytes / 1024 / 1024) ? bytes / 1024 / 1024 : (bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
