import { describe, expect, it } from "vitest";
import { PendingActionStore } from "../../src/session/store.js";
import { NO_PENDING_ACTION, renderResolveLine, resolveParameters, resolveTop } from "../../src/session/resolve.js";
import { Session, STORE_UNAVAILABLE } from "../../src/session/session.js";
import type { PendingAction } from "../../src/domain/types.js";

function action(label: string, log: string[], extra: Partial<PendingAction> = {}): PendingAction {
  return {
    label,
    sourceToolName: "test_tool",
    apply: async (reason) => {
      log.push(`apply ${label} ${reason}`);
      return { content: [{ type: "text", text: `applied ${label}` }] };
    },
    ...extra,
  };
}

describe("PendingActionStore", () => {
  it("is a LIFO stack with count, hasPending, peek and push listeners", () => {
    const store = new PendingActionStore();
    const seen: Array<[string, number]> = [];
    const off = store.subscribePush((a, n) => seen.push([a.label, n]));
    expect(store.hasPending).toBe(false);
    expect(store.peek()).toBeUndefined();
    store.push(action("A", []));
    store.push(action("B", []));
    expect(store.count).toBe(2);
    expect(store.peek()?.label).toBe("B");
    off();
    store.push(action("C", []));
    expect(seen).toEqual([
      ["A", 1],
      ["B", 2],
    ]);
    expect(store.pop()?.label).toBe("C");
    expect(store.pop()?.label).toBe("B");
    expect(store.pop()?.label).toBe("A");
    expect(store.pop()).toBeUndefined();
    expect(store.hasPending).toBe(false);
  });
});

