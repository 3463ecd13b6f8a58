import type { ProcessHost } from "./process-host.js";

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
const EXEC_OUTPUT_CAP = 1024 * 1024;

function cap(text: string): string {
  return text.length > EXEC_OUTPUT_CAP ? `${text.slice(0, EXEC_OUTPUT_CAP)}\n[output truncated]` : text;
}

/** Sends `signal` to the whole process group led by `pid` (ignored when it is gone). */
function killGroup(host: Pick<ProcessHost, "kill">, pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid !== undefined) host.kill(-pid, signal);
}

/**
 * Runs a command in argv form (no shell unless asked). A non-zero exit does not throw; a
 * missing command reports code 127 with the reason on stderr.
 *
 * The command runs in a process group of its own (never hang). `timeout` and the
 * cancel signal kill the whole group (SIGTERM, SIGKILL a second later), and when the command
 * itself exits, whatever it left running in its group is ended too: `sh -c "sleep 25 & echo x"`
 * is done when `sh` is, not when the orphaned `sleep` would close the output pipe. The groups
 * are signalled through `host`.
 */
export function createExec(defaultCwd: string, host: Pick<ProcessHost, "kill">): ExecFn {
  return async (command, args, options = {}) => {
    const { execa } = await import("execa");
    const subprocess = execa(command, args, {
      cwd: options.cwd ?? defaultCwd,
      reject: false,
      stdin: "ignore",
      shell: options.shell ?? false,
      detached: true,
      ...(options.env ? { env: options.env } : {}),
      maxBuffer: 64 * 1024 * 1024,
      stripFinalNewline: false,
    });
    const pid = subprocess.pid;
    let timedOut = false;
    let canceled = false;
    let forceTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      killGroup(host, pid, "SIGTERM");
      forceTimer ??= setTimeout(() => killGroup(host, pid, "SIGKILL"), 1000);
    };
    const timer =
      options.timeout !== undefined
        ? setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeout)
        : undefined;
    const onAbort = () => {
      canceled = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    subprocess.on("exit", () => killGroup(host, pid, "SIGKILL"));
    let result;
    try {
      result = await subprocess;
    } finally {
      if (timer) clearTimeout(timer);
      if (forceTimer) clearTimeout(forceTimer);
      options.signal?.removeEventListener("abort", onAbort);
    }
    const killed = timedOut || canceled || Boolean(result.isTerminated);
    const notFound = result.failed && result.exitCode === undefined && !killed;
    const errno = (result.cause as NodeJS.ErrnoException | undefined)?.code;
    const why = notFound
      ? errno === "ENOENT"
        ? `command not found: ${command} (ENOENT)`
        : errno === "EACCES"
          ? `permission denied: ${command} (EACCES)`
          : (result.shortMessage ?? "command could not be started")
      : "";
    return {
      stdout: cap(String(result.stdout ?? "")),
      stderr: cap(String(result.stderr ?? "")) || why,
      code: result.exitCode ?? (notFound ? (errno === "EACCES" ? 126 : 127) : 1),
      killed,
    };
  };
}
