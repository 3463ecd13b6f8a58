import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/**
 * Files tollgate reaches through the tree, a recipe, a journal or a plan are read only if they
 * are regular files after resolving symlinks: opening a FIFO blocks until a writer
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

/**
 * Reads a regular file whole; throws NotRegularFileError for anything else (ENOENT etc. as is).
 * Synchronous, yet it never blocks on a FIFO (opened with O_NONBLOCK, refused after fstat).
 */
export function readRegularFileSync(file: string): Buffer {
  const fd = openSync(file, FLAGS);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: "EISDIR" });
    if (!st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    // Sized by fstat, plus one byte so that a file that did not change ends on the second read;
    // one that grows meanwhile is read to its end all the same.
    let buf = Buffer.allocUnsafeSlow(st.size + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        const bigger = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
