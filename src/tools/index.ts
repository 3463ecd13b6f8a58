import type { Tool } from "../session/types.js";
import type { ToolHost } from "./host.js";

/** The only list of built-in tools (SPEC 3). */
export function builtinTools(_host: ToolHost): Tool[] {
  return [];
}
