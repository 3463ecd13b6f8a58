/**
 * A tiny recipe project for testing `tollgate test`: a `put` tool that writes or deletes files
 * (idempotent: pi.files.stage drops unchanged files) and an `append` tool that adds a line every
 * time it runs (not idempotent).
 */
export const PUT_TOOL = `
import type { CustomToolFactory } from "tollgate";
const factory: CustomToolFactory = (pi) => ({
  name: "put",
  label: "Put",
  description: "Writes (string) or deletes (null) files",
  deferrable: true,
  parameters: pi.typebox.Type.Object({
    files: pi.typebox.Type.Record(pi.typebox.Type.String(), pi.typebox.Type.Union([pi.typebox.Type.String(), pi.typebox.Type.Null()])),
  }),
  async execute(_id, params) {
    const changes = [];
    for (const [path, content] of Object.entries(params.files)) {
      if (content === null) {
        const exists = await pi.files.read(path).then(() => true, () => false);
        if (exists) changes.push({ path, content: null });
      } else changes.push({ path, content });
    }
    const staged = await pi.files.stage({ label: \`Put: \${changes.length} file(s)\`, changes });
    return { content: [{ type: "text", text: staged.staged ? \`staged \${staged.files.join(", ")}\` : "nothing to do" }] };
  },
});
export default factory;
`;

export const APPEND_TOOL = `
export default (pi) => ({
  name: "append",
  label: "Append",
  description: "Appends a line to a file, every time",
  parameters: pi.typebox.Type.Object({ path: pi.typebox.Type.String(), line: pi.typebox.Type.String() }),
  async execute(_id, params) {
    const text = await pi.files.read(params.path);
    await pi.files.stage({ label: "Append: 1 file", changes: [{ path: params.path, content: text + params.line + "\\n" }] });
    return { content: [{ type: "text", text: "appended" }] };
  },
});
`;

/** A project with recipe `codemod.yaml` and one passing case `basic` (created, modified, deleted files). */
export function project(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "tools/put.ts": PUT_TOOL,
    "tools/append.ts": APPEND_TOOL,
    "codemod.yaml": [
      "version: 1",
      "name: codemod",
      "tools: [./tools/put.ts]",
      "vars: { greeting: hello }",
      "steps:",
      "  - id: put",
      "    tool: put",
      '    with: { files: { "a.txt": "${{ vars.greeting }} world\\n", "new/b.txt": "created\\n", "gone.txt": null } }',
      "",
    ].join("\n"),
    "__tests__/basic/input/a.txt": "a\n",
    "__tests__/basic/input/gone.txt": "bye\n",
    "__tests__/basic/input/keep.txt": "untouched\n",
    "__tests__/basic/expected/a.txt": "hello world\n",
    "__tests__/basic/expected/new/b.txt": "created\n",
    "__tests__/basic/expected/keep.txt": "untouched\n",
    ...extra,
  };
}
