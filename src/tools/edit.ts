import { Type } from "@sinclair/typebox";
import { ToolError } from "../errors.js";
import type { AgentToolResult, Tool } from "../domain/types.js";
import { textResult } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import { gitDiff } from "../workspace/diff.js";
import { outsideScope } from "../scope.js";
import type { ToolHost } from "./host.js";
import { plural } from "../util/plural.js";

const editParameters = Type.Object(
  {
    path: Type.String({ description: "File to edit, relative to the workspace root" }),
    oldText: Type.String({ description: "Exact text to replace" }),
    newText: Type.String({ description: "Replacement text" }),
    all: Type.Optional(Type.Boolean({ description: "Replace every occurrence (default false: oldText must occur exactly once)", default: false })),
  },
  { additionalProperties: false },
);

interface EditDetails {
  path: string;
  replacements: number;
  /** Set when the file is outside the run's files or shard: nothing was read or staged. */
  skipped?: string;
}

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

export function createEditTool(host: ToolHost): Tool<typeof editParameters, EditDetails> {
  return {
    name: "edit",
    label: "Edit",
    description:
      "Exact text replacement in one file: `oldText` must occur exactly once (or set `all: true` to replace every occurrence). Stages a pending action.",
    parameters: editParameters,
    deferrable: true,
    async execute(_id, params): Promise<AgentToolResult<EditDetails>> {
      if (typeof params.oldText !== "string" || params.oldText.length === 0) throw new ToolError("`oldText` must be a non-empty string");
      const all = params.all ?? false;
      const { rel } = host.workspace.contain(params.path);
      const outside = outsideScope(host.scope, rel);
      if (outside) return textResult(`Skipped: ${outside}`, { path: rel, replacements: 0, skipped: outside });
      const current = await host.workspace.readIfExists(rel);
      if (!current) throw new ToolError(`File not found: ${rel}`);
      let oldText = params.oldText;
      let newText = params.newText;
      let count = countOccurrences(current.text, oldText);
      // Recipes are usually written with LF; a CRLF file still matches, and keeps CRLF.
      if (count === 0 && oldText.includes("\n") && current.text.includes("\r\n") && !oldText.includes("\r\n")) {
        const crlfOld = oldText.replace(/\n/g, "\r\n");
        const c = countOccurrences(current.text, crlfOld);
        if (c > 0) {
          oldText = crlfOld;
          newText = newText.replace(/\r?\n/g, "\r\n");
          count = c;
        }
      }
      if (count === 0) throw new ToolError(`oldText not found in ${rel}`);
      if (count > 1 && !all) throw new ToolError(`oldText occurs ${count} times in ${rel}; make it unique or set \`all: true\``);
      if (oldText === newText) throw new ToolError("oldText and newText are identical; nothing to change");
      const replaceIn = (text: string): string | undefined => {
        const n = countOccurrences(text, oldText);
        if (n !== count) return undefined; // the (oldText, newText) pairs no longer hold as previewed
        return text.split(oldText).join(newText);
      };
      const after = replaceIn(current.text)!;
      const changes = await host.workspace.stage([{ path: rel, content: after, rebase: replaceIn }]);
      const summary = `${plural(count, "replacement")} in ${rel}`;
      if (changes.length === 0) return textResult(`No changes: ${rel}`, { path: rel, replacements: 0 });
      host.push(
        createFileAction(host.workspace, {
          label: `Edit: ${summary}`,
          sourceToolName: "edit",
          changes,
          details: { path: rel, replacements: count },
          replacements: count,
          appliedText: () => `Applied ${summary}.`,
        }),
      );
      const text = [`Edit: ${summary}`, "", gitDiff(changes).trimEnd(), "", "Preview only: no file has been modified yet."].join("\n");
      return textResult(text, { path: rel, replacements: count });
    },
  };
}
