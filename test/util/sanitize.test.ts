import { describe, expect, it } from "vitest";
import {
  escapeData as escapeWorkflowData,
  escapeProperty as escapeWorkflowProperty,
  fenceWorkflowCommands,
  sanitizeForGithubLog,
  sanitizeOutput,
} from "../../src/github/escape.js";
import { safeText } from "../../src/term.js";

describe("output hygiene", () => {
  const TERMINAL: Array<[string, string]> = [
    ["plain text\n\tindented", "plain text\n\tindented"],
    ["\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"],
    ["\x1b]0;title\x07", "\\x1b]0;title\\x07"],
    ["\x1b]8;;http://evil\x1b\\link", "\\x1b]8;;http://evil\\x1b\\link"],
    ["bell\x07 backspace\x08 nul\x00", "bell\\x07 backspace\\x08 nul\\x00"],
    ["csi\x9b2J c1", "csi\\x9b2J c1"],
    ["del\x7f", "del\\x7f"],
    ["crlf\r\nkept", "crlf\r\nkept"],
    ["over\rwrite", "over\\x0dwrite"],
    ["trojan \u202eevil\u202c source \u2066x\u2069", "trojan \\u202eevil\\u202c source \\u2066x\\u2069"],
    ["ünïcödé 漢字 emoji 🎉", "ünïcödé 漢字 emoji 🎉"],
  ];
  for (const [input, out] of TERMINAL) {
    it(`terminal: ${JSON.stringify(input)}`, () => {
      expect(safeText(input)).toBe(out);
      expect(safeText(input)).not.toMatch(/[\x1b\x07\x9b]/);
    });
  }

  const GITHUB: Array<[string, string]> = [
    ["::set-output name=x::y", ":\u200b:set-output name=x::y"],
    ["ok\n::add-mask::secret\nok", "ok\n:\u200b:add-mask::secret\nok"],
    ["  ::error::indented", "  :\u200b:error::indented"],
    ["##[set-env name=A]b", "#\u200b#[set-env name=A]b"],
    ["a :: b", "a :: b"],
    ["::stop-commands::tok", ":\u200b:stop-commands::tok"],
  ];
  for (const [input, out] of GITHUB) {
    it(`github: ${JSON.stringify(input)}`, () => expect(sanitizeForGithubLog(input)).toBe(out));
  }

  it("sanitizeOutput does both", () => {
    expect(sanitizeOutput("::warning::\x1b[2J")).toBe(":\u200b:warning::\\x1b[2J");
  });

  it("fences untrusted text with a token it does not contain", () => {
    const fenced = fenceWorkflowCommands("::error::x\n", "tok");
    expect(fenced).toBe("::stop-commands::tok\n::error::x\n::tok::\n");
    const again = fenceWorkflowCommands("contains tok", "tok");
    expect(again).not.toContain("::stop-commands::tok\n");
  });

  it("escapes workflow command data and properties", () => {
    expect(escapeWorkflowData("100%\r\nnext")).toBe("100%25%0D%0Anext");
    expect(escapeWorkflowProperty("a:b,c")).toBe("a%3Ab%2Cc");
  });
});
