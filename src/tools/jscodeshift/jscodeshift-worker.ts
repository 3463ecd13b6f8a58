/**
 * Worker process for the `jscodeshift` tool, forked by ./pool.ts with the workspace
 * root as its working directory and its stdout on tollgate's stderr. It loads transforms the way jscodeshift
 * 17's own worker (src/Worker.js) does and calls them the way it does, so a transform sees no
 * difference and its output is byte-identical to jscodeshift's:
 * - jscodeshift's core and getParser are required before the Babel register hook, which is then
 *   installed with the worker's exact configuration (preset-env when installed, preset-typescript
 *   for .ts/.tsx transforms and preset-flow otherwise, the same five plugins, extensions and
 *   ignore list) before the transform is required; `.mjs` transforms are imported natively, as are
 *   transforms Node refuses to require (ES modules);
 * - per file: `jscodeshift.withParser(<the transform's exported parser> || getParser(options.parser,
 *   options.parserConfig))`, then `transform({ path, source }, { j, jscodeshift, stats, report },
 *   options)`, awaited.
 * The register hook is installed lazily (./babel-hook.ts) and only here, never in tollgate's
 * process. Messages are handled one at a time, in order; the process exits when its parent's
 * IPC channel closes.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { BabelHook } from "./babel-hook.js";
import type { LoadReply, RunReply, ToWorker } from "./protocol.js";

type AnyFn = (...args: unknown[]) => unknown;
interface Loaded {
  transform: unknown;
  /** The transform's exported parser, as getParser made it (or the object it exported). */
  parser: unknown;
  parserName?: string;
}

// Everything resolves from jscodeshift's own Worker.js (argv[2]), as its `require` calls do.
const req = createRequire(process.argv[2]!);
const jscodeshift = req("./core") as { withParser(parser: unknown): unknown };
const getParser = req("./getParser") as (name?: unknown, options?: unknown) => unknown;
// Babel is loaded only when a module must be compiled afresh (./babel-hook.ts).
const babel = new BabelHook(req, { env: process.env, nodeVersion: process.version, pid: process.pid });

const ESM_CODES = new Set(["ERR_REQUIRE_ESM", "ERR_REQUIRE_ASYNC_MODULE", "ERR_REQUIRE_CYCLE_MODULE"]);

async function importModule(file: string): Promise<Record<string, unknown>> {
  const ns = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  // An ES module's namespace: `export default fn` is ns.default; a CommonJS module imported this
  // way has module.exports as ns.default (possibly holding its own `default`).
  const def = ns.default as Record<string, unknown> | undefined;
  if (def && typeof def === "object" && typeof def.default === "function") return def;
  return ns;
}

async function loadModule(file: string): Promise<Record<string, unknown>> {
  if (/\.mjs$/.test(file)) return importModule(file);
  babel.use(file);
  try {
    return req(file) as Record<string, unknown>;
  } catch (err) {
    if (ESM_CODES.has((err as { code?: string })?.code ?? "")) return importModule(file);
    throw err;
  }
}

const loaded = new Map<string, Loaded>();

async function load(key: string, file: string): Promise<Loaded> {
  const hit = loaded.get(key);
  if (hit) return hit;
  const mod = await loadModule(file);
  const transform = typeof mod.default === "function" ? mod.default : mod;
  let parser: unknown;
  let parserName: string | undefined;
  if (mod.parser) {
    parser = typeof mod.parser === "string" ? getParser(mod.parser) : mod.parser;
    parserName = typeof mod.parser === "string" ? mod.parser : "(parser object)";
  }
  const entry: Loaded = { transform, parser, ...(parserName !== undefined ? { parserName } : {}) };
  loaded.set(key, entry);
  return entry;
}

function firstLine(err: unknown): string {
  const message =
    err instanceof Error
      ? err.message
      : typeof err === "string"
        ? err
        : (() => {
            try {
              return String(err);
            } catch {
              return "unknown error";
            }
          })();
  const line = message.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  const name = err instanceof Error && err.name && err.name !== "Error" ? `${err.name}: ` : "";
  return `${name}${line.trim()}` || (err instanceof Error ? err.name : "unknown error");
}

async function handle(msg: ToWorker): Promise<LoadReply | RunReply> {
  if (msg.type === "load") {
    try {
      const entry = await load(msg.key, msg.file);
      return {
        type: "loaded",
        id: msg.id,
        babelExtensions: babel.defaultExtensions(),
        ok: true,
        isFunction: typeof entry.transform === "function",
        ...(entry.parserName !== undefined ? { parser: entry.parserName } : {}),
      };
    } catch (err) {
      return { type: "loaded", id: msg.id, babelExtensions: babel.defaultExtensions(), ok: false, error: firstLine(err) };
    }
  }
  const reports: string[] = [];
  const stats: Record<string, number> = {};
  try {
    const entry = await load(msg.key, msg.file);
    if (typeof entry.transform !== "function") throw new Error("The transform module does not export a function");
    const options = msg.options as { parser?: unknown; parserConfig?: unknown };
    const j = jscodeshift.withParser(entry.parser || getParser(options.parser, options.parserConfig));
    const out = await (entry.transform as AnyFn)(
      { path: msg.rel, source: msg.source },
      {
        j,
        jscodeshift: j,
        stats: (name: unknown, quantity: unknown) => {
          const key = String(name);
          stats[key] = (stats[key] ?? 0) + (typeof quantity !== "number" ? 1 : quantity);
        },
        report: (message: unknown) => {
          reports.push(String(message));
        },
      },
      options,
    );
    if (!out) return { type: "done", id: msg.id, status: "skip", reports, stats };
    if (out === msg.source) return { type: "done", id: msg.id, status: "unchanged", reports, stats };
    if (typeof out !== "string")
      return { type: "done", id: msg.id, status: "error", error: `The transform returned ${typeof out}, not a string`, reports, stats };
    return { type: "done", id: msg.id, status: "changed", output: out, reports, stats };
  } catch (err) {
    return { type: "done", id: msg.id, status: "error", error: firstLine(err), reports, stats };
  }
}

let chain: Promise<void> = Promise.resolve();
process.on("message", (msg: ToWorker) => {
  chain = chain.then(async () => {
    process.send!(await handle(msg));
  });
});
process.on("disconnect", () => process.exit(0));
