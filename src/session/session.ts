import { AsyncLocalStorage } from "node:async_hooks";
import { Value, type ValueError } from "@sinclair/typebox/value";
import { ToolError } from "../errors.js";
import { asError, messageOf } from "../util/thrown.js";
import { sha256 } from "../util/hash.js";
import { bounded } from "../util/settle.js";
import { nodeProcess, type ProcessHost } from "../process-host.js";
import { createResolveTool } from "./resolve.js";
import { PendingActionStore } from "./store.js";
import { joinText, type AgentToolResult, type PendingAction, type StagedAction, type Tool, type ToolCallResult } from "../domain/types.js";

export const STORE_UNAVAILABLE = "Pending action store unavailable for custom tools in this runtime.";

export interface ToolCallRecord {
  toolCallId: string;
  stepId: string;
  tool: string;
  params: unknown;
  result: ToolCallResult;
  /** What the tool threw, when it did (the result then has isError). */
  error?: unknown;
  /** Actions this call pushed, in push order. */
  pushed: StagedAction[];
  /** The action this call consumed (a `resolve` pops one before running its callback). */
  consumed?: StagedAction;
  startedAt: number;
  durationMs: number;
}

type SessionEvent =
  | { type: "call_start"; toolCallId: string; stepId: string; tool: string; params: unknown }
  | { type: "action_pushed"; staged: StagedAction }
  /** A tool's progress report (its `onUpdate` calls), for live progress displays. */
  | { type: "update"; toolCallId: string; stepId: string; partial: AgentToolResult }
  | { type: "call_end"; record: ToolCallRecord };

/** One tool call as the code it runs sees it (through AsyncLocalStorage, timers and promises included). */
interface CallState {
  stepId: string;
  toolCallId: string;
  pushed: StagedAction[];
  consumed?: StagedAction;
  /** Set when the call is over: finished, timed out or stuck. */
  ended?: string;
}

interface CallOptions {
  /** Fail the call after this long (a step's `timeout`, the recipe's `applyTimeout`). */
  timeoutMs?: number | undefined;
  /** The error text on timeout, e.g. `Step x timed out after 500 ms`. */
  timeoutMessage?: string;
  /** What the call is, for the never-settles message: `Step x`, `The apply of x#1`. */
  what?: string;
}

interface SessionOptions {
  cwd: string;
  /** Milliseconds clock; injectable for deterministic tests. */
  now?: () => number;
  /** The process the calls run in: a call is stuck when its event loop runs empty (absent: this one). */
  process?: Pick<ProcessHost, "onLoopEmpty">;
  signal?: AbortSignal;
  /**
   * False: the session is not active until `start()` (the runner loads custom tools first, and
   * a push while loading is outside an active session). Default true.
   */
  active?: boolean;
}

/** Human-readable path of the first schema violation, e.g. `files[0]: Expected string`. */
function schemaErrors(schema: Tool["parameters"], value: unknown): string[] {
  const out: string[] = [];
  let all: Iterable<ValueError>;
  try {
    // materialize the first few: TypeBox throws while walking a schema it cannot check
    const first: ValueError[] = [];
    for (const err of Value.Errors(schema, value)) if (first.push(err) >= 20) break;
    all = first;
  } catch (err) {
    return [`cannot check against the tool's schema: ${messageOf(err)}`];
  }
  for (const err of all) {
    const path = err.path
      .split("/")
      .slice(1)
      .map((seg) => seg.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), "");
    out.push(path ? `${path}: ${err.message}` : err.message);
    if (out.length >= 20) break;
  }
  return out;
}

/**
 * One session: a tool registry, one PendingActionStore, tool calls run one at a time. Any
 * throw from a tool becomes an error result and the session goes on.
 */
