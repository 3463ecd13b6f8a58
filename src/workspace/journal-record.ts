import { randomBytes, createHash } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { writeFileAtomicText } from "./output-file.js";
import type { Env } from "../process-host.js";

/**
 * The machine-side half of a journal. A journal lives in the workspace, where a
 * branch can commit anything; hashes in it prove nothing, since whoever writes the journal can
 * hash their payload. So every journal carries a random nonce, and before it is written the same
 * nonce is recorded outside the workspace, in the user's state directory. `recover` honours a
 * journal only when the record for this workspace holds its nonce: only a tollgate run on this
 * machine, as this user, can have written both. Every function takes the records' directory
 * (`recordDir` of the process's environment) from its caller.
 */

/** `$XDG_STATE_HOME/tollgate/journals`, else `~/.local/state/tollgate/journals`. */
export function recordDir(env: Env): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), ".local", "state");
  return path.join(base, "tollgate", "journals");
}

/** One record per workspace, named by a hash of its real root. */
function recordPath(dir: string, realRoot: string): string {
  return path.join(dir, `${createHash("sha256").update(realRoot).digest("hex").slice(0, 32)}.json`);
}

export function newNonce(): string {
  return randomBytes(24).toString("hex");
}

interface RecordFile {
  root: string;
  nonce: string;
  createdAt: string;
}

/**
 * Writes (atomically, fsynced when `durable`) the record that vouches for this workspace's
 * journal, in libuv's threads: written ahead of need (RunTransaction.prepare), its fsync waits
 * beside the run's other work, not in front of the first apply.
 */
export async function writeRecord(dir: string, realRoot: string, nonce: string, durable: boolean): Promise<void> {
  const file = recordPath(dir, realRoot);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const data: RecordFile = { root: realRoot, nonce, createdAt: new Date().toISOString() };
  await writeFileAtomicText(file, JSON.stringify(data), "the journal record", { mode: 0o600, flush: durable });
}

/** The nonce recorded for this workspace, or null. */
export function readRecord(dir: string, realRoot: string): string | null {
  try {
    const data = JSON.parse(readFileSync(recordPath(dir, realRoot), "utf8")) as Partial<RecordFile>;
    return data.root === realRoot && typeof data.nonce === "string" ? data.nonce : null;
  } catch {
    return null;
  }
}

/** Removes the record once its journal is gone (best effort: a stale record vouches for nothing). */
export function removeRecord(dir: string, realRoot: string, nonce: string): void {
  if (readRecord(dir, realRoot) !== nonce) return;
  try {
    unlinkSync(recordPath(dir, realRoot));
  } catch {
    // harmless: it names a nonce no journal holds any more
  }
}
