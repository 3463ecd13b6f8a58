import type { ApprovalAnswer, Approver } from "../runner/resolution.js";
import type { PendingAction } from "../session/types.js";
import { colorDiff, safeText, type Colors } from "../term.js";

/** Interactive only with a person at both ends: stdin and stderr TTYs, and neither CI nor PRE_COMMIT set. */
export function canPrompt(env: NodeJS.ProcessEnv, io: PromptIO = defaultIO()): boolean {
  return Boolean(io.input.isTTY && io.output.isTTY) && !env.CI && !env.PRE_COMMIT;
}

export interface PromptIO {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

function defaultIO(): PromptIO {
  return { input: process.stdin, output: process.stderr };
}

const KEYS: readonly ApprovalAnswer[] = ["y", "n", "a", "d", "q"];

/**
 * The approval prompt (SPEC 4), or undefined when nobody can answer (then nothing ever waits).
 * Shows the coloured diff and reads one key in raw mode: y apply, n leave pending, a apply this
 * and all remaining, d discard, q stop asking. Ctrl-C and end of input count as q; Ctrl-C also
 * calls `onInterrupt` (the run then stops like on SIGINT: raw mode swallows the signal).
 */
export function interactiveApprover(
  env: NodeJS.ProcessEnv,
  c: Colors,
  options: { io?: PromptIO; onInterrupt?: () => void; beforePrompt?: (action: PendingAction) => void } = {},
): Approver | undefined {
  const io = options.io ?? defaultIO();
  if (!canPrompt(env, io)) return undefined;
  return async (action, info) => {
    options.beforePrompt?.(action);
    const out = io.output;
    out.write(`\n${c.bold(safeText(action.label))} ${c.dim(`(${action.meta?.id ?? "?"}, ${action.sourceToolName})`)}\n`);
    out.write(info.diff ? colorDiff(info.diff, c) : `${c.dim("(no file diff: an opaque action)")}\n`);
    out.write(
      `${c.bold("Apply this change?")} ${c.dim(`${info.remaining} pending`)} ` +
        `[${c.green("y")}]es [${c.yellow("n")}]o [${c.green("a")}]ll remaining [${c.red("d")}]iscard [q]uit asking: `,
    );
    const key = await readKey(io.input, options.onInterrupt);
    out.write(`${key}\n`);
    return key;
  };
}

function readKey(input: NodeJS.ReadStream, onInterrupt?: () => void): Promise<ApprovalAnswer> {
  return new Promise((resolve) => {
    const wasRaw = input.isRaw;
    const finish = (key: ApprovalAnswer) => {
      input.off("data", onData);
      input.off("end", onEnd);
      input.setRawMode?.(wasRaw);
      input.pause();
      resolve(key);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString("utf8").toLowerCase()) {
        if (ch === "\u0003") {
          onInterrupt?.();
          return finish("q");
        }
        if (ch === "\u0004") return finish("q");
        if ((KEYS as readonly string[]).includes(ch)) return finish(ch as ApprovalAnswer);
      }
    };
    const onEnd = () => finish("q");
    input.setRawMode?.(true);
    input.on("data", onData);
    input.once("end", onEnd);
    input.resume();
  });
}
