import path from "node:path";
import { describe, expect, it } from "vitest";
import { createCustomToolAPI, EXEC_NOT_ALLOWED } from "../../src/custom/api.js";
import { customToolLoader } from "../../src/custom/loader.js";
import { createExec } from "../../src/subprocess.js";
import { nodeProcess } from "../../src/process-host.js";
import { silentLogger } from "../../src/logger.js";
import { Session, STORE_UNAVAILABLE } from "../../src/session/session.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { REPO_ROOT, testdir } from "../helpers/testdir.js";

const loader = customToolLoader(nodeProcess());

function api(dir: string, session?: Session, allowExec = true) {
  return createCustomToolAPI({
    cwd: dir,
    workspace: new Workspace({ root: dir }),
    exec: createExec(dir, nodeProcess()),
    allowExec,
    logger: silentLogger,
    push: session ? (a) => session.pushPendingAction(a) : undefined,
  });
}

const TOOL = (name: string) => `
import type { CustomToolFactory } from "tollgate";
enum Mode { A = "a" }
const factory: CustomToolFactory = (pi) => ({
  name: "${name}",
  label: "X",
  description: "d",
  parameters: pi.typebox.Type.Object({ n: pi.typebox.Type.Number() }),
  async execute(_id, params) {
    return { content: [{ type: "text", text: Mode.A + String(params.n) }] };
  },
});
export default factory;
`;

