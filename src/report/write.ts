import { mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { TollgateError } from "../errors.js";

/**
 * Output files of the CLI (report, patch, summary, plan): atomic, parent directories created.
 * A path that cannot be written is one clear line naming it (exit 3: the run already happened),
 * not an "internal error" with a raw errno text.
 */
export async function writeFileAtomicText(file: string, text: string): Promise<void> {
  const abs = path.resolve(file);
  try {
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFileAtomic(abs, text, { encoding: "utf8" });
  } catch (err) {
    throw cannotWrite(file, err);
  }
}

/** Why an output file could not be written, as one line (exit 3). */
function cannotWrite(file: string, err: unknown): TollgateError {
  const e = err as NodeJS.ErrnoException;
  const why =
    e.code === "EEXIST" || e.code === "ENOTDIR"
      ? "a parent path is a file"
      : e.code === "EISDIR"
        ? "it is a directory"
        : e.code === "EACCES" || e.code === "EPERM"
          ? "permission denied"
          : (e.code ?? e.message);
  return new TollgateError(`tollgate: cannot write ${file}: ${why}`, 3);
}

let streamCounter = 0;

/**
 * An output file written piece by piece and still atomically: the pieces go to a temp file in
 * the same directory, which replaces the target only once complete (a failure or an interrupt
 * leaves the previous file, never half of a new one).
 */
export async function writeFileAtomicStream(file: string, produce: (write: (chunk: string) => Promise<void>) => Promise<void>): Promise<void> {
  const abs = path.resolve(file);
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.tollgate-${process.pid}-${++streamCounter}.tmp`);
  let handle: FileHandle | undefined;
  try {
    await mkdir(path.dirname(abs), { recursive: true });
    handle = await open(tmp, "wx", 0o666);
  } catch (err) {
    throw cannotWrite(file, err);
  }
  const h = handle;
  try {
    // Small pieces are gathered so a report of many outcomes is not thousands of tiny writes.
    let buffered: string[] = [];
    let size = 0;
    const flush = async () => {
      if (size === 0) return;
      const data = buffered.join("");
      buffered = [];
      size = 0;
      await h.write(data);
    };
    await produce(async (chunk) => {
      buffered.push(chunk);
      size += chunk.length;
      if (size >= 1 << 20) await flush();
    });
    await flush();
    await h.close();
    handle = undefined;
    try {
      await rename(tmp, abs);
    } catch (err) {
      throw cannotWrite(file, err);
    }
  } catch (err) {
    await handle?.close().catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
}