describe("resolve: its parameters, texts and order", () => {
  it("has exactly two required parameters, action and reason", () => {
    expect(resolveParameters.required).toEqual(["action", "reason"]);
    expect(resolveParameters.properties.reason.description).toBe("Why you're applying or discarding");
  });

  it("fails on an empty stack with the exact message", async () => {
    await expect(resolveTop(new PendingActionStore(), { action: "apply", reason: "x" })).rejects.toThrow(NO_PENDING_ACTION);
    expect(NO_PENDING_ACTION).toBe("No pending action to resolve. Nothing to apply or discard.");
  });

  it("resolves two previews in LIFO order", async () => {
    const log: string[] = [];
    const store = new PendingActionStore();
    store.push(action("first", log));
    store.push(action("second", log));
    await resolveTop(store, { action: "apply", reason: "r1" });
    await resolveTop(store, { action: "apply", reason: "r2" });
    expect(log).toEqual(["apply second r1", "apply first r2"]);
  });

  it("apply joins non-empty text parts, else falls back to Applied: <label>.", async () => {
    const store = new PendingActionStore();
    store.push({
      label: "X: joined",
      sourceToolName: "t",
      apply: async () => ({
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "" },
          { type: "image", data: "AA==", mimeType: "image/png" },
          { type: "text", text: "two" },
        ],
        details: { dropped: true },
      }),
    });
    store.push({ label: "X: empty", sourceToolName: "t", apply: async () => ({ content: [] }) });
    const empty = await resolveTop(store, { action: "apply", reason: "why" });
    expect(empty.content).toEqual([{ type: "text", text: "Applied: X: empty." }]);
    expect(empty.details).toEqual({ action: "apply", reason: "why", sourceToolName: "t", label: "X: empty" });
    const joined = await resolveTop(store, { action: "apply", reason: "why" });
    expect(joined.content).toEqual([{ type: "text", text: "one\ntwo" }]);
    expect(joined.details).toEqual({ action: "apply", reason: "why", sourceToolName: "t", label: "X: joined" });
  });

  it("discard: reject's result replaces the default; undefined or no reject gives the default text", async () => {
    const store = new PendingActionStore();
    const rejected: string[] = [];
    store.push(action("A: no reject", []));
    store.push(action("B: undefined reject", [], { reject: async (r) => void rejected.push(r) }));
    store.push(
      action("C: reject", [], {
        reject: async (r) => ({
          content: [
            { type: "image", data: "AA==", mimeType: "image/png" },
            { type: "text", text: `custom ${r}` },
          ],
        }),
      }),
    );
    const c = await resolveTop(store, { action: "discard", reason: "nope" });
    expect(c.content).toEqual([
      { type: "image", data: "AA==", mimeType: "image/png" },
      { type: "text", text: "custom nope" },
    ]);
    expect(c.details).toEqual({ action: "discard", reason: "nope", sourceToolName: "test_tool", label: "C: reject" });
    const b = await resolveTop(store, { action: "discard", reason: "r2" });
    expect(b.content).toEqual([{ type: "text", text: "Discarded: B: undefined reject. Reason: r2" }]);
    expect(rejected).toEqual(["r2"]);
    const a = await resolveTop(store, { action: "discard", reason: "" });
    expect(a.content).toEqual([{ type: "text", text: "Discarded: A: no reject. Reason: " }]);
  });

  it("discard: a reject returning null (plain JS tools) also keeps the default text, not a TypeError", async () => {
    const store = new PendingActionStore();
    store.push(action("N: null reject", [], { reject: async () => null as never }));
    const n = await resolveTop(store, { action: "discard", reason: "why" });
    expect(n.content).toEqual([{ type: "text", text: "Discarded: N: null reject. Reason: why" }]);
  });

  it("a throwing apply or reject is an error and the action is consumed", async () => {
    const store = new PendingActionStore();
    store.push({
      label: "R",
      sourceToolName: "t",
      apply: async () => ({ content: [] }),
      reject: async () => {
        throw new Error("reject broke");
      },
    });
    store.push({
      label: "A",
      sourceToolName: "t",
      apply: async () => {
        throw new Error("apply broke");
      },
    });
    await expect(resolveTop(store, { action: "apply", reason: "x" })).rejects.toThrow("apply broke");
    expect(store.count).toBe(1);
    await expect(resolveTop(store, { action: "discard", reason: "x" })).rejects.toThrow("reject broke");
    expect(store.count).toBe(0);
  });

  it("through a session, a throw becomes an error result and the run goes on", async () => {
    const session = new Session({ cwd: "/" });
    const empty = await session.call("resolve", { action: "apply", reason: "x" }, "s1");
    expect(empty.result.isError).toBe(true);
    expect(empty.result.content).toEqual([{ type: "text", text: NO_PENDING_ACTION }]);
    const bad = await session.call("resolve", { action: "maybe", reason: 1 }, "s2");
    expect(bad.result.isError).toBe(true);
    expect(bad.toolCallId).toBe("call_2");
  });

  it("pushPendingAction after the session ended throws the exact message", () => {
    const session = new Session({ cwd: "/" });
    session.end();
    expect(() => session.pushPendingAction(action("x", []))).toThrow(STORE_UNAVAILABLE);
    expect(STORE_UNAVAILABLE).toBe("Pending action store unavailable for custom tools in this runtime.");
  });

  it("gives actions stable <step-id>#<n> ids", async () => {
    const session = new Session({ cwd: "/" });
    session.register({
      name: "two",
      label: "Two",
      description: "pushes two",
      parameters: resolveParameters.properties.reason,
      execute: async () => {
        session.pushPendingAction(action("P: 1", []));
        session.pushPendingAction(action("P: 2", []));
        return { content: [{ type: "text", text: "ok" }] };
      },
    });
    const rec = await session.call("two", "x", "step-a");
    expect(rec.pushed.map((s) => s.id)).toEqual(["step-a#1", "step-a#2"]);
    expect(rec.pushed[0]?.toolCallId).toBe(rec.toolCallId);
    expect(rec.pushed[0]?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(rec.pushed[0]?.action.label).toBe("P: 1");
    // the runner's bookkeeping lives beside the action, never on it
    expect(Object.keys(rec.pushed[0]!.action)).not.toContain("meta");
  });

  it("renders Accept/Discard lines like the original renderer", () => {
    expect(renderResolveLine("apply", "AST Edit: 2 replacements in 1 file")).toBe("Accept: 2 replacements in 1 file [AST Edit]");
    expect(renderResolveLine("discard", "Batch rename: 2 files")).toBe("Discard: 2 files [Batch rename]");
    expect(renderResolveLine("apply", "no badge")).toBe("Accept: no badge");
  });
});
