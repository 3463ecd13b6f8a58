import { existsSync, statSync } from "node:fs";
import { bounded } from "../util/settle.js";
import { kindOf } from "../util/regular.js";
import { TypeGuard } from "@sinclair/typebox";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { asError, messageOf } from "../util/thrown.js";
import { DEFAULT_TOOL_LOAD_TIMEOUT_MS } from "../recipe/load.js";
import type { Tool } from "../domain/types.js";
import type { CustomToolAPI, CustomToolFactory } from "./types.js";
import type { ProcessHost } from "../process-host.js";

const DECLARATIVE_REFUSED = "Declarative tool files (.md, .json) cannot be loaded as executable modules";
const NO_DEFAULT_EXPORT = "Tool must export a default function";
const conflictMessage = (name: string) => `Tool name "${name}" conflicts with existing tool`;

const LOADABLE = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);

/** A load error always names the module it came from. */
export class ToolLoadError extends Error {
  readonly modulePath: string;
  constructor(modulePath: string, message: string) {
    super(`${modulePath}: ${message}`);
    this.name = "ToolLoadError";
    this.modulePath = modulePath;
  }
}

type Importer = (abs: string) => Promise<unknown>;

/** The package's own entry, so `import ... from "tollgate"` in a tool gets this very instance. */
function selfEntry(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const built = path.resolve(here, "../index.js");
  return existsSync(built) ? built : path.resolve(here, "../index.ts");
}

/** TypeBox as tollgate has it, so `import { Type } from "@sinclair/typebox"` works without installing it. */
function typeboxDir(): string | undefined {
  try {
    return path.dirname(createRequire(import.meta.url).resolve("@sinclair/typebox/package.json"));
  } catch {
    try {
      // package.json is not in its exports map: walk up from the entry to the package root
      let dir = path.dirname(createRequire(import.meta.url).resolve("@sinclair/typebox"));
      while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
      return dir;
    } catch {
      return undefined;
    }
  }
}

/** Bare specifiers a tool may import without having them installed beside it. */
const PROVIDED = ["tollgate", "@sinclair/typebox"];

/** The TypeScript loader (jiti), made on first use and kept for the loader's later modules. */
function jitiImporter(): Importer {
  let jiti: Promise<{ import(id: string): Promise<unknown> }> | undefined;
  return async (abs) => {
    jiti ??= import("jiti").then(({ createJiti }) => {
      const typebox = typeboxDir();
      return createJiti(import.meta.url, {
        moduleCache: false,
        tryNative: false,
        alias: { tollgate: selfEntry(), ...(typebox ? { "@sinclair/typebox": typebox } : {}) },
      });
    });
    return (await jiti).import(abs);
  };
}

async function importModule(abs: string, jitiImport: Importer): Promise<unknown> {
  const ext = path.extname(abs);
  if (ext !== ".js" && ext !== ".mjs") return jitiImport(abs);
  try {
    return await import(pathToFileURL(abs).href);
  } catch (thrown) {
    // A plain JS tool importing tollgate or TypeBox from a directory that has neither installed:
    // load it through the TypeScript loader, which provides both.
    const err = asError(thrown);
    const code = (err as { code?: string }).code;
    const message = messageOf(err);
    if (code === "ERR_MODULE_NOT_FOUND" && PROVIDED.some((name) => message.includes(`'${name}'`) || message.includes(`'${name}/`))) {
      return jitiImport(abs);
    }
    throw err;
  }
}

function isToolShape(value: unknown): value is Tool {
  const t = value as Tool;
  return (
    !!t &&
    typeof t === "object" &&
    typeof t.name === "string" &&
    t.name.length > 0 &&
    typeof t.execute === "function" &&
    !!t.parameters &&
    typeof t.parameters === "object"
  );
}

/** Loads a run's custom tool modules (one TypeScript loader for all of them). */
export interface CustomToolLoader {
  /**
   * Loads one custom tool module (.ts/.mts/.js/.mjs, no build step) and calls its default-export
   * factory with `pi`. Throws ToolLoadError with the loader's exact messages, prefixed by the path.
   * The module's import and the factory each have `timeoutMs` to settle: a factory that never
   * settles while a timer of its own keeps the process alive is a load error, not a run that never
   * starts (`host.onLoopEmpty` tells when nothing could settle it any more).
   */
  load(abs: string, pi: CustomToolAPI, existing: ReadonlySet<string>, display?: string, timeoutMs?: number): Promise<Tool[]>;
}

