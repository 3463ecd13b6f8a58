import { Type } from "@sinclair/typebox";
import { ToolError } from "../errors.js";
import type { AgentToolResult, Tool } from "../domain/types.js";
import { textResult } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import { gitDiff } from "../workspace/diff.js";
import { inStyleOf } from "../workspace/text.js";
import { outsideScope } from "../scope.js";
import type { ToolHost } from "./host.js";

const writeParameters = Type.Object(
  {
    path: Type.String({ description: "File to create or overwrite, relative to the workspace root" }),
    content: Type.String({ description: "Full new content of the file" }),
  },
  { additionalProperties: false },
);

interface WriteDetails {
  path: string;
  change: "created" | "modified" | "unchanged" | "skipped";
  bytes: number;
  /** Set when the file is outside the run's files or shard: nothing was staged. */
  skipped?: string;
}

export function createWriteTool(host: ToolHost): Tool<typeof writeParameters, WriteDetails> {
  return {
    name: "write",
    label: "Write",
    description:
      "Create or overwrite a file. Stages a pending action; the file is written when it is applied (refused as stale if the file changed meanwhile).",
    parameters: writeParameters,
    deferrable: true,
    async execute(_id, params): Promise<AgentToolResult<WriteDetails>> {
      if (typeof params.path !== "string" || params.path.trim() === "") throw new ToolError("`path` must be a non-empty string");
      if (/[\\/]$/.test(params.path.trim())) throw new ToolError(`Not a file path: ${params.path}`);
      const { rel } = host.workspace.contain(params.path);
      if (rel === ".") throw new ToolError(`Not a file path: ${params.path}`);
      let bytes = Buffer.byteLength(params.content);
      const outside = outsideScope(host.scope, rel);
      if (outside) return textResult(`Skipped: ${outside}`, { path: rel, change: "skipped", bytes, skipped: outside });
      // Recipe YAML cannot easily say CRLF or BOM: an overwrite keeps the file's own.
      const existing = await host.workspace.readIfExists(rel);
      const content = existing ? inStyleOf(existing.text, params.content) : params.content;
      bytes = Buffer.byteLength(content);
      const changes = await host.workspace.stage([{ path: rel, content }]);
      if (changes.length === 0) {
        return textResult(`No changes: ${rel} already has this content`, { path: rel, change: "unchanged", bytes });
      }
      const change = changes[0]!;
      const kind = change.kind === "created" ? "created" : "modified";
      const label = `Write: ${kind === "created" ? "create" : "overwrite"} ${rel}`;
      host.push(
        createFileAction(host.workspace, {
          label,
          sourceToolName: "write",
          changes,
          details: { path: rel, change: kind, bytes },
          appliedText: () => `${kind === "created" ? "Created" : "Wrote"} ${rel}.`,
        }),
      );
      const text = [
        `${label} (${bytes} ${bytes === 1 ? "byte" : "bytes"})`,
        "",
        gitDiff(changes).trimEnd(),
        "",
        "Preview only: no file has been modified yet.",
      ].join("\n");
      return textResult(text, { path: rel, change: kind, bytes });
    },
  };
}
