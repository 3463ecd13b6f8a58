import { safeText } from "../term.js";

// Workflow command escaping, as @actions/core does it (toolkit `command.ts`).

/** Escapes a command's message (the part after `::`). */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escapes a property value (`file=`, `title=` …): also `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::name key=value,…::message` with everything escaped. */
export function command(name: string, properties: Record<string, string | number | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}`;
}

/**
 * Neutralises GitHub Actions workflow commands in text printed to a job log: a line whose first
 * non-blank characters are `::` (e.g. `::set-output`, `::add-mask::`, `::stop-commands::`) or
 * the legacy `##[` form is broken with a zero-width space after its first character, so the
 * runner no longer recognises it while a human reads the same text.
 */
export function sanitizeForGithubLog(text: string): string {
  return text.replace(
    /^([ \t]*)(:)(?=:)|^([ \t]*)(#)(?=#\[)/gm,
    (_m, sp1: string | undefined, c1: string | undefined, sp2: string | undefined, c2: string | undefined) => `${sp1 ?? sp2 ?? ""}${c1 ?? c2}\u200b`,
  );
}

/** Both of the above: for untrusted text printed to a CI log. */
export function sanitizeOutput(text: string): string {
  return sanitizeForGithubLog(safeText(text));
}

/**
 * Fences untrusted text with `::stop-commands::<token>` … `::<token>::` so the runner does not
 * process any workflow command inside it. The token is random unless given and is changed if
 * the text happens to contain it.
 */
export function fenceWorkflowCommands(text: string, token?: string): string {
  let t = token ?? randomToken();
  while (text.includes(t)) t = randomToken();
  return `::stop-commands::${t}\n${text}${text.endsWith("\n") ? "" : "\n"}::${t}::\n`;
}

function randomToken(): string {
  return `tollgate-${globalThis.crypto.randomUUID()}`;
}
