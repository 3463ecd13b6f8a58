import type { Tool } from "../domain/types.js";
import { createAstEditTool } from "./ast-edit.js";
import { createAstGrepTool } from "./ast-grep.js";
import { createAstScanTool } from "./ast-scan.js";
import { createEditTool } from "./edit.js";
import { createExecTool } from "./exec.js";
import type { ToolHost } from "./host.js";
import { createJscodeshiftTool } from "./jscodeshift.js";
import { createWriteTool } from "./write.js";

/** The only list of built-in tools. */
export function builtinTools(host: ToolHost): Tool[] {
  return [
    createAstGrepTool(host),
    createAstEditTool(host),
    createWriteTool(host),
    createEditTool(host),
    createExecTool(host),
    createAstScanTool(host),
    createJscodeshiftTool(host),
  ];
}
