import { statSync } from "node:fs";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { containScope } from "../discovery/index.js";
import { ToolError } from "../errors.js";
import type { ExecResult } from "../subprocess.js";
import type { AgentToolResult, Tool } from "../domain/types.js";
import { textResult } from "../domain/types.js";
import type { ToolHost } from "./host.js";

const execParameters = Type.Object(
  {
    command: Type.String({ description: "Command to run (argv[0]; with shell: true, a shell command line)" }),
    args: Type.Optional(Type.Array(Type.String(), { description: "Arguments (argv form, no shell)" })),
    shell: Type.Optional(Type.Boolean({ description: "Run through a shell (default false)", default: false })),
    cwd: Type.Optional(Type.String({ description: "Working directory, relative to the workspace root" })),
    env: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Extra environment variables" })),
    timeout: Type.Optional(Type.Number({ description: "Timeout in milliseconds" })),
    stage: Type.Optional(
      Type.Boolean({
        description: "false (default): run now (meant for read-only commands); true: stage a pending action whose apply runs it",
        default: false,
      }),
    ),
  },
  { additionalProperties: false },
);

interface ExecDetails {
  command: string;
  args: string[];
  cwd: string;
  shell: boolean;
  staged: boolean;
  code?: number;
  killed?: boolean;
  stdout?: string;
  stderr?: string;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function commandLine(command: string, args: readonly string[], shell: boolean): string {
  return shell ? [command, ...args].join(" ") : [command, ...args].map(quote).join(" ");
}

function outputText(line: string, result: ExecResult, timeout: number | undefined, signal?: AbortSignal): string {
  const parts = [`$ ${line}`];
  if (result.stdout) parts.push(result.stdout.replace(/\n$/, ""));
  if (result.stderr) parts.push(result.stderr.replace(/\n$/, ""));
  const why = signal?.aborted ? " (interrupted)" : timeout !== undefined ? ` (timeout ${timeout} ms)` : "";
  parts.push(result.killed ? `killed${why}, exit code ${result.code}` : `exit code ${result.code}`);
  return parts.join("\n");
}

/**
 * A failed command's text: the first line says why on its own (the CLI shows only that line per
 * step), e.g. `$ no-such-cmd a failed: exit code 127 (command not found: no-such-cmd (ENOENT))`.
 */
function failureText(line: string, result: ExecResult, timeout: number | undefined, signal?: AbortSignal): string {
  const why = signal?.aborted ? "interrupted" : timeout !== undefined ? `timeout ${timeout} ms` : "";
  const lastErr = result.stderr.trim().split("\n").at(-1) ?? "";
  const head = result.killed
    ? `$ ${line} failed: killed${why ? ` (${why})` : ""}`
    : `$ ${line} failed: exit code ${result.code}${lastErr ? ` (${lastErr.slice(0, 200)})` : ""}`;
  return `${head}\n${outputText(line, result, timeout, signal)}`;
}

export function createExecTool(host: ToolHost): Tool<typeof execParameters, ExecDetails> {
  return {
    name: "exec",
    label: "Exec",
    description:
      "Run a command (argv form; `shell: true` only when asked). Unstaged (default) it runs at once, also under --dry-run, so use it for commands that only read; with `stage: true` it stages a pending action whose apply runs it.",
    parameters: execParameters,
    deferrable: true,
    runs: { kind: "commands" },
    async execute(_id, params, _onUpdate, _ctx, signal): Promise<AgentToolResult<ExecDetails>> {
      if (typeof params.command !== "string" || params.command.trim() === "") throw new ToolError("`command` must be a non-empty string");
      const args = params.args ?? [];
      const shell = params.shell ?? false;
      if (params.timeout !== undefined && (!Number.isFinite(params.timeout) || params.timeout <= 0))
        throw new ToolError("`timeout` must be a positive number of milliseconds");
      const { abs: cwdAbs, rel: cwdRel } = containScope(host.workspace.root, params.cwd ?? ".");
      // One clear message instead of the spawn error with absolute paths.
      const cwdStat = statSync(cwdAbs, { throwIfNoEntry: false });
      if (!cwdStat) throw new ToolError(`Working directory not found: ${cwdRel}`);
      if (!cwdStat.isDirectory()) throw new ToolError(`Working directory is not a directory: ${cwdRel}`);
      const line = commandLine(params.command, args, shell);
      const base: ExecDetails = { command: params.command, args, cwd: cwdRel, shell, staged: params.stage ?? false };
      const run = async (sig?: AbortSignal) =>
        host.exec(params.command, args, {
          cwd: path.resolve(cwdAbs),
          ...(params.timeout !== undefined ? { timeout: params.timeout } : {}),
          ...(sig ? { signal: sig } : {}),
          ...(params.env ? { env: params.env } : {}),
          shell,
        });
      if (params.stage) {
        host.push({
          label: `Exec: ${line}`,
          sourceToolName: "exec",
          details: base,
          async apply() {
            const result = await run();
            if (result.code !== 0 || result.killed) throw new Error(`Command failed: ${failureText(line, result, params.timeout)}`);
            const text = outputText(line, result, params.timeout);
            return textResult(text, { ...base, code: result.code, killed: result.killed, stdout: result.stdout, stderr: result.stderr });
          },
        });
        return textResult(`Staged: ${line}${cwdRel !== "." ? ` (in ${cwdRel})` : ""}\nIt runs when this pending action is resolved with apply.`, base);
      }
      const result = await run(signal);
      if (result.code !== 0 || result.killed) throw new ToolError(failureText(line, result, params.timeout, signal));
      const text = outputText(line, result, params.timeout, signal);
      return textResult(text, { ...base, code: result.code, killed: result.killed, stdout: result.stdout, stderr: result.stderr });
    },
  };
}
