import type { ApprovalAnswer, Approver } from "../runner/types.js";
import type { StagedAction } from "../domain/types.js";
import { colorDiff, safeText, type Colors } from "../term.js";
import { MAX_PROMPT_DIFF_LINES, promptView } from "./prompt-view.js";

/** Interactive only with a person at both ends: stdin and stderr TTYs, and neither CI nor PRE_COMMIT set. */
function canPrompt(env: NodeJS.ProcessEnv, io: PromptIO = defaultIO()): boolean {
  // The environment first: `process.stdin` is built on first use (a stream, ~5 ms of start-up).
  return !env.CI && !env.PRE_COMMIT && Boolean(io.output.isTTY && io.input.isTTY);
}

interface PromptIO {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

function defaultIO(): PromptIO {
  return {
    get input() {
      return process.stdin;
    },
    output: process.stderr,
  };
}

const KEYS: readonly ApprovalAnswer[] = ["y", "n", "a", "d", "q"];

/**
 * The approval prompt, or undefined when nobody can answer (then nothing ever waits).
 * Shows the coloured diff and reads one key in raw mode: y apply, n leave pending, a apply this
 * and all remaining, d discard, q stop asking. Ctrl-C, a signal (SIGTERM, SIGHUP) and end of input
 * count as q and stop the run as SIGINT does (Ctrl-C through `onInterrupt`: raw mode swallows the
 * signal; end of input through `onHangup`).
 */
export function interactiveApprover(
  env: NodeJS.ProcessEnv,
  c: Colors,
  options: {
    io?: PromptIO;
    onInterrupt?: () => void;
    beforePrompt?: (staged: StagedAction) => void;
    /** The run's interrupt (SIGINT/SIGTERM/SIGHUP): the prompt stops waiting, the run ends like on Ctrl-C. */
    signal?: AbortSignal;
    /** The terminal closed while the prompt waited (end of input, EIO): the run stops as on SIGHUP. */
    onHangup?: () => void;
    /** The workspace root: diffs are shown against the files as they are now. */
    root?: string;
  } = {},
): Approver | undefined {
  const io = options.io ?? defaultIO();
  if (!canPrompt(env, io)) return undefined;
  return async (staged, info) => {
    options.beforePrompt?.(staged);
    const out = io.output;
    const { action, id } = staged;
    out.write(`\n${c.bold(safeText(action.label))} ${c.dim(`(${id}, ${action.sourceToolName})`)}\n`);
    const changes = action.changes ?? [];
    if (changes.length === 0) out.write(info.diff ? colorDiff(info.diff, c) : `${c.dim("(no file diff: an opaque action)")}\n`);
    else {
      const view = promptView(changes, options.root ?? process.cwd());
      if (view.diff !== undefined) out.write(colorDiff(view.diff, c, MAX_PROMPT_DIFF_LINES));
      for (const line of view.summary) out.write(`${safeText(line)}\n`);
      for (const note of view.notes) out.write(`${c.dim(`note: ${safeText(note)}`)}\n`);
    }
    out.write(
      `${c.bold(`Apply ${safeText(id)}?`)} ${c.dim(`${info.remaining} pending`)} ` +
        `[${c.green("y")}]es [${c.yellow("n")}]o [${c.green("a")}]ll remaining [${c.red("d")}]iscard [q]uit asking: `,
    );
    const key = await readKey(io.input, options.onInterrupt, options.signal, options.onHangup);
    out.write(`${key}\n`);
    return key;
  };
}

function readKey(input: NodeJS.ReadStream, onInterrupt?: () => void, signal?: AbortSignal, onHangup?: () => void): Promise<ApprovalAnswer> {
  return new Promise((resolve) => {
    const wasRaw = input.isRaw;
    let done = false;
    const finish = (key: ApprovalAnswer) => {
      if (done) return;
      done = true;
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onEnd);
      signal?.removeEventListener("abort", onAbort);
      try {
        input.setRawMode?.(wasRaw);
      } catch {
        // the terminal is gone (SIGHUP): nothing to restore
      }
      input.pause();
      resolve(key);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString("utf8").toLowerCase()) {
        if (ch === "\u0003") {
          onInterrupt?.();
          finish("q");
          return;
        }
        if (ch === "\u0004") {
          finish("q");
          return;
        }
        if ((KEYS as readonly string[]).includes(ch)) {
          finish(ch as ApprovalAnswer);
          return;
        }
      }
    };
    // End of input or EIO on a terminal: it closed under us (its SIGHUP may come later or never).
    const onEnd = () => {
      if (!done) onHangup?.();
      finish("q");
    };
    // A signal while waiting for a key (SIGTERM, the terminal closing) ends the wait: the run
    // sees its aborted signal and stops as on Ctrl-C (the rest discarded, report written, exit 130).
    const onAbort = () => finish("q");
    if (signal?.aborted) {
      finish("q");
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    input.once("error", onEnd); // EIO once the terminal is gone
    input.setRawMode?.(true);
    input.on("data", onData);
    input.once("end", onEnd);
    input.resume();
  });
}
