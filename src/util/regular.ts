import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";

/**
 * Files tollgate reaches through the tree, a recipe, a journal or a plan are read only if they
 * are regular files after resolving symlinks (SPEC 8 v1.1): opening a FIFO blocks until a writer
 * comes, and a device such as /dev/zero never ends. The file is opened with O_NONBLOCK (so a
 * FIFO's open returns at once) and checked with fstat on that very descriptor, so a swap between
 * a check and the read cannot slip one in.
 */
export class NotRegularFileError extends Error {
  readonly code = "ENOTREG";
  constructor(
    readonly file: string,
    readonly kind: string,
  ) {
    super(`not a regular file (${kind})`);
    this.name = "NotRegularFileError";
  }
}

/** What a non-regular file is, for messages: "a FIFO", "a character device", ... */
export function kindOf(st: Pick<Stats, "isFIFO" | "isCharacterDevice" | "isBlockDevice" | "isSocket" | "isDirectory" | "isSymbolicLink">): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a directory";
  if (st.isSymbolicLink()) return "a symlink";
  return "not a regular file";
}

const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Reads a regular file whole; throws NotRegularFileError for anything else (ENOENT etc. as is). */
export async function readRegularFile(file: string): Promise<Buffer> {
  const fh = await open(file, FLAGS);
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: "EISDIR" });
    if (!st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    return await fh.readFile();
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** Synchronous readRegularFile, for code on the main thread that must never block on a FIFO. */
export function readRegularFileSync(file: string): Buffer {
  const fd = openSync(file, FLAGS);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: "EISDIR" });
    if (!st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    const chunks: Buffer[] = [];
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks);
  } finally {
    closeSync(fd);
  }
}