export function customToolLoader(host: Pick<ProcessHost, "onLoopEmpty">): CustomToolLoader {
  const jitiImport = jitiImporter();
  return {
    load: (abs, pi, existing, display = abs, timeoutMs = DEFAULT_TOOL_LOAD_TIMEOUT_MS) =>
      loadModule({ abs, pi, existing, display, timeoutMs }, host, jitiImport),
  };
}

interface LoadRequest {
  abs: string;
  pi: CustomToolAPI;
  existing: ReadonlySet<string>;
  display: string;
  timeoutMs: number;
}

async function loadModule(req: LoadRequest, host: Pick<ProcessHost, "onLoopEmpty">, jitiImport: Importer): Promise<Tool[]> {
  const { abs, pi, existing, display, timeoutMs } = req;
  const ext = path.extname(abs).toLowerCase();
  if (ext === ".md" || ext === ".json") throw new ToolLoadError(display, DECLARATIVE_REFUSED);
  if (!LOADABLE.has(ext)) throw new ToolLoadError(display, `Failed to load tool: unsupported file extension "${ext}" (use .ts, .mts, .js or .mjs)`);
  if (!existsSync(abs)) throw new ToolLoadError(display, `Failed to load tool: file not found`);
  const st = statSync(abs);
  if (!st.isFile()) throw new ToolLoadError(display, `Failed to load tool: not a regular file (${kindOf(st)})`);
  const settle = <T>(p: Promise<T>, what: string) =>
    bounded(p, {
      host,
      timeoutMs,
      timedOut: () => new Error(`${what} did not settle within ${timeoutMs} ms (recipe toolLoadTimeout)`),
      stuck: () => new Error(`${what} can never settle (its promise is pending and nothing is left that could settle it)`),
    });
  let factory: unknown;
  try {
    const mod = (await settle(importModule(abs, jitiImport), "the module")) as { default?: unknown } | undefined;
    factory = mod?.default;
    // jiti may wrap a CommonJS-style default one level deeper.
    if (factory && typeof factory === "object" && typeof (factory as { default?: unknown }).default === "function") {
      factory = (factory as { default: unknown }).default;
    }
  } catch (err) {
    throw new ToolLoadError(display, `Failed to load tool: ${loadMessage(messageOf(err), abs)}`);
  }
  if (typeof factory !== "function") throw new ToolLoadError(display, NO_DEFAULT_EXPORT);
  let produced: unknown;
  try {
    produced = await settle(Promise.resolve((factory as CustomToolFactory)(pi)), "the factory");
  } catch (err) {
    throw new ToolLoadError(display, `Failed to load tool: ${firstLine(messageOf(err))}`);
  }
  const tools = Array.isArray(produced) ? produced : [produced];
  const names = new Set(existing);
  for (const tool of tools) {
    if (!isToolShape(tool)) {
      throw new ToolLoadError(display, "Failed to load tool: the factory must return a tool ({ name, parameters, execute }) or an array of tools");
    }
    if (!TypeGuard.IsSchema(tool.parameters)) {
      throw new ToolLoadError(
        display,
        `Failed to load tool: the parameters of "${tool.name}" are not a TypeBox schema (build them with pi.typebox.Type, e.g. Type.Object({ ... }))`,
      );
    }
    if (names.has(tool.name)) throw new ToolLoadError(display, conflictMessage(tool.name));
    names.add(tool.name);
  }
  return tools as Tool[];
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? text).trimEnd();
}

/**
 * The first line of an import error. A syntax error from the TypeScript loader carries its
 * position on a later line (` /abs/tool.ts:1:9`, 0-based column): it becomes ` at 1:10`.
 */
function loadMessage(text: string, abs: string): string {
  const first = firstLine(text);
  for (const line of text.split("\n").slice(1)) {
    const m = /^\s*(.+):(\d+):(\d+)\s*$/.exec(line);
    if (m && path.resolve(m[1]!) === path.resolve(abs)) return `${first} at ${m[2]}:${Number(m[3]) + 1}`;
  }
  return first;
}
