import { messageOf } from "./thrown.js";

/** The errno code (`ENOENT`, …) of a thrown value, when it has one. */
export function errnoOf(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

const REASONS: Record<string, string> = {
  ENOENT: "file not found",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a directory",
  EEXIST: "a parent path is a file",
  ENOTDIR: "a parent path is a file",
  ENAMETOOLONG: "the name is too long",
  EIO: "input/output error",
  EFBIG: "the file is too large",
};

/**
 * Why a file could not be read or written, in words (`file not found`, `permission denied`),
 * for messages of the form `X: cannot read Y (<reason>)`: the common errno codes spelled out,
 * another code as it is, else the thrown value's message.
 */
export function ioReason(err: unknown): string {
  const code = errnoOf(err);
  return code === undefined ? messageOf(err) : (REASONS[code] ?? code);
}
