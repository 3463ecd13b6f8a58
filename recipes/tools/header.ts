import { Type } from "@sinclair/typebox";
import { defineTool } from "tollgate";

/**
 * Adds a licence header to each file that lacks one. Stages the change through `pi.files`, so
 * tollgate previews the diff, checks the files are unchanged at apply time and writes atomically.
 * `defineTool` types `params` from the schema (`params.files` is `string[]`).
 */
export default defineTool(
  Type.Object({
    files: Type.Array(Type.String(), { description: "Files to update" }),
    header: Type.String({ description: "The header line, e.g. // SPDX-License-Identifier: MIT" }),
  }),
  (pi) => ({
    name: "add_header",
    label: "Add header",
    description: "Prepend a header comment to files that do not start with it",
    deferrable: true,
    async execute(_toolCallId, params) {
      const changes = [];
      for (const file of params.files) {
        const text = await pi.files.read(file);
        if (!text.startsWith(params.header)) changes.push({ path: file, content: `${params.header}\n${text}` });
      }
      if (changes.length === 0) return { content: [{ type: "text", text: "Every file already has the header" }] };
      const staged = await pi.files.stage({ label: `Add header: ${changes.length} file(s)`, changes });
      return { content: [{ type: "text", text: `Header staged for ${staged.files.join(", ")}; no file was modified yet.` }] };
    },
  }),
);
