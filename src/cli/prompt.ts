import type { Approver } from "../runner/resolution.js";
import type { Colors } from "./output.js";

/** Interactive only with a person at both ends: stdin and stderr TTYs, and neither CI nor PRE_COMMIT set. */
export function canPrompt(env: NodeJS.ProcessEnv): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY) && !env.CI && !env.PRE_COMMIT;
}

/** The approval prompt, or undefined when nobody can answer (then nothing ever waits). */
export function interactiveApprover(env: NodeJS.ProcessEnv, _c: Colors): Approver | undefined {
  if (!canPrompt(env)) return undefined;
  return undefined;
}