export class Session {
  readonly cwd: string;
  readonly store = new PendingActionStore();
  readonly tools = new Map<string, Tool>();
  readonly records: ToolCallRecord[] = [];
  #signal: AbortSignal | undefined;
  readonly #now: () => number;
  readonly #host: Pick<ProcessHost, "onLoopEmpty">;
  readonly #listeners = new Set<(event: SessionEvent) => void>();
  readonly #pushCounts = new Map<string, number>();
  /** Records of the actions on the store, until a resolve consumes them. */
  readonly #pending = new Map<PendingAction, StagedAction>();
  #pushes = 0;
  #callCounter = 0;
  #current: CallState | undefined;
  readonly #calls = new AsyncLocalStorage<CallState>();
  #state: "idle" | "active" | "ended";

  constructor(options: SessionOptions) {
    this.cwd = options.cwd;
    this.#now = options.now ?? Date.now;
    this.#host = options.process ?? nodeProcess();
    this.#signal = options.signal;
    this.#state = options.active === false ? "idle" : "active";
    this.register(createResolveTool(this.store, (action) => this.#consume(action)));
  }

  get active(): boolean {
    return this.#state === "active";
  }

  /** Handed to every tool call (aborted: the run was interrupted). */
  get signal(): AbortSignal | undefined {
    return this.#signal;
  }

  /**
   * Makes an idle session active (an ended one stays ended). `signal`, the run's interrupt,
   * joins the session's own: a tool call running when it fires sees it.
   */
  start(options: { signal?: AbortSignal } = {}): void {
    if (this.#state === "idle") this.#state = "active";
    const { signal } = options;
    if (signal && signal !== this.#signal) this.#signal = this.#signal ? AbortSignal.any([this.#signal, signal]) : signal;
  }

  /** After end(), pushPendingAction throws STORE_UNAVAILABLE. */
  end(): void {
    this.#state = "ended";
  }

  on(listener: (event: SessionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`Tool name "${tool.name}" conflicts with existing tool`);
    this.tools.set(tool.name, tool);
  }

  /** The record of an action still on the store (undefined once consumed, or never pushed here). */
  stagedOf(action: PendingAction): StagedAction | undefined {
    return this.#pending.get(action);
  }

  /**
   * Pushes an action staged by the tool call in progress and records the runner's bookkeeping
   * about it (`<step-id>#<n>` id, tool-call id) beside it. Outside a call the action belongs to
   * the last step.
   */
  pushPendingAction(action: PendingAction): void {
    if (this.#state !== "active") throw new Error(STORE_UNAVAILABLE);
    const late = this.lateReason();
    if (late) throw new Error(late);
    // The call whose code is pushing (a timer of an earlier call is refused above, never
    // attributed to the call running now).
    const current = this.#calls.getStore() ?? this.#current;
    const stepId = current?.stepId ?? this.records.at(-1)?.stepId ?? "session";
    const toolCallId = current?.toolCallId ?? this.records.at(-1)?.toolCallId ?? "none";
    const n = (this.#pushCounts.get(stepId) ?? 0) + 1;
    this.#pushCounts.set(stepId, n);
    const staged: StagedAction = {
      action,
      id: `${stepId}#${action.key ?? n}`,
      stepId,
      toolCallId,
      order: this.#pushes++,
      preview: undefined,
      fingerprint: fingerprintOf(action),
    };
    this.#pending.set(action, staged);
    current?.pushed.push(staged);
    this.store.push(action);
    this.#emit({ type: "action_pushed", staged });
  }

  /**
   * Why code running now must not act (stage, push): it belongs to a tool call that is over —
   * finished, timed out or stuck (whatever a step does after its timeout is refused).
   */
  lateReason(): string | undefined {
    const state = this.#calls.getStore();
    if (!state?.ended) return undefined;
    return `Refused: step ${state.stepId} is over (${state.ended}); what it does afterwards is not accepted`;
  }

  /**
   * Runs one tool call to completion, or until `options.timeoutMs`, or until it is clear the call
   * can never settle (the event loop ran empty while it was pending). Never throws for tool
   * failures: those, the timeout and the stuck call are error results.
   */
  async call(toolName: string, params: unknown, stepId: string, options: CallOptions = {}): Promise<ToolCallRecord> {
    const toolCallId = `call_${++this.#callCounter}`;
    const startedAt = this.#now();
    const pushed: StagedAction[] = [];
    const state: CallState = { stepId, toolCallId, pushed };
    this.#current = state;
    this.#emit({ type: "call_start", toolCallId, stepId, tool: toolName, params });
    let result: ToolCallResult;
    let error: unknown;
    let failed = false;
    const what = options.what ?? `Step ${stepId}`;
    try {
      const running = this.#calls.run(state, () => this.#execute(toolName, params, toolCallId, stepId));
      result = normalizeResult(
        await bounded(running, {
          host: this.#host,
          timeoutMs: options.timeoutMs,
          timedOut: () => new ToolError(options.timeoutMessage ?? `${what} timed out after ${options.timeoutMs} ms`),
          stuck: () => new ToolError(`${what} can never finish: its promise is pending and nothing is left that could settle it (no timer, no I/O)`),
        }),
      );
      state.ended = "finished";
    } catch (thrown) {
      // Whatever user code threw (a Proxy whose traps throw, say) is read once, safely, here.
      const err = asError(thrown);
      failed = true;
      error = err;
      state.ended = err instanceof ToolError && /timed out|can never finish/.test(err.message) ? err.message : "finished with an error";
      result = { content: [{ type: "text", text: messageOf(err) }], details: {}, isError: true };
    } finally {
      state.ended ??= "finished";
      if (this.#current === state) this.#current = undefined;
    }
    for (const staged of pushed) {
      staged.preview = result;
      staged.fingerprint = fingerprintOf(staged.action, result);
    }
    const record: ToolCallRecord = {
      toolCallId,
      stepId,
      tool: toolName,
      params,
      result,
      ...(failed ? { error } : {}),
      pushed,
      ...(state.consumed ? { consumed: state.consumed } : {}),
      startedAt,
      durationMs: this.#now() - startedAt,
    };
    this.records.push(record);
    this.#emit({ type: "call_end", record });
    return record;
  }

  async #execute(toolName: string, params: unknown, toolCallId: string, stepId: string): Promise<AgentToolResult> {
    const tool = this.tools.get(toolName);
    if (!tool) throw new ToolError(`Unknown tool: ${toolName}`);
    const problems = schemaErrors(tool.parameters, params);
    if (problems.length > 0) throw new ToolError(`Invalid parameters for ${toolName}: ${problems.join("; ")}`);
    const ctx = {
      cwd: this.cwd,
      stepId,
      isIdle: () => this.#current === undefined,
      hasQueuedMessages: () => false,
      abort: () => {},
    };
    const onUpdate = (partial: AgentToolResult) => this.#emit({ type: "update", toolCallId, stepId, partial });
    return tool.execute(toolCallId, params, onUpdate, ctx, this.#signal);
  }

  /** A resolve popped `action`: it is consumed whatever happens next. */
  #consume(action: PendingAction): void {
    const staged = this.#pending.get(action);
    this.#pending.delete(action);
    const state = this.#calls.getStore() ?? this.#current;
    if (state && staged) state.consumed = staged;
  }

  #emit(event: SessionEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

function normalizeResult(result: unknown): ToolCallResult {
  if (result && typeof result === "object" && Array.isArray((result as AgentToolResult).content)) {
    return result as ToolCallResult;
  }
  if (result === undefined) return { content: [] };
  throw new ToolError(`Tool returned an invalid result (expected { content: [...] })`);
}

/**
 * sha256 over the source tool, label and exact changes (path, before and after hashes) or, for
 * opaque actions, over their details and the preview text.
 */
function fingerprintOf(action: PendingAction, preview?: ToolCallResult): string {
  const body = action.changes
    ? {
        source: action.sourceToolName,
        label: action.label,
        changes: action.changes.map((c) => [c.path, c.beforeSha256, c.afterSha256]),
      }
    : {
        source: action.sourceToolName,
        label: action.label,
        details: safeJson(action.details),
        preview: joinText(preview),
      };
  return sha256(JSON.stringify(body));
}

function safeJson(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return String(value);
  }
}
