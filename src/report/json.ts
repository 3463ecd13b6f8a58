import type { Report } from "./types.js";

type Write = (chunk: string) => Promise<void> | void;

/** `JSON.stringify(value, null, 2)` placed at `depth` levels of nesting. */
function nested(value: unknown, depth: number): string {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return depth === 0 ? text : text.replace(/\n/g, `\n${"  ".repeat(depth)}`);
}

/**
 * The report as `JSON.stringify(report, null, 2)` followed by a newline, byte for byte, written
 * one step and one outcome at a time: an outcome's diff is read (from the run's spill) only
 * while that outcome is being written, so no more than one action's diff is in memory.
 */
export async function writeReportJson(report: Report, write: Write): Promise<void> {
  const keys = Object.keys(report).filter((k) => {
    const v = (report as unknown as Record<string, unknown>)[k];
    return v !== undefined && typeof v !== "function";
  });
  await write("{\n");
  for (const [i, key] of keys.entries()) {
    const value = (report as unknown as Record<string, unknown>)[key];
    const comma = i < keys.length - 1 ? "," : "";
    if (Array.isArray(value) && value.length > 0 && (key === "steps" || key === "outcomes")) {
      await write(`  ${JSON.stringify(key)}: [\n`);
      for (const [j, item] of value.entries()) {
        await write(`    ${nested(item, 2)}${j < value.length - 1 ? "," : ""}\n`);
      }
      await write(`  ]${comma}\n`);
      continue;
    }
    await write(`  ${JSON.stringify(key)}: ${nested(value, 1)}${comma}\n`);
  }
  await write("}\n");
}
