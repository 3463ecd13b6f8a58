import { types } from "node:util";

/** Longest description of a thrown value shown (a thrown megabyte string is cut short). */
const MAX_LENGTH = 2000;

/**
 * A readable description of anything thrown, which itself never throws. User code can throw
 * values that fight being looked at: a Proxy whose every trap throws (so `instanceof`, property
 * reads and `String()` throw), an object whose `toString` and `toJSON` throw, a getter `message`.
 * A Proxy is described without running a trap; everything else is read inside guards, falling
 * back to what can still be said about it.
 */
export function messageOf(value: unknown): string {
  let text: string;
  try {
    text = describe(value);
  } catch {
    text = `a thrown ${typeof value} that cannot be described`;
  }
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH)}… (${text.length} characters)` : text;
}

/**
 * `value` when it is an Error whose message can be read safely (an own string property), else
 * a new Error with `messageOf(value)`: what a catch of user code's throws keeps and passes on.
 */
export function asError(value: unknown): Error {
  if (isPlainError(value)) return value;
  const error = new Error(messageOf(value));
  const name = typeof value === "object" && value !== null && !types.isProxy(value) ? guarded(() => (value as { name?: unknown }).name) : undefined;
  if (typeof name === "string" && name !== "") error.name = name;
  return error;
}

function isPlainError(value: unknown): value is Error {
  if (typeof value !== "object" || value === null || types.isProxy(value) || !types.isNativeError(value)) return false;
  try {
    const own = Object.getOwnPropertyDescriptor(value, "message");
    return own !== undefined && "value" in own && typeof own.value === "string";
  } catch {
    return false;
  }
}

function describe(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value === "" ? "an empty string was thrown" : value;
    case "undefined":
      return "undefined was thrown";
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "symbol":
      return value.toString();
    default:
      break;
  }
  if (value === null) return "null was thrown";
  if (types.isProxy(value)) return `a Proxy ${typeof value === "function" ? "function" : "object"} was thrown (not inspected: its traps are user code)`;
  const obj = value as Record<string, unknown>;
  const message = guarded(() => obj.message);
  const name = guarded(() => obj.name);
  if (typeof message === "string" && message !== "") return message;
  if (types.isNativeError(value)) return typeof name === "string" && name ? name : "an Error without a message";
  const json = guarded(() => JSON.stringify(value));
  if (typeof json === "string" && json !== "{}") return json;
  // The value's own toString is what is wanted here, guarded against one that throws.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  const str = guarded(() => String(value));
  if (typeof str === "string" && str !== "[object Object]") return str;
  const tag = guarded(() => Object.prototype.toString.call(value));
  const kind = typeof tag === "string" && tag !== "[object Object]" ? `a ${tag.slice(8, -1)} object` : typeof value === "function" ? "a function" : "an object";
  return `${kind} was thrown without a readable message`;
}

function guarded(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}
