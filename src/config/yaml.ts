import { Value, type ValueError } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from "yaml";
import type { Issue } from "../errors.js";
import { yamlErrorText } from "../util/yaml-error.js";
import { messageOf } from "../util/thrown.js";

/** A parsed YAML file that can still map a value path back to a line and column. */
export interface LocatedDocument {
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
  value: unknown;
}

const MAX_ALIAS_COUNT = 1000;

/**
 * Parses YAML strictly (duplicate keys are errors, alias bombs refused). Every issue carries
 * a line and column: the error's own, else its offset, else the end of the document.
 */
export function parseYaml(file: string, text: string): { located?: LocatedDocument; issues: Issue[] } {
  const lines = new LineCounter();
  const at = (offset: number | undefined): { line: number; col: number } => {
    const pos = lines.linePos(Math.max(0, Math.min(offset ?? text.length, text.length)));
    return { line: pos.line, col: pos.col };
  };
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true, strict: true });
  } catch (err) {
    return { issues: [{ file, ...at(undefined), message: yamlMessage("", messageOf(err)) }] };
  }
  const issues: Issue[] = [];
  for (const err of doc.errors) {
    const pos = err.linePos?.[0] ?? at(err.pos?.[0]);
    const key = err.code === "DUPLICATE_KEY" && err.pos ? keyAt(text, err.pos[0]) : "";
    issues.push({ file, line: pos.line, col: pos.col, message: yamlMessage(err.code, err.message, key) });
  }
  if (issues.length > 0) return { issues: hintUnquotedRefs(text, issues) };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    return { issues: [{ file, ...at(firstAliasOffset(doc)), message: `YAML could not be read: ${yamlMessage("", messageOf(err))}` }] };
  }
  return { located: { file, doc, lines, value }, issues };
}

/**
 * `with: { path: ${{ vars.src }} }` is invalid YAML (braces open a flow mapping), and the parser
 * reports it as a burst of errors on that line. Keep the first, with what to do about it.
 */
function hintUnquotedRefs(text: string, issues: Issue[]): Issue[] {
  const lines = text.split(/\r?\n/);
  const hinted = new Set<number>();
  const out: Issue[] = [];
  for (const issue of issues) {
    const line = issue.line === undefined ? undefined : lines[issue.line - 1];
    const ref = line === undefined ? undefined : /(?<!["'])\$\{\{[^}]*\}\}/.exec(line)?.[0];
    if (!ref) {
      out.push(issue);
      continue;
    }
    if (hinted.has(issue.line!)) continue;
    hinted.add(issue.line!);
    out.push({ ...issue, message: `${issue.message} (inside { } or [ ], quote a \${{ }} reference: "${ref}")` });
  }
  return out;
}

/** Where an alias-expansion failure most likely starts (the yaml library gives no position). */
function firstAliasOffset(doc: Document.Parsed): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node) && node.range) offset = Math.min(offset ?? Infinity, node.range[0]);
    },
  });
  return offset;
}

/** The mapping key written at `offset` (plain or quoted), for naming a duplicate. */
function keyAt(text: string, offset: number): string {
  const m = /^("(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\n]*?)(?=[ \t]*:(?:[ \t\r\n]|$))/.exec(text.slice(offset, offset + 200));
  return m ? m[1]!.trim() : "";
}

function yamlMessage(code: string, message: string, key = ""): string {
  const first = message.split("\n")[0] ?? message;
  if (code === "DUPLICATE_KEY") {
    const shown = key.length > 0 && key.length <= 80 ? ` ${JSON.stringify(key.replace(/^["']|["']$/g, ""))}` : "";
    return `Duplicate key${shown} (map keys must be unique)`;
  }
  if (/Excessive alias count/.test(first)) return `too many alias expansions (more than ${MAX_ALIAS_COUNT})`;
  return yamlErrorText(first);
}

export type PathSeg = string | number;

/** Position of the node at `path`, or of the nearest ancestor that exists. Keys point at the key. */
export function locate(located: LocatedDocument, path: readonly PathSeg[], atKey = false): { line: number; col: number } {
  let node: unknown = located.doc.contents;
  let best: [number, number, number] | undefined = (node as Node | null)?.range ?? undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      const keyRange = (pair.key as Node).range;
      node = pair.value;
      const valueRange = (node as Node | null)?.range;
      best = (atKey && seg === path[path.length - 1] ? keyRange : (valueRange ?? keyRange)) ?? best;
    } else if (isSeq(node) && typeof seg === "number") {
      node = node.items[seg];
      best = (node as Node | undefined)?.range ?? best;
      if (!node) break;
    } else {
      break;
    }
  }
  const offset = best?.[0] ?? 0;
  const pos = located.lines.linePos(offset);
  return { line: pos.line, col: pos.col };
}

/** `steps[0].with.ops[0].pat` */
export function formatPath(path: readonly PathSeg[]): string {
  return path.reduce<string>((acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), "");
}

function pointerToPath(pointer: string): PathSeg[] {
  return pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Schema errors of `value` (found at `base` inside the document) as positioned issues. An
 * unexpected property points at its key; a union failure is reported once, not per variant.
 */
export function schemaIssues(located: LocatedDocument, schema: TSchema, value: unknown, base: readonly PathSeg[] = []): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  const errors: ValueError[] = [];
  try {
    for (const err of Value.Errors(schema, value)) if (errors.push(err) >= 200) break;
  } catch (err) {
    // A schema TypeBox cannot check (a custom kind it has no checker for): one clear issue.
    const pos = locate(located, [...base]);
    const message = `Cannot check against the tool's schema: ${messageOf(err)}`;
    return [{ file: located.file, line: pos.line, col: pos.col, path: formatPath([...base]), message }];
  }
  for (const err of errors) {
    const rel = pointerToPath(err.path);
    const path = [...base, ...rel];
    let message = err.message;
    const isUnknownKey = message === "Unexpected property";
    if (isUnknownKey) message = `Unknown key "${String(rel[rel.length - 1])}"`;
    if (message === "Expected required property") {
      message = `Missing required key "${String(rel[rel.length - 1])}"`;
    }
    if (message === "Expected union value") message = unionMessage(err.schema) ?? message;
    const pathText = formatPath(path);
    const key = `${pathText}|${message}`;
    if (seen.has(pathText) || seen.has(key)) continue;
    seen.add(pathText);
    seen.add(key);
    const pos = locate(located, message.startsWith("Missing required") ? path.slice(0, -1) : path, isUnknownKey);
    issues.push({ file: located.file, line: pos.line, col: pos.col, path: pathText, message });
    if (issues.length >= 50) break;
  }
  return issues;
}

/** `Expected one of: a, b, c` for a union of literals (TypeBox only says "Expected union value"). */
function unionMessage(schema: TSchema): string | undefined {
  const variants = (schema as { anyOf?: Array<{ const?: unknown }> }).anyOf;
  if (!variants || !variants.every((v) => v.const !== undefined)) return undefined;
  return `Expected one of: ${variants.map((v) => JSON.stringify(v.const)).join(", ")}`;
}
