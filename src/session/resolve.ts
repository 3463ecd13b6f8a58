import { Type, type Static } from "@sinclair/typebox";
import { ToolError } from "../errors.js";
import type { PendingActionStore } from "./store.js";
import { joinText, type AgentToolResult, type PendingAction, type Tool } from "../domain/types.js";

export const NO_PENDING_ACTION = "No pending action to resolve. Nothing to apply or discard.";

// Both required; no other keys (resolve is a strict tool, and a recipe typo such as
// `force: true` must be an "Unknown key" error like every built-in tool's).
export const resolveParameters = Type.Object(
  {
    action: Type.Union([Type.Literal("apply"), Type.Literal("discard")]),
    reason: Type.String({ description: "Why you're applying or discarding" }),
  },
  { additionalProperties: false },
);
export type ResolveParams = Static<typeof resolveParameters>;

interface ResolveDetails {
  action: "apply" | "discard";
  reason: string;
  sourceToolName: string;
  label: string;
}

/**
 * Resolves the top action of the store. The action is popped before its callback runs, so it
 * is consumed whatever happens next. `onPopped` lets the session record which
 * action a call consumed (ToolCallRecord.consumed), even when its callback throws.
 */
export async function resolveTop(
  store: PendingActionStore,
  params: ResolveParams,
  onPopped?: (action: PendingAction) => void,
): Promise<AgentToolResult<ResolveDetails>> {
  const entry = store.pop();
  if (!entry) throw new ToolError(NO_PENDING_ACTION);
  onPopped?.(entry);
  const details: ResolveDetails = {
    action: params.action,
    reason: params.reason,
    sourceToolName: entry.sourceToolName,
    label: entry.label,
  };
  if (params.action === "apply") {
    const result = await entry.apply(params.reason);
    const text = joinText(result);
    return { content: [{ type: "text", text: text || `Applied: ${entry.label}.` }], details };
  }
  if (entry.reject) {
    const result = await entry.reject(params.reason);
    // undefined (or null, or anything that is not a tool result) keeps the default message
    if (result != null && Array.isArray(result.content)) return { content: result.content, details };
  }
  return { content: [{ type: "text", text: `Discarded: ${entry.label}. Reason: ${params.reason}` }], details };
}

/** The hidden `resolve` tool bound to one store. */
export function createResolveTool(store: PendingActionStore, onPopped?: (action: PendingAction) => void): Tool<typeof resolveParameters, ResolveDetails> {
  return {
    name: "resolve",
    label: "Resolve",
    description: "Resolve the top pending preview action: `apply` persists it, `discard` rejects it. Fails when nothing is pending.",
    parameters: resolveParameters,
    hidden: true,
    execute: (_id, params) => resolveTop(store, params, onPopped),
  };
}

/** The original renderer's fallbacks for an empty label and an empty reason. */
const NO_LABEL = "pending action";
const NO_REASON = "No reason provided";

/** `Accept: <summary> [<Source>]` / `Discard: <summary> [<Source>]` (the original renderer). */
export function renderResolveLine(action: "apply" | "discard", rawLabel: string, isError = false): string {
  const verb = action === "apply" && !isError ? "Accept:" : "Discard:";
  const label = rawLabel.trim() ? rawLabel : NO_LABEL;
  const cut = label.indexOf(": ");
  if (cut < 0) return `${verb} ${label}`;
  return `${verb} ${label.slice(cut + 2)} [${label.slice(0, cut)}]`;
}

/** The line under a rendered resolve: the reason, or the original renderer's fallback. */
export function renderResolveReason(reason: string | null | undefined): string {
  return reason?.trim() ? reason : NO_REASON;
}
