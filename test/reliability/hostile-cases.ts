/** The hostile-input table: each case is a workspace, a command line and what must come out. */
export interface HostileCase {
  name: string;
  area: "recipe" | "policy" | "cli" | "files" | "custom-tool";
  files?: Record<string, string | Buffer>;
  /** Built lazily (big inputs). */
  setup?: (dir: string) => Promise<void> | void;
  args: string[];
  code: number;
  message: RegExp;
  timeoutMs?: number;
}

const RECIPE = (steps: string, extra = "") => `version: 1\n${extra}steps:\n${steps}`;
const WRITE_A = "  - tool: write\n    with: { path: a.txt, content: \"changed\\n\" }\n";
const AUTO = "version: 1\ndefault: auto-apply\n";

const tool = (body: string, name = "t") => `
const factory = (pi) => ({
  name: "${name}",
  label: "T",
  description: "hostile tool",
  parameters: pi.typebox.Type.Object({}),
  async execute(id, params) { ${body} },
});
export default factory;
`;
const withTool = (body: string, steps = "  - tool: t\n    with: {}\n", extra = "") => ({
  "tools/t.mjs": tool(body),
  "r.yaml": RECIPE(steps, `tools: [./tools/t.mjs]\n${extra}`),
});

let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
for (let i = 1; i <= 9; i++) bomb += `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [*${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}, *${String.fromCharCode(96 + i)}]\n`;

