import { createHash, webcrypto as crypto } from "node:crypto";

/** Hex sha256 of a text (as UTF-8) or bytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 of bytes as `sha256` gives it, computed on libuv's thread pool (Web Crypto's digest). */
export async function sha256Async(data: Uint8Array): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", data)).toString("hex");
}
