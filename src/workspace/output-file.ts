import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { TollgateError } from "../errors.js";
import { ioReason } from "../util/errno.js";
import { tempFileName } from "./fs.js";

/**
 * The one way tollgate writes its own files outside a run's transaction (the CLI's report,
 * patch, summary, SARIF, plan, and what else a command writes for the user, wherever the user
 * names them; the journal's record in the state directory). A regular file is
 * written atomically: the pieces go to a temp file in the same directory (parent directories
 * created), which replaces the target only once complete, so a failure or an interrupt leaves
 * the previous file, never half of a new one. A target that exists and is not a regular file
 * or directory (`/dev/stdout`, a FIFO, `/dev/null`) is written into as it is, never replaced.
 *
 * Whatever stops the file being written (a full disk, no permission, a read-only filesystem, a
 * parent that is a file) is one line naming the file and the reason, exit 3: a requested
 * output that is missing is a failure, whatever the run itself came to.
 */
interface OutputFileOptions {
  /** The file's mode when it is made (default 0o666, less the umask). */
  mode?: number;
  /** fsync the file before it replaces the target. */
  flush?: boolean;
}

export async function writeFileAtomicStream(
  file: string,
  produce: (write: (chunk: string) => Promise<void>) => Promise<void>,
  label?: string,
  options: OutputFileOptions = {},
): Promise<void> {
  const abs = path.resolve(file);
  const fail = (err: unknown) => cannotWrite(file, err, label);
  const into = await existingSpecial(abs);
  if (into) return writeInto(abs, produce, fail);
  const tmp = tempFileName(abs, randomBytes(8).toString("hex"));
  let handle: FileHandle | undefined;
  try {
    await mkdirs(path.dirname(abs));
    handle = await open(tmp, "wx", options.mode ?? 0o666);
  } catch (err) {
    throw fail(err);
  }
  try {
    await pour(handle, produce, fail);
    if (options.flush)
      await handle.sync().catch((err: unknown) => {
        throw fail(err);
      });
    const h = handle;
    handle = undefined;
    await h.close().catch((err: unknown) => {
      throw fail(err);
    });
    await rename(tmp, abs).catch((err: unknown) => {
      throw fail(err);
    });
  } catch (err) {
    await handle?.close().catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
}

/** A whole text as an output file (see writeFileAtomicStream). */
export async function writeFileAtomicText(file: string, text: string, label?: string, options: OutputFileOptions = {}): Promise<void> {
  await writeFileAtomicStream(file, (write) => write(text), label, options);
}

/**
 * Writes what `produce` makes to `handle`: small pieces gathered, so a report of many outcomes
 * is not thousands of tiny writes. A write that fails is the file's failure (`fail`); what
 * `produce` itself throws is passed on as it is.
 */
async function pour(handle: FileHandle, produce: (write: (chunk: string) => Promise<void>) => Promise<void>, fail: (err: unknown) => Error): Promise<void> {
  let buffered: string[] = [];
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    const data = Buffer.from(buffered.join(""), "utf8");
    buffered = [];
    size = 0;
    try {
      // A write can take fewer bytes than it was given (a device or filesystem filling up):
      // the rest is written again, so a full disk fails the next write instead of being taken
      // for the end of the file.
      for (let off = 0; off < data.length;) off += (await handle.write(data, off, data.length - off)).bytesWritten;
    } catch (err) {
      throw fail(err);
    }
  };
  await produce(async (chunk) => {
    buffered.push(chunk);
    size += chunk.length;
    if (size >= 1 << 20) await flush();
  });
  await flush();
}

/**
 * Creates `dir` and its missing parents one level at a time, so the error is the one that level
 * met (a read-only filesystem, no permission, a parent that is a file; a recursive mkdir reports
 * some of these as ENOENT).
 */
async function mkdirs(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      await stat(d);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || path.dirname(d) === d) throw err;
      missing.unshift(d);
    }
  }
  for (const d of missing) {
    await mkdir(d).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    });
  }
}

/** Whether `abs` exists as something to write into rather than replace (a device, a FIFO). */
async function existingSpecial(abs: string): Promise<boolean> {
  try {
    const st = await stat(abs);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

async function writeInto(abs: string, produce: (write: (chunk: string) => Promise<void>) => Promise<void>, fail: (err: unknown) => Error): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(abs, "w");
  } catch (err) {
    throw fail(err);
  }
  try {
    await pour(handle, produce, fail);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Why an output file could not be written, as one line (exit 3). */
function cannotWrite(file: string, err: unknown, label: string | undefined): TollgateError {
  return new TollgateError(`tollgate: cannot write ${label ? `${label} ` : ""}${file}: ${ioReason(err)}`, 3);
}