export const HOSTILE: HostileCase[] = [
  // --- recipe -------------------------------------------------------------------------------
  { name: "YAML syntax error (unterminated flow sequence at the end)", area: "recipe", files: { "r.yaml": "version: 1\nsteps: [\n" }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:3:1: Flow sequence/m },
  { name: "YAML syntax error mid-file", area: "recipe", files: { "r.yaml": "version: 1\nsteps:\n  - tool: write\n   with: : :\n" }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:4:1: /m },
  { name: "YAML bomb (billion laughs)", area: "recipe", files: { "r.yaml": `version: 1\n${bomb}steps: []\n` }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:3:\d+: .*too many alias expansions/m },
  { name: "10 MB recipe (refused before parsing)", area: "recipe", setup: async (d) => (await import("node:fs")).writeFileSync(`${d}/r.yaml`, `version: 1\ndescription: "${"x".repeat(10 * 1024 * 1024)}"\nsteps: []\nbogus: 1\n`), args: ["run", "r.yaml"], code: 2, message: /^r\.yaml: cannot read recipe: the file is too large \(10\.0 MiB; the limit is 1 MiB\)$/m },
  { name: "recipe read from an endless device", area: "recipe", args: ["run", "/dev/zero"], code: 2, message: /^\/dev\/zero: cannot read recipe: the file is too large \(more than 1 MiB/m },
  { name: "10,001 steps", area: "recipe", files: { "r.yaml": RECIPE("  - tool: write\n".repeat(10_001)) }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:2:1 steps: 10001 steps; a recipe may have at most 10000/m },
  { name: "deeply nested YAML", area: "recipe", files: { "r.yaml": `version: 1\nsteps: ${"[".repeat(20000)}${"]".repeat(20000)}\n` }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:2:\d+: YAML is nested too deeply/m },
  { name: "NUL bytes in recipe", area: "recipe", files: { "r.yaml": "version: 1\0\nsteps: []\n" }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:1:\d+ version:/m },
  { name: "recipe not UTF-8", area: "recipe", files: { "r.yaml": Buffer.from([0x76, 0x65, 0x72, 0xff, 0xfe, 0x0a]) }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:1:4: cannot read recipe: not valid UTF-8$/m },
  { name: "missing recipe", area: "recipe", args: ["run", "nope.yaml"], code: 2, message: /nope\.yaml/ },
  { name: "recipe is a directory", area: "recipe", files: { "dir/x": "" }, args: ["run", "dir"], code: 2, message: /^dir: cannot read recipe \(it is a directory\)$/m },
  { name: "empty recipe", area: "recipe", files: { "r.yaml": "" }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml/ },
  { name: "recipe is a scalar", area: "recipe", files: { "r.yaml": "just a string\n" }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml/ },
  { name: "unknown tool", area: "recipe", files: { "r.yaml": RECIPE("  - tool: nosuchtool\n    with: {}\n") }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml:3:\d+.*nosuchtool/ },
  { name: "unknown step key", area: "recipe", files: { "r.yaml": RECIPE("  - tool: write\n    wiht: {}\n") }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml:\d+:\d+/ },
  { name: "wrong param type", area: "recipe", files: { "r.yaml": RECIPE("  - tool: write\n    with: { path: 5, content: x }\n") }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml:\d+:\d+.*path/ },
  { name: "duplicate step id", area: "recipe", files: { "r.yaml": RECIPE(`  - id: s\n${WRITE_A.replace("  - tool", "    tool")}  - id: s\n${WRITE_A.replace("  - tool", "    tool")}`) }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml:\d+:\d+.*[Dd]uplicate/ },
  { name: "bad ${{ }} reference", area: "recipe", files: { "r.yaml": RECIPE("  - tool: write\n    with: { path: \"${{ vars.nope }}\", content: x }\n") }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml:\d+:\d+/ },
  { name: "unsupported version", area: "recipe", files: { "r.yaml": "version: 2\nsteps: []\n" }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml.*version/ },
  { name: "steps not a list", area: "recipe", files: { "r.yaml": "version: 1\nsteps: { a: 1 }\n" }, args: ["run", "r.yaml"], code: 2, message: /r\.yaml:\d+:\d+/ },
  { name: "invalid ast_edit pattern", area: "recipe", files: { "a.ts": "let x = 1;\n", "r.yaml": RECIPE("  - tool: ast_edit\n    with: { ops: [{ pat: \"a; b\", out: x }], lang: ts }\n") }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:4:\d+ steps\[0\]\.with\.ops\[0\]\.pat: Invalid pattern for TypeScript: a; b: Multiple AST nodes/m },
  { name: "unsupported language", area: "recipe", files: { "r.yaml": RECIPE("  - tool: ast_grep\n    with: { pat: [x], lang: cobol }\n") }, args: ["run", "r.yaml"], code: 2, message: /^r\.yaml:4:\d+ steps\[0\]\.with\.lang: Unsupported language 'cobol'/m },
  // --- policy -------------------------------------------------------------------------------
  { name: "policy YAML error", area: "policy", files: { "r.yaml": RECIPE(WRITE_A), "p.yaml": "version: 1\ndefault: [\n" }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /^p\.yaml:3:1: Flow sequence/m },
  { name: "unknown decision", area: "policy", files: { "r.yaml": RECIPE(WRITE_A), "p.yaml": "version: 1\ndefault: yolo\n" }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /p\.yaml:\d+:\d+/ },
  { name: "unknown policy key", area: "policy", files: { "r.yaml": RECIPE(WRITE_A), "p.yaml": "version: 1\ndefault: dry-run\nalow: {}\n" }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /p\.yaml:\d+:\d+/ },
  { name: "malformed protect glob", area: "policy", files: { "r.yaml": RECIPE(WRITE_A), "p.yaml": "version: 1\nprotect: [\"[abc\"]\n" }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /p\.yaml/ },
  { name: "missing policy", area: "policy", files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--policy", "nope.yaml"], code: 2, message: /nope\.yaml/ },
  { name: "policy bomb", area: "policy", files: { "r.yaml": RECIPE(WRITE_A), "p.yaml": `version: 1\n${bomb}` }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /^p\.yaml:3:\d+: .*too many alias expansions/m },
  { name: "2 MB policy", area: "policy", setup: async (d) => (await import("node:fs")).writeFileSync(`${d}/p.yaml`, `version: 1\n${"# padding\n".repeat(200_000)}`), files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /^p\.yaml: cannot read policy: the file is too large \(1\.9 MiB; the limit is 1 MiB\)$/m },
  { name: "allow.exec false refuses exec steps", area: "policy", files: { "r.yaml": RECIPE("  - tool: exec\n    with: { command: touch, args: [pwned] }\n"), "p.yaml": "version: 1\nallow: { exec: false }\n" }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /allow\.exec/ },
  { name: "allow.customTools false", area: "policy", files: { ...withTool("return { content: [] };"), "p.yaml": "version: 1\nallow: { customTools: false }\n" }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 2, message: /customTools/ },
  // --- CLI ----------------------------------------------------------------------------------
  { name: "no command", area: "cli", args: [], code: 2, message: /command/i },
  { name: "unknown command", area: "cli", args: ["frobnicate"], code: 2, message: /frobnicate|Unknown/i },
  { name: "unknown flag", area: "cli", files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--frob"], code: 2, message: /frob/ },
  { name: "bad --shard", area: "cli", files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--shard", "3/2"], code: 2, message: /shard/ },
  { name: "bad --format", area: "cli", files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--format", "xml"], code: 2, message: /format/ },
  { name: "malformed --var", area: "cli", files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--var", "novalue"], code: 2, message: /var/ },
  { name: "bad --mode", area: "cli", files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--mode", "bogus"], code: 2, message: /mode/ },
  { name: "run without recipe", area: "cli", args: ["run"], code: 2, message: /recipe/i },
  { name: "missing approvals file", area: "cli", files: { "r.yaml": RECIPE(WRITE_A) }, args: ["run", "r.yaml", "--approvals", "nope.yaml"], code: 2, message: /nope\.yaml/ },
  // --- files --------------------------------------------------------------------------------
  { name: "write outside the root (..)", area: "files", files: { "r.yaml": RECIPE("  - tool: write\n    with: { path: ../escape.txt, content: x }\n"), "p.yaml": AUTO }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 3, message: /outside the workspace/ },
  { name: "write to an absolute path", area: "files", files: { "r.yaml": RECIPE("  - tool: write\n    with: { path: /tmp/tollgate-pwned.txt, content: x }\n"), "p.yaml": AUTO }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 3, message: /outside the workspace/ },
  { name: "write through a symlink out", area: "files", setup: async (d) => (await import("node:fs")).symlinkSync("/etc/hostname", `${d}/link.txt`), files: { "r.yaml": RECIPE("  - tool: write\n    with: { path: link.txt, content: x }\n"), "p.yaml": AUTO }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 3, message: /outside the workspace|symlink/ },
  { name: "write into .git", area: "files", files: { ".git/config": "[core]\n", "r.yaml": RECIPE("  - tool: write\n    with: { path: .git/config, content: x }\n"), "p.yaml": AUTO }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 3, message: /protected|\.git/ },
  { name: "write into .GIT (case trick)", area: "files", files: { ".git/config": "[core]\n", "r.yaml": RECIPE("  - tool: write\n    with: { path: .GIT/config, content: x }\n"), "p.yaml": AUTO }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 3, message: /protected|\.GIT/ },
  { name: "policy protect glob", area: "files", files: { "vendor/x.js": "x\n", "r.yaml": RECIPE("  - tool: write\n    with: { path: vendor/x.js, content: y }\n"), "p.yaml": `${AUTO}protect: ["vendor/**"]\n` }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 3, message: /protected|vendor/ },
  { name: "edit a binary file", area: "files", files: { "bin.dat": Buffer.from([0, 1, 2, 3, 0, 255]), "r.yaml": RECIPE("  - tool: edit\n    with: { path: bin.dat, oldText: a, newText: b }\n") }, args: ["run", "r.yaml"], code: 3, message: /binary/ },
  { name: "edit a non-UTF-8 file", area: "files", files: { "latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), "r.yaml": RECIPE("  - tool: edit\n    with: { path: latin1.txt, oldText: caf, newText: tea }\n") }, args: ["run", "r.yaml"], code: 3, message: /UTF-8/ },
  { name: "edit a 50 MB file", area: "files", setup: async (d) => (await import("node:fs")).writeFileSync(`${d}/huge.txt`, Buffer.alloc(50 * 1024 * 1024, 0x61)), files: { "r.yaml": RECIPE("  - tool: edit\n    with: { path: huge.txt, oldText: aaa, newText: b }\n") }, args: ["run", "r.yaml"], code: 3, message: /larger than|too large/ },
  { name: "edit a missing file", area: "files", files: { "r.yaml": RECIPE("  - tool: edit\n    with: { path: nope.txt, oldText: a, newText: b }\n") }, args: ["run", "r.yaml"], code: 3, message: /nope\.txt/ },
  { name: "ast_grep on a missing path", area: "files", files: { "r.yaml": RECIPE("  - tool: ast_grep\n    with: { pat: [x], lang: ts, path: nowhere }\n") }, args: ["run", "r.yaml"], code: 3, message: /nowhere/ },
  { name: "ast_grep on a path outside", area: "files", files: { "r.yaml": RECIPE("  - tool: ast_grep\n    with: { pat: [x], lang: ts, path: /etc }\n") }, args: ["run", "r.yaml"], code: 3, message: /outside/ },
  // --- custom tools -------------------------------------------------------------------------
  { name: "tool throws a non-Error value", area: "custom-tool", files: withTool("throw 42;"), args: ["run", "r.yaml"], code: 3, message: /42/ },
  { name: "tool throws undefined", area: "custom-tool", files: withTool("throw undefined;"), args: ["run", "r.yaml"], code: 3, message: /t/ },
  { name: "tool never resolves (step timeout)", area: "custom-tool", files: withTool("return new Promise(() => {});", "  - tool: t\n    timeout: 500\n    with: {}\n"), args: ["run", "r.yaml"], code: 3, message: /can never finish/ },
  { name: "tool returns garbage", area: "custom-tool", files: withTool("return 'nope';"), args: ["run", "r.yaml"], code: 3, message: /invalid result/ },
  { name: "pushPendingAction after the session ended", area: "custom-tool", files: withTool("setTimeout(() => { try { pi.pushPendingAction({ label: 'Late: x', apply: async () => ({ content: [] }) }); } catch (e) { pi.logger?.info?.(String(e)); } }, 0); return { content: [] };"), args: ["run", "r.yaml"], code: 0, message: /^/ },
  { name: "apply throws", area: "custom-tool", files: { ...withTool("pi.pushPendingAction({ label: 'Boom: x', apply: async () => { throw new TypeError('kaboom'); } }); return { content: [] };"), "p.yaml": AUTO }, args: ["run", "r.yaml", "--policy", "p.yaml"], code: 3, message: /kaboom/ },
  { name: "module with a syntax error", area: "custom-tool", files: { "tools/t.mjs": "export default (pi => {", "r.yaml": RECIPE("  - tool: t\n    with: {}\n", "tools: [./tools/t.mjs]\n") }, args: ["run", "r.yaml"], code: 2, message: /Failed to load tool/ },
  { name: "module without default export", area: "custom-tool", files: { "tools/t.mjs": "export const x = 1;\n", "r.yaml": RECIPE("  - tool: t\n    with: {}\n", "tools: [./tools/t.mjs]\n") }, args: ["run", "r.yaml"], code: 2, message: /Tool must export a default function/ },
  { name: "factory throws", area: "custom-tool", files: { "tools/t.mjs": "export default () => { throw new Error('factory broke'); };\n", "r.yaml": RECIPE("  - tool: t\n    with: {}\n", "tools: [./tools/t.mjs]\n") }, args: ["run", "r.yaml"], code: 2, message: /factory broke/ },
  { name: "declarative tool file", area: "custom-tool", files: { "tools/t.json": "{}", "r.yaml": RECIPE("  - tool: t\n    with: {}\n", "tools: [./tools/t.json]\n") }, args: ["run", "r.yaml"], code: 2, message: /Declarative tool files/ },
  { name: "tool name conflicts with a built-in", area: "custom-tool", files: { "tools/t.mjs": tool("return { content: [] };", "write"), "r.yaml": RECIPE("  - tool: write\n    with: {}\n", "tools: [./tools/t.mjs]\n") }, args: ["run", "r.yaml"], code: 2, message: /conflicts with existing tool/ },
];
