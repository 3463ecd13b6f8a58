// Whatever user code throws is shown as one readable line, by one helper (src/util/thrown.ts):
// directly, and through the built CLI when a custom tool's execute, factory, apply or reject
// throws it.
import { describe, expect, it } from "vitest";
import { asError, messageOf } from "../../src/util/thrown.js";
import { tollgate, testdir } from "../helpers/testdir.js";

const TRAPS = [
  "get",
  "set",
  "has",
  "getPrototypeOf",
  "setPrototypeOf",
  "ownKeys",
  "getOwnPropertyDescriptor",
  "defineProperty",
  "deleteProperty",
  "isExtensible",
  "preventExtensions",
  "apply",
  "construct",
];
const HOSTILE_SRC = `
const trap = () => { throw new Error("trap"); };
const traps = Object.fromEntries(${JSON.stringify(TRAPS)}.map((k) => [k, trap]));
export const proxy = () => new Proxy({}, traps);
export const opaque = () => ({ toString() { throw "x"; }, toJSON() { throw "x"; } });
`;
const trap = () => {
  throw new Error("trap");
};
const traps = Object.fromEntries(TRAPS.map((k) => [k, trap]));

describe("messageOf and asError never throw", () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const getterError = new Error("kept");
  Object.defineProperty(getterError, "message", { get: trap });
  const cases: Array<[string, unknown, RegExp]> = [
    ["a Proxy whose every trap throws", new Proxy({}, traps), /^a Proxy object was thrown/],
    ["a function Proxy whose every trap throws", new Proxy(() => {}, traps), /^a Proxy function was thrown/],
    ["a revoked Proxy", revoked.proxy, /^a Proxy object was thrown/],
    [
      "an object whose toString and toJSON throw",
      {
        toString: () => {
          throw "x";
        },
        toJSON: () => {
          throw "x";
        },
      },
      /^an object was thrown without a readable message$/,
    ],
    ["an Error whose message getter throws", getterError, /^Error$/],
    ["an object with a null prototype", Object.create(null), /without a readable message/],
    ["a string", "plain words", /^plain words$/],
    ["an empty string", "", /^an empty string was thrown$/],
    ["undefined", undefined, /^undefined was thrown$/],
    ["null", null, /^null was thrown$/],
    ["a symbol", Symbol("s"), /^Symbol\(s\)$/],
    ["a bigint", 10n, /^10$/],
    ["a plain object", { code: 7 }, /^\{"code":7\}$/],
    ["an Error", new TypeError("bad type"), /^bad type$/],
    ["a huge string", "y".repeat(100_000), /^y{2000}… \(100000 characters\)$/],
  ];
  for (const [name, value, expected] of cases) {
    it(`${name}: ${expected}`, () => {
      expect(messageOf(value)).toMatch(expected);
      const error = asError(value);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(expected);
    });
  }

  it("an Error with a plain message is passed on as it is", () => {
    const err = new RangeError("r");
    expect(asError(err)).toBe(err);
  });
});

describe("a custom tool that throws a hostile value, through the CLI", () => {
  const tool = (name: string, body: string) => `
{ name: "${name}", label: "${name}", description: "${name}", parameters: pi.typebox.Type.Object({}), async execute() { ${body} } }`;
  const pushed = (apply: string, reject: string) =>
    `pi.pushPendingAction({ label: "act", apply: async () => { ${apply} }, reject: async () => { ${reject} } }); return { content: [{ type: "text", text: "pushed" }] };`;
  const TOOLS = `import { proxy, opaque } from "./hostile.mjs";
export default (pi) => [${[
    tool("execute_proxy", "throw proxy();"),
    tool("execute_opaque", "throw opaque();"),
    tool("apply_proxy", pushed("throw proxy();", "throw opaque();")),
    tool("apply_opaque", pushed("throw opaque();", "throw proxy();")),
  ].join(",")}];`;
  const PROXY = /a Proxy object was thrown/;
  const OPAQUE = /an object was thrown without a readable message/;
  const runs: Array<[string, string, string[], number, RegExp]> = [
    ["execute throws a Proxy", "execute_proxy", [], 3, PROXY],
    ["execute throws an object whose toString and toJSON throw", "execute_opaque", [], 3, OPAQUE],
    ["apply throws a Proxy", "apply_proxy", ["--mode", "auto-apply"], 3, PROXY],
    ["apply throws an object whose toString and toJSON throw", "apply_opaque", ["--mode", "auto-apply"], 3, OPAQUE],
    ["reject throws a Proxy", "apply_opaque", ["--mode", "discard"], 3, PROXY],
    ["reject throws an object whose toString and toJSON throw", "apply_proxy", ["--mode", "discard"], 3, OPAQUE],
  ];
  for (const [name, toolName, args, code, message] of runs) {
    it(`${name}: the step or action fails with a readable message (exit ${code})`, async () => {
      const dir = await testdir({ "hostile.mjs": HOSTILE_SRC, "t.mjs": TOOLS, "r.yaml": `version: 1\ntools: [./t.mjs]\nsteps:\n  - tool: ${toolName}\n` });
      const r = await tollgate(["run", "r.yaml", ...args], { cwd: dir });
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(code);
    });
  }

  for (const [name, factory, message] of [
    ["a factory that throws a Proxy", "() => { throw proxy(); }", PROXY],
    ["a factory that throws an object whose toString and toJSON throw", "() => { throw opaque(); }", OPAQUE],
    ["a factory that rejects with a Proxy", "async () => { throw proxy(); }", PROXY],
  ] as const) {
    it(`${name}: a load error naming the module (exit 2)`, async () => {
      const dir = await testdir({
        "hostile.mjs": HOSTILE_SRC,
        "f.mjs": `import { proxy, opaque } from "./hostile.mjs";\nexport default ${factory};\n`,
        "r.yaml": "version: 1\ntools: [./f.mjs]\nsteps:\n  - tool: write\n    with: { path: a.txt, content: x }\n",
      });
      const r = await tollgate(["run", "r.yaml"], { cwd: dir });
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.stderr).toMatch(new RegExp(`f\\.mjs: Failed to load tool: ${message.source}`));
      expect(r.code).toBe(2);
    });
  }
});
