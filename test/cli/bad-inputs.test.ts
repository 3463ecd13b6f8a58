import { existsSync } from "node:fs";
import path from "node:path";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tollgate } from "../helpers/testdir.js";

// Every bad input gets one clear message (file:line:col where there is one), exit 2, no stack
// trace, and nothing runs. `stderr` is the exact, complete stderr.
const FILES: Record<string, string> = {
  "src/a.ts": "export const x = 1;\n",
  "tools/throws.ts": 'throw new Error("module exploded");\n',
  "tools/nodefault.ts": "export const x = 1;\n",
  "tools/decl.json": '{ "name": "x" }\n',
  "tools/plain.js":
    'export default () => ({ name: "plain", label: "P", description: "d", parameters: { type: "object", properties: { n: { type: "number" } } }, execute: async () => ({ content: [] }) });\n',
  "tools/unsafe.js":
    'export default (pi) => ({ name: "unsafe", label: "U", description: "d", parameters: pi.typebox.Type.Object({ n: pi.typebox.Type.Unsafe({ type: "number" }) }), execute: async () => ({ content: [] }) });\n',
  "tools/ok.ts":
    'export default (pi) => ({ name: "okt", label: "Ok", description: "d", parameters: pi.typebox.Type.Object({ n: pi.typebox.Type.Number() }), async execute() { return { content: [] }; } });\n',
  "tools/clash.ts":
    'export default (pi) => ({ name: "ast_edit", label: "X", description: "d", parameters: pi.typebox.Type.Object({}), async execute() { return { content: [] }; } });\n',
  "ok.yaml": "version: 1\nvars: { src: src }\nsteps:\n  - tool: ast_grep\n    with: { pat: [x] }\n",
  "yaml-syntax.yaml": "version: 1\nsteps:\n  - tool: ast_grep\n    with: { pat: [a }\n",
  "dup-key.yaml": "version: 1\nversion: 1\nsteps:\n  - tool: ast_grep\n",
  "wrong-type.yaml": 'version: 1\nsteps:\n  - tool: ast_edit\n    with:\n      ops: [{ pat: 12, out: "x" }]\n',
  "unknown-key.yaml": "version: 1\nstep:\n  - tool: ast_grep\n",
  "unknown-step-key.yaml": "version: 1\nsteps:\n  - tool: ast_grep\n    whith: {}\n",
  "unknown-tool.yaml": "version: 1\nsteps:\n  - tool: ast_edits\n",
  "dup-id.yaml": "version: 1\nsteps:\n  - id: a\n    tool: ast_grep\n    with: { pat: [x] }\n  - id: a\n    tool: ast_grep\n    with: { pat: [y] }\n",
  "bad-ref.yaml": 'version: 1\nvars: { src: src }\nsteps:\n  - tool: ast_grep\n    with: { pat: [x], path: "${{ vars.sorc }}" }\n',
  "open-ref.yaml": 'version: 1\nvars: { src: src }\nsteps:\n  - tool: ast_grep\n    with: { pat: [x], path: "./${{ vars.src" }\n',
  "empty-ref.yaml": 'version: 1\nvars: { src: src }\nsteps:\n  - tool: ast_grep\n    with: { pat: [x], path: "${{ }}" }\n',
  "version.yaml": "version: 2\nsteps:\n  - tool: ast_grep\n",
  "no-steps.yaml": "version: 1\nsteps: []\n",
  "not-map.yaml": "- a\n- b\n",
  "missing-required.yaml": "version: 1\nsteps:\n  - tool: ast_edit\n    with: { lang: ts }\n",
  "uncaptured.yaml": 'version: 1\nsteps:\n  - tool: ast_edit\n    with:\n      ops: [{ pat: "foo($A)", out: "bar($B)" }]\n',
  "no-coercion.yaml": 'version: 1\nsteps:\n  - tool: ast_grep\n    with: { pat: [x], limit: "5" }\n',
  "resolve-bad.yaml": "version: 1\nsteps:\n  - tool: resolve\n    with: { action: apply }\n",
  "resolve-action.yaml": "version: 1\nsteps:\n  - tool: resolve\n    with: { action: maybe, reason: r }\n",
  "missing-module.yaml": "version: 1\ntools: [./tools/nope.ts]\nsteps:\n  - tool: ast_grep\n",
  "throwing-module.yaml": "version: 1\ntools: [./tools/throws.ts]\nsteps:\n  - tool: ast_grep\n",
  "nodefault-module.yaml": "version: 1\ntools: [./tools/nodefault.ts]\nsteps:\n  - tool: ast_grep\n",
  "decl-module.yaml": "version: 1\ntools: [./tools/decl.json]\nsteps:\n  - tool: ast_grep\n",
  "resolve-extra.yaml": "version: 1\nsteps:\n  - tool: resolve\n    with: { action: apply, reason: x, force: true }\n",
  "flow-ref.yaml": "version: 1\nvars: { n: 2 }\nsteps:\n  - tool: ast_grep\n    with: { pat: [x], limit: ${{ vars.n }} }\n",
  "plain-module.yaml": "version: 1\ntools: [./tools/plain.js]\nsteps:\n  - tool: plain\n    with: { n: 1 }\n",
  "unsafe-module.yaml": "version: 1\ntools: [./tools/unsafe.js]\nsteps:\n  - tool: unsafe\n    with: { n: 1 }\n",
  "clash-module.yaml": "version: 1\ntools: [./tools/clash.ts]\nsteps:\n  - tool: ast_grep\n",
  "custom-with.yaml": 'version: 1\ntools: [./tools/ok.ts]\nsteps:\n  - tool: okt\n    with: { n: "1" }\n',
  "custom.yaml": "version: 1\ntools: [./tools/ok.ts]\nsteps:\n  - tool: okt\n    with: { n: 1 }\n",
  "exec.yaml": "version: 1\nsteps:\n  - tool: exec\n    with: { command: ls }\n",
  "p-glob.yaml": 'version: 1\nrules:\n  - match: { paths: ["src/[a"] }\n    decision: auto-apply\n',
  "p-decision.yaml": "version: 1\ndefault: yolo\n",
  "p-noexec.yaml": "version: 1\nallow: { exec: false }\n",
  "p-nocustom.yaml": "version: 1\nallow: { customTools: false }\n",
  "p-unknown.yaml": "version: 1\nrules:\n  - match: { tools: x }\n    decision: discard\n",
  "p-maxfiles.yaml": "version: 1\nrules:\n  - match: { maxFiles: -1 }\n    decision: discard\n",
  "approvals-map.yaml": "a: 1\n",
};

