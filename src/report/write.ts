import { mkdir } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";

/** Output files of the CLI (report, patch, summary): atomic, parent directories created. */
export async function writeFileAtomicText(file: string, text: string): Promise<void> {
  const abs = path.resolve(file);
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFileAtomic(abs, text, { encoding: "utf8" });
}
