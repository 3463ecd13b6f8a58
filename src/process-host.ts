/**
 * What tollgate needs of the process it runs in, as one value passed through the world
 * (RunWorld.process, ToolHost.process) instead of the `process` global: its pid, its environment,
 * whether another process lives, signals, and hooks for the process's end. The CLI makes the one
 * real host (`nodeProcess()`) and hands it to the run; a library caller that passes none gets it
 * from the runner's entry points. This module is the only one outside the CLI (and the worker
 * entry files, which are processes of their own) that touches `process`.
 */

/** Environment variables as the process has them (read when asked, not copied). */
export type Env = Readonly<Record<string, string | undefined>>;

export interface ProcessHost {
  readonly pid: number;
  readonly env: Env;
  /** Whether a process with this pid exists (one that belongs to another user counts). */
  isAlive(pid: number): boolean;
  /** Sends `signal` to `pid`, or with a negative pid to that process group; false when none is there. */
  kill(pid: number, signal: NodeJS.Signals): boolean;
  /**
   * Runs `hook` when the process exits normally (synchronously: Node's `exit`); returns what
   * removes it. A signal the process does not handle runs no hook.
   */
  onExit(hook: () => void): () => void;
  /**
   * Runs `hook` whenever the event loop runs empty while the process is not exiting (Node's
   * `beforeExit`): nothing is left that could settle a pending promise. Returns what removes it.
   * The hook is registered as given (the CLI recognises the listeners of util/settle.ts by a mark).
   */
  onLoopEmpty(hook: () => void): () => void;
}

/** The host over this Node process. It holds nothing: every call goes to `process`. */
export function nodeProcess(): ProcessHost {
  return {
    pid: process.pid,
    env: process.env,
    isAlive(pid) {
      if (!Number.isInteger(pid) || pid <= 0) return false;
      try {
        process.kill(pid, 0);
        return true;
      } catch (err) {
        // EPERM: it exists but belongs to someone else.
        return (err as NodeJS.ErrnoException).code === "EPERM";
      }
    },
    kill(pid, signal) {
      try {
        process.kill(pid, signal);
        return true;
      } catch {
        return false;
      }
    },
    onExit(hook) {
      process.on("exit", hook);
      return () => process.off("exit", hook);
    },
    onLoopEmpty(hook) {
      process.on("beforeExit", hook);
      return () => process.off("beforeExit", hook);
    },
  };
}