describe("custom tool loader", () => {
  it("loads .ts (with enums), .mts, .js and .mjs without a build step", async () => {
    const dir = await testdir({
      "a.ts": TOOL("t_ts"),
      "b.mts": TOOL("t_mts"),
      "c.js": `export default (pi) => ({ name: "t_js", label: "J", description: "d", parameters: pi.typebox.Type.Object({}), execute: async () => ({ content: [] }) });`,
      "d.mjs": `export default async (pi) => [{ name: "t_mjs1", label: "M", description: "d", parameters: pi.typebox.Type.Object({}), execute: async () => ({ content: [] }) }, { name: "t_mjs2", label: "M", description: "d", parameters: pi.typebox.Type.Object({}), execute: async () => ({ content: [] }) }];`,
    });
    const pi = api(dir);
    const names: string[] = [];
    for (const f of ["a.ts", "b.mts", "c.js", "d.mjs"]) {
      const tools = await loader.load(path.join(dir, f), pi, new Set(names));
      names.push(...tools.map((t) => t.name));
    }
    expect(names).toEqual(["t_ts", "t_mts", "t_js", "t_mjs1", "t_mjs2"]);
  });

  it("a tool may import TypeBox (and tollgate) without having them installed beside it, .ts and .mjs", async () => {
    const body = (name: string) => `import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
export default () => ({ name: "${name}", label: "T", description: "d", parameters: Type.Object({ n: Type.Number() }),
  execute: async (_id, p) => ({ content: [{ type: "text", text: String(Value.Check(Type.Number(), p.n)) }] }) });`;
    const dir = await testdir({ "tb.ts": body("tb_ts"), "tb.mjs": body("tb_mjs") });
    const session = new Session({ cwd: dir });
    for (const file of ["tb.ts", "tb.mjs"]) {
      const [tool] = await loader.load(path.join(dir, file), api(dir, session), new Set(session.tools.keys()));
      session.register(tool!);
      const ok = await session.call(tool!.name, { n: 1 }, "s");
      expect(ok.result.content).toEqual([{ type: "text", text: "true" }]);
      // its schema validates like any other (no coercion)
      expect((await session.call(tool!.name, { n: "1" }, "s")).result.isError).toBe(true);
    }
  });

  it("gives the four loader error messages, naming the module", async () => {
    const dir = await testdir({
      "tool.md": "# not code",
      "tool.json": "{}",
      "nodefault.ts": "export const x = 1;",
      "throws.ts": "throw new Error('boom at import');",
      "factory-throws.ts": "export default () => { throw new Error('factory boom'); };",
      "syntax.ts": "export default (pi => {",
      "typo.ts": "const x: = 1;\nexport default () => [];\n",
      "dup.ts": TOOL("ast_edit"),
    });
    const pi = api(dir);
    const load = (f: string) => loader.load(path.join(dir, f), pi, new Set(["ast_edit"]), f);
    await expect(load("tool.md")).rejects.toThrow("tool.md: Declarative tool files (.md, .json) cannot be loaded as executable modules");
    await expect(load("tool.json")).rejects.toThrow("tool.json: Declarative tool files (.md, .json) cannot be loaded as executable modules");
    await expect(load("nodefault.ts")).rejects.toThrow("nodefault.ts: Tool must export a default function");
    await expect(load("throws.ts")).rejects.toThrow("throws.ts: Failed to load tool: boom at import");
    await expect(load("factory-throws.ts")).rejects.toThrow("factory-throws.ts: Failed to load tool: factory boom");
    await expect(load("syntax.ts")).rejects.toThrow(/^syntax\.ts: Failed to load tool: /);
    // a syntax error keeps its position (1-based column), no trailing blanks
    await expect(load("typo.ts")).rejects.toThrow(/^typo\.ts: Failed to load tool: ParseError: Unexpected token at 1:10$/);
    await expect(load("dup.ts")).rejects.toThrow('dup.ts: Tool name "ast_edit" conflicts with existing tool');
    await expect(load("missing.ts")).rejects.toThrow("missing.ts: Failed to load tool: file not found");
  });

  it("loads the batch_rename_preview fixture, written for another host's types, unmodified", async () => {
    const dir = await testdir();
    const session = new Session({ cwd: dir });
    const tools = await loader.load(path.join(REPO_ROOT, "test/custom/fixtures/batch-rename-preview.ts"), api(dir, session), new Set());
    expect(tools.map((t) => t.name)).toEqual(["batch_rename_preview"]);
    session.register(tools[0]!);
    const rec = await session.call("batch_rename_preview", { files: ["a.ts", "b.ts"] }, "rename");
    expect(rec.result.content).toEqual([{ type: "text", text: "Prepared rename plan for 2 files. Call resolve to apply or discard." }]);
    expect(session.store.peek()?.label).toBe("Batch rename: 2 files");
    const applied = await session.call("resolve", { action: "apply", reason: "ship it" }, "end");
    expect(applied.result.content).toEqual([{ type: "text", text: "Applied batch rename. Reason: ship it" }]);
    // params are validated against the tool's TypeBox schema first, with no coercion
    const bad = await session.call("batch_rename_preview", { files: "a.ts" }, "bad");
    expect(bad.result.isError).toBe(true);
    expect(session.store.count).toBe(0);
  });

  it("pi: exec (argv, non-zero does not throw, allow.exec), headless ui, store unavailable", async () => {
    const dir = await testdir();
    const pi = api(dir);
    const r = await pi.exec(process.execPath, ["-e", "process.stdout.write('hi'); process.exit(3)"]);
    expect(r).toMatchObject({ stdout: "hi", code: 3, killed: false });
    expect(pi.hasUI).toBe(false);
    expect(await pi.ui.confirm("t", "m")).toBe(false);
    expect(await pi.ui.select("t", ["a"])).toBeUndefined();
    expect(await pi.ui.input("t")).toBeUndefined();
    expect(pi.typebox.Type.String().type).toBe("string");
    expect(() => pi.pushPendingAction({ label: "x", apply: async () => ({ content: [] }) })).toThrow(STORE_UNAVAILABLE);
    // malformed stage input is one clear message (a missing label crashed the report renderer)
    const session = new Session({ cwd: dir });
    const staging = api(dir, session);
    await expect(staging.files.stage({ changes: [{ path: "a.txt", content: "x" }] } as never)).rejects.toThrow(
      "pi.files.stage needs { label: string, changes: [{ path, content }] }",
    );
    await expect(staging.files.stage({ label: "X: y" } as never)).rejects.toThrow("pi.files.stage needs { label: string, changes: [{ path, content }] }");
    await expect(staging.files.stage({ label: "X: y", changes: [{ path: "a.txt", content: 5 }] } as never)).rejects.toThrow(
      "pi.files.stage: changes[0] needs { path: string, content: string | null }",
    );
    expect(session.store.count).toBe(0);
    // a missing file is one clear message, not ENOENT with an absolute path
    await expect(pi.files.read("sub/../nope.txt")).rejects.toThrow(/^File not found: nope\.txt$/);
    await expect(api(dir, undefined, false).exec("true", [])).rejects.toThrow(EXEC_NOT_ALLOWED);
    const timed = await pi.exec(process.execPath, ["-e", "setTimeout(() => {}, 5000)"], { timeout: 200 });
    expect(timed.killed).toBe(true);
  });

  it("pi.pushPendingAction defaults sourceToolName to custom_tool", async () => {
    const dir = await testdir();
    const session = new Session({ cwd: dir });
    api(dir, session).pushPendingAction({ label: "Thing: x", apply: async () => ({ content: [] }) });
    expect(session.store.peek()?.sourceToolName).toBe("custom_tool");
  });
});
