import { messageOf } from "../util/thrown.js";
import type { StepRecord } from "../report/types.js";
import type { ToolCallRecord } from "../session/session.js";
import { joinText } from "../domain/types.js";

/**
 * A tool's `details` as the JSON report can hold them: a custom tool may return a BigInt, a
 * cycle or a getter that throws, which must not cost the run its report. BigInts become
 * strings, a repeated ancestor "[Circular]"; anything else unserializable, its message.
 */
export function jsonSafe(value: unknown): unknown {
  try {
    // Plain data (the usual case) goes through V8's fast path; a BigInt or a cycle makes it throw.
    return JSON.parse(JSON.stringify(value) ?? "null");
  } catch {
    return jsonSafeSlow(value);
  }
}

/** jsonSafe for values JSON cannot state as they are: BigInts as strings, cycles as a marker. */
function jsonSafeSlow(value: unknown): unknown {
  const ancestors: object[] = [];
  try {
    return JSON.parse(
      JSON.stringify(value, function (this: unknown, _key, v: unknown) {
        if (typeof v === "bigint") return v.toString();
        if (v === null || typeof v !== "object") return v;
        // `this` is the object holding v: drop ancestors that are not on v's path
        while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        if (ancestors.includes(v)) return "[Circular]";
        ancestors.push(v);
        return v;
      }) ?? "null",
    );
  } catch (err) {
    return { unserializable: messageOf(err) };
  }
}

/** A tool call as the report's `steps[]` lists it. */
export function stepRecord(record: ToolCallRecord): StepRecord {
  return {
    id: record.stepId,
    tool: record.tool,
    toolCallId: record.toolCallId,
    params: record.params,
    status: record.result.isError ? "error" : "ok",
    resultText: joinText(record.result),
    details: jsonSafe(record.result.details ?? null),
    actions: record.pushed.map((s) => s.id),
    durationMs: record.durationMs,
  };
}
