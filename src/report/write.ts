import { mkdir } from "node:fs/promises";
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
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === "EEXIST" || e.code === "ENOTDIR"
        ? "a parent path is a file"
        : e.code === "EISDIR"
          ? "it is a directory"
          : e.code === "EACCES" || e.code === "EPERM"
            ? "permission denied"
            : (e.code ?? e.message);
    throw new TollgateError(`tollgate: cannot write ${file}: ${why}`, 3);
  }
}