const USAGE = "Run tollgate --help for usage.";
const CASES: Array<[name: string, args: string[], stderr: string]> = [
  [
    "YAML syntax",
    ["run", "yaml-syntax.yaml"],
    "yaml-syntax.yaml:4:21: Flow sequence in block collection must be sufficiently indented and end with a ]\nyaml-syntax.yaml:4:22: Flow map in block collection must be sufficiently indented and end with a }",
  ],
  ["duplicate key", ["run", "dup-key.yaml"], 'dup-key.yaml:2:1: Duplicate key "version" (map keys must be unique)'],
  ["wrong type in with", ["run", "wrong-type.yaml"], "wrong-type.yaml:5:20 steps[0].with.ops[0].pat: Expected string"],
  [
    "unknown top-level key (all problems at once)",
    ["run", "unknown-key.yaml"],
    'unknown-key.yaml:1:1 steps: Missing required key "steps"\nunknown-key.yaml:2:1 step: Unknown key "step"',
  ],
  ["unknown step key", ["run", "unknown-step-key.yaml"], 'unknown-step-key.yaml:4:5 steps[0].whith: Unknown key "whith"'],
  [
    "unknown tool",
    ["run", "unknown-tool.yaml"],
    'unknown-tool.yaml:3:11 steps[0].tool: Unknown tool "ast_edits". Available: ast_edit, ast_grep, ast_scan, edit, exec, jscodeshift, resolve, write',
  ],
  ["duplicate step id", ["run", "dup-id.yaml"], 'dup-id.yaml:6:9 steps[1].id: Duplicate step id "a" (also steps[0])'],
  ["bad ${{ }} reference", ["run", "bad-ref.yaml"], "bad-ref.yaml:5:29 steps[0].with.path: Unknown reference ${{ vars.sorc }}; defined vars: src"],
  [
    "unterminated ${{ reference",
    ["run", "open-ref.yaml"],
    'open-ref.yaml:5:29 steps[0].with.path: Unterminated reference in "./${{ vars.src": ${{ needs a closing }}',
  ],
  ["empty ${{ }} reference", ["run", "empty-ref.yaml"], "empty-ref.yaml:5:29 steps[0].with.path: Empty reference ${{ }}; defined vars: src"],
  ["unsupported version", ["run", "version.yaml"], "version.yaml:1:10 version: Expected 1"],
  ["empty steps", ["run", "no-steps.yaml"], "no-steps.yaml:2:8 steps: Expected array length to be greater or equal to 1"],
  ["recipe not a mapping", ["run", "not-map.yaml"], "not-map.yaml:1:1: A recipe must be a YAML mapping with version and steps"],
  ["missing required parameter", ["run", "missing-required.yaml"], 'missing-required.yaml:4:11 steps[0].with.ops: Missing required key "ops"'],
  [
    "a rewrite reading a metavariable its pattern does not capture",
    ["run", "uncaptured.yaml"],
    "uncaptured.yaml:5:36 steps[0].with.ops[0].out: `ops[0].out` uses $B, which `ops[0].pat` does not capture",
  ],
  ['no coercion of "5" to a number', ["run", "no-coercion.yaml"], "no-coercion.yaml:4:30 steps[0].with.limit: Expected number"],
  ["resolve step without reason", ["run", "resolve-bad.yaml"], 'resolve-bad.yaml:4:11 steps[0].with.reason: Missing required key "reason"'],
  [
    "unquoted ${{ }} in a flow mapping: one error with the fix",
    ["run", "flow-ref.yaml"],
    'flow-ref.yaml:5:31: Unexpected flow-map-start at node end (inside { } or [ ], quote a ${{ }} reference: "${{ vars.n }}")',
  ],
  ["resolve step with an unknown key", ["run", "resolve-extra.yaml"], 'resolve-extra.yaml:4:39 steps[0].with.force: Unknown key "force"'],
  ["resolve step with a bad action", ["run", "resolve-action.yaml"], 'resolve-action.yaml:4:21 steps[0].with.action: Expected one of: "apply", "discard"'],
  ["missing custom module", ["run", "missing-module.yaml"], "tools/nope.ts: Failed to load tool: file not found"],
  ["custom module that throws", ["run", "throwing-module.yaml"], "tools/throws.ts: Failed to load tool: module exploded"],
  ["custom module without default export", ["run", "nodefault-module.yaml"], "tools/nodefault.ts: Tool must export a default function"],
  [
    "custom tool with plain JSON Schema parameters",
    ["run", "plain-module.yaml"],
    'tools/plain.js: Failed to load tool: the parameters of "plain" are not a TypeBox schema (build them with pi.typebox.Type, e.g. Type.Object({ ... }))',
  ],
  [
    "custom tool schema TypeBox cannot check",
    ["run", "unsafe-module.yaml"],
    "unsafe-module.yaml:5:11 steps[0].with: Cannot check against the tool's schema: Unknown type",
  ],
  ["declarative tool file", ["run", "decl-module.yaml"], "tools/decl.json: Declarative tool files (.md, .json) cannot be loaded as executable modules"],
  ["custom tool name clash", ["run", "clash-module.yaml"], 'tools/clash.ts: Tool name "ast_edit" conflicts with existing tool'],
  ["custom tool with checked against its schema", ["run", "custom-with.yaml"], "custom-with.yaml:5:16 steps[0].with.n: Expected number"],
  ["recipe file missing", ["run", "nope.yaml"], "nope.yaml: cannot read recipe (file not found)"],
  ["policy file missing", ["run", "ok.yaml", "--policy", "nope.yaml"], "nope.yaml: cannot read policy (file not found)"],
  [
    "bad policy glob",
    ["run", "ok.yaml", "--policy", "p-glob.yaml"],
    'p-glob.yaml:3:22 rules[0].match.paths[0]: Invalid glob "src/[a": Missing closing: "]" - use "\\\\]" to match literal characters',
  ],
  [
    "bad policy decision",
    ["run", "ok.yaml", "--policy", "p-decision.yaml"],
    'p-decision.yaml:2:10 default: Expected one of: "auto-apply", "require-approval", "dry-run", "discard"',
  ],
  ["unknown policy match key", ["run", "ok.yaml", "--policy", "p-unknown.yaml"], 'p-unknown.yaml:3:14 rules[0].match.tools: Unknown key "tools"'],
  [
    "negative maxFiles",
    ["run", "ok.yaml", "--policy", "p-maxfiles.yaml"],
    "p-maxfiles.yaml:3:24 rules[0].match.maxFiles: Expected integer to be greater or equal to 0",
  ],
  [
    "allow.exec: false refuses exec steps",
    ["run", "exec.yaml", "--policy", "p-noexec.yaml"],
    "exec.yaml:3:11 steps[0].tool: exec steps are not allowed by the policy (allow.exec: false)",
  ],
  [
    "allow.customTools: false refuses modules",
    ["run", "custom.yaml", "--policy", "p-nocustom.yaml"],
    "custom.yaml:2:8 tools: Custom tool modules are not allowed by the policy (allow.customTools: false)",
  ],
  ["--var without =", ["run", "ok.yaml", "--var", "src"], '--var expects name=value, got "src"'],
  ["--var of an undeclared variable", ["run", "ok.yaml", "--var", "sorc=lib"], '--var sorc: the recipe defines no variable "sorc"; defined vars: src'],
  [
    "bad --format",
    ["run", "ok.yaml", "--format", "xml"],
    `tollgate: Invalid values:\n  Argument: format, Given: "xml", Choices: "text", "json", "github"\n${USAGE}`,
  ],
  [
    "bad --mode",
    ["run", "ok.yaml", "--mode", "yolo"],
    `tollgate: Invalid values:\n  Argument: mode, Given: "yolo", Choices: "auto-apply", "require-approval", "dry-run", "discard"\n${USAGE}`,
  ],
  ["unknown flag", ["run", "ok.yaml", "--bogus"], `tollgate: Unknown argument: bogus\n${USAGE}`],
  ["a near-miss command names what was typed", ["tool"], `tollgate: Unknown command: tool. Did you mean tools?\n${USAGE}`],
  ["an unknown command", ["xyzzy"], `tollgate: Unknown command: xyzzy\n${USAGE}`],
  ["campaign without its subcommand", ["campaign"], `tollgate: Name a campaign subcommand: pr\n${USAGE}`],
  ["no command at all", [], `tollgate: Name a command: run, plan, apply, validate, tools, schema, test, recover, merge-reports, campaign\n${USAGE}`],
  [
    "bad validate --format",
    ["validate", "ok.yaml", "--format", "yaml"],
    `tollgate: Invalid values:\n  Argument: format, Given: "yaml", Choices: "text", "json", "github"\n${USAGE}`,
  ],
  ["no recipe", ["run"], "Name a recipe: tollgate run <recipe> [files..] (or --recipe FILE)"],
  ["bad --shard", ["run", "ok.yaml", "--shard", "3/2"], '--shard expects i/n with 1 <= i <= n, got "3/2"'],
  ["approvals file not a list", ["run", "ok.yaml", "--approvals", "approvals-map.yaml"], "approvals-map.yaml:1:1: Approvals must be a YAML list"],
  ["approvals file missing", ["run", "ok.yaml", "--approvals", "none.yaml"], "none.yaml: cannot read approvals (file not found)"],
  ["validate reports the same problems", ["validate", "wrong-type.yaml"], "wrong-type.yaml:5:20 steps[0].with.ops[0].pat: Expected string"],
  ["bad schema name", ["schema", "nope"], `tollgate: Invalid values:\n  Argument: which, Given: "nope", Choices: "recipe", "policy", "report"\n${USAGE}`],
];

describe("bad inputs: exact message, exit 2, no stack trace, nothing runs", () => {
  // One shared, read-only project (testdir's cleanup hook is per test, which concurrent tests confuse).
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "tollgate-bad-"));
    for (const [name, content] of Object.entries(FILES)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), content);
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.concurrent.each(CASES.map((c, i) => [...c, i] as const))("%s", async (_name, args, stderr, i) => {
    const reportFile = `report-${i}.json`;
    const r = await tollgate(args[0] === "run" ? [...args, "--report", reportFile] : args, { cwd: dir });
    expect(r.stderr).toBe(stderr);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(existsSync(path.join(dir, reportFile))).toBe(false); // exit 2: nothing ran, no report
  });

  it("the table covers at least 25 distinct bad inputs", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
  });
});
