export interface ExecOptions {
  cwd?: string;
  timeout?: number;
  signal?: AbortSignal;
  env?: Record<string, string>;
  shell?: boolean;
}
export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
  killed: boolean;
}
export type ExecFn = (command: string, args: string[], options?: ExecOptions) => Promise<ExecResult>;

/** Output kept per stream; more is cut with a marker (a chatty command cannot flood the report). */
export const EXEC_OUTPUT_CAP = 1024 * 1024;

function cap(text: string): string {
  return text.length > EXEC_OUTPUT_CAP ? `${text.slice(0, EXEC_OUTPUT_CAP)}\n[output truncated]` : text;
}

/**
 * Runs a command in argv form (no shell unless asked). A non-zero exit does not throw; a
 * missing command reports code 127 with the error on stderr.
 */
export function createExec(defaultCwd: string): ExecFn {
  return async (command, args, options = {}) => {
    const { execa } = await import("execa");
    const result = await execa(command, args, {
      cwd: options.cwd ?? defaultCwd,
      reject: false,
      stdin: "ignore",
      shell: options.shell ?? false,
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      ...(options.signal ? { cancelSignal: options.signal } : {}),
      ...(options.env ? { env: options.env } : {}),
      maxBuffer: 64 * 1024 * 1024,
      stripFinalNewline: false,
    });
    const notFound = result.failed && result.exitCode === undefined && !result.isTerminated && !result.timedOut && !result.isCanceled;
    return {
      stdout: cap(String(result.stdout ?? "")),
      stderr: cap(String(result.stderr ?? "")) || (notFound ? (result.shortMessage ?? "command not found") : ""),
      code: result.exitCode ?? (notFound ? 127 : 1),
      killed: Boolean(result.isTerminated || result.timedOut || result.isCanceled),
    };
  };
}
