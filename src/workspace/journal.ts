import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { WorkspaceFs } from "./workspace.js";

export const STATE_DIR = ".tollgate";

/** The original state of one file before an action wrote it. */
export interface JournalEntry {
  path: string; // workspace-relative
  existed: boolean;
  mode?: number;
  bytes?: Uint8Array;
}

interface JournalFile {
  version: 1;
  pid: number;
  createdAt: string;
  entries: Array<{ path: string; existed: boolean; mode?: number; base64?: string }>;
}

/**
 * `.tollgate/journal.json` holds the originals of the files an in-flight action is writing.
 * It exists only while an apply is in progress; if a run dies mid-apply it stays behind and
 * the next run refuses to start until `tollgate recover` puts the files back.
 */
export class Journal {
  readonly file: string;
  readonly #fs: WorkspaceFs;
  readonly #root: string;

  constructor(root: string, fs: WorkspaceFs) {
    this.#root = root;
    this.#fs = fs;
    this.file = path.join(root, STATE_DIR, "journal.json");
  }

  async begin(entries: readonly JournalEntry[]): Promise<void> {
    await ensureStateDir(this.#root);
    const data: JournalFile = {
      version: 1,
      pid: process.pid,
      createdAt: new Date().toISOString(),
      entries: entries.map((e) => ({
        path: e.path,
        existed: e.existed,
        ...(e.mode !== undefined ? { mode: e.mode } : {}),
        ...(e.bytes ? { base64: Buffer.from(e.bytes).toString("base64") } : {}),
      })),
    };
    await this.#fs.writeFileAtomic(this.file, JSON.stringify(data));
  }

  async clear(): Promise<void> {
    await rm(this.file, { force: true });
  }

  /** The entries of a journal left behind, or null when there is none. */
  async pending(): Promise<JournalEntry[] | null> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    const data = JSON.parse(text) as JournalFile;
    return data.entries.map((e) => ({
      path: e.path,
      existed: e.existed,
      ...(e.mode !== undefined ? { mode: e.mode } : {}),
      ...(e.base64 !== undefined ? { bytes: Buffer.from(e.base64, "base64") } : {}),
    }));
  }
}

/** Creates `.tollgate/` with a `.gitignore` of its own, so users need not ignore it by hand. */
export async function ensureStateDir(root: string): Promise<string> {
  const dir = path.join(root, STATE_DIR);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, ".gitignore"), "*\n", { flag: "wx" }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  return dir;
}
