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
