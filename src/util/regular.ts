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
 * Opens `file` without blocking, checks on that descriptor that it is a regular file (a
 * directory: EISDIR; anything else: NotRegularFileError; ENOENT etc. as is) and hands the
 * descriptor and its size to `read`.
 */
function withRegularFile<T>(file: string, read: (fd: number, size: number) => T): T {
  const fd = openSync(file, FLAGS);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: "EISDIR" });
    if (!st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    return read(fd, st.size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `fd` to its end into `buf`, grown as it fills (to at most max + 1 bytes): the buffer used
 * and the bytes read, or null past `max`. A file that did not change since fstat said `size` ends
 * on the read after the one that reaches it (the buffer holds one byte more); one that grows
 * meanwhile is read to its end all the same.
 */
function readToEnd(fd: number, buf: Buffer, size: number, max: number): { buf: Buffer; length: number } | null {
  let length = 0;
  for (;;) {
    if (length === buf.length) {
      if (length > max) return null;
      const bigger = Buffer.allocUnsafeSlow(Math.min(Math.max(size + 1, length * 2), max + 1));
      buf.copy(bigger, 0, 0, length);
      buf = bigger;
    }
    const got = readSync(fd, buf, length, buf.length - length, null);
    if (got === 0) break;
    length += got;
  }
  return length > max ? null : { buf, length };
}

/**
 * Reads a regular file whole into a buffer of its own, or null when it holds more than `max`
 * bytes; throws NotRegularFileError for anything else (ENOENT etc. as is). Synchronous, yet it
 * never blocks on a FIFO (opened with O_NONBLOCK, refused after fstat).
 */
export function readRegularFileBounded(file: string, max: number): Buffer | null {
  return withRegularFile(file, (fd, size) => {
    if (size > max) return null;
    const got = readToEnd(fd, Buffer.allocUnsafeSlow(size + 1), size, max);
    return got && got.buf.subarray(0, got.length);
  });
}

/** readRegularFileBounded without a bound. */
export function readRegularFileSync(file: string): Buffer {
  return readRegularFileBounded(file, Number.POSITIVE_INFINITY)!;
}

/**
 * Reads regular files as readRegularFileSync does, into one buffer reused from read to read, for
 * a caller that keeps what it makes of the bytes and not the bytes: each result is valid only
 * until the next read (fresh buffers for every file cost more to allocate and collect than to
 * read into).
 */
export class RegularFileReader {
  #buf: Buffer = Buffer.allocUnsafeSlow(64 * 1024);

  /** The file's bytes, or null when it holds more than `max`. */
  read(file: string, max: number): Buffer | null {
    return withRegularFile(file, (fd, size) => {
      if (size > max) return null;
      const got = readToEnd(fd, this.#buf, size, max);
      if (!got) return null;
      this.#buf = got.buf;
      return got.buf.subarray(0, got.length);
    });
  }
}
