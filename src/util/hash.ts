import { createHash } from "node:crypto";

/** Hex sha256 of a text (as UTF-8) or bytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
