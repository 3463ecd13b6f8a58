/**
 * The Babel require hook of jscodeshift 17's worker (src/Worker.js `setup`), made lazy: Babel,
 * preset-env and @babel/register cost a worker ~0.7 s of CPU and ~50 MiB before the first file,
 * although a transform is only a few modules that rarely change. Contracts:
 * - Every module the hook compiles gets exactly the code @babel/register gives it: a module is
 *   compiled by @babel/register's own client (its LocalClient, with jscodeshift's options, the
 *   same extensions and ignore list, through pirates as register hooks it) and the result is
 *   kept in a cache keyed by everything the output depends on (the file's path and text, the
 *   versions of Babel and of every preset and plugin, the Node version preset-env targets, the
 *   Babel env, ts or flow). A cache hit compiles nothing, so Babel is never loaded.
 * - The cache lives in $XDG_CACHE_HOME/tollgate/jscodeshift-babel (~/.cache/…); BABEL_DISABLE_CACHE
 *   (which turns @babel/register's own cache off) turns it off too. It is pruned to its newest
 *   entries when it grows.
 * - Not copied: @babel/register's source-map-support install (stack traces of compiled
 *   transforms show compiled lines; the code keeps its inline source map). tollgate reports a
 *   failure by its message's first line.
 * - When @babel/register's internals are not where this version has them, the real
 *   `require("@babel/register")(options)` is installed instead, as jscodeshift does.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

type BabelKind = "ts" | "flow";

type AnyFn = (...args: unknown[]) => unknown;
interface Client {
  setOptions(opts: Record<string, unknown>): void;
  transform(code: string, filename: string): { code: string } | null;
}

// jscodeshift's `ignore` list (src/Worker.js): the parser and printer stay uncompiled.
const IGNORE = [/@babel\/parser/, /\/flow-parser\//, /\/recast\//, /\/ast-types\//];
const PLUGINS = [
  "@babel/plugin-transform-class-properties",
  "@babel/plugin-transform-nullish-coalescing-operator",
  "@babel/plugin-transform-optional-chaining",
  "@babel/plugin-transform-modules-commonjs",
  "@babel/plugin-transform-private-methods",
];
const MAX_ENTRIES = 2000;

/** What the hook knows of the worker process it is installed in (the worker entry passes it). */
export interface HookProcess {
  env: Readonly<Record<string, string | undefined>>;
  /** Node's version: preset-env targets it, so compiled code depends on it. */
  nodeVersion: string;
  /** Names the cache's temp files apart from other workers'. */
  pid: number;
}

function cacheDir(env: HookProcess["env"]): string | undefined {
  const off = env.BABEL_DISABLE_CACHE;
  if (off !== undefined && off !== "") return undefined;
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir() || os.tmpdir(), ".cache");
  return path.join(base, "tollgate", "jscodeshift-babel");
}

export class BabelHook {
  readonly #req: NodeJS.Require;
  readonly #process: HookProcess;
  readonly #dir: string | undefined;
  #kind: BabelKind | undefined;
  #clientKind: BabelKind | undefined;
  #client: Client | undefined;
  #compiling = false;
  #fingerprint: string | undefined;
  #presetEnv: boolean | undefined;
  #extensions: string[] | undefined;
  #eager = false;
  readonly #babelModules: Record<string, unknown> = Object.create(null) as Record<string, unknown>;

  /** `req` resolves as jscodeshift's src/Worker.js does; `proc`: the worker process it runs in. */
  constructor(req: NodeJS.Require, proc: HookProcess) {
    this.#req = req;
    this.#process = proc;
    this.#dir = cacheDir(proc.env);
  }

  /** @babel/core's DEFAULT_EXTENSIONS (the CLI's default --extensions), without loading Babel when cached. */
  defaultExtensions(): string[] {
    if (this.#extensions) return this.#extensions;
    const version = this.#version("@babel/core");
    const file = this.#dir && path.join(this.#dir, `extensions-${version}.json`);
    if (file) {
      try {
        const list = JSON.parse(readFileSync(file, "utf8")) as unknown;
        if (Array.isArray(list) && list.every((e) => typeof e === "string")) return (this.#extensions = list);
      } catch {
        /* not cached yet */
      }
    }
    this.#extensions = [...(this.#req("@babel/core") as { DEFAULT_EXTENSIONS: readonly string[] }).DEFAULT_EXTENSIONS];
    if (file) this.#write(file, JSON.stringify(this.#extensions));
    return this.#extensions;
  }

  /** Installs the hook for a transform file (ts presets for .ts/.tsx, flow otherwise), as jscodeshift's setup. */
  use(transformFile: string): void {
    const kind: BabelKind = /\.tsx?$/.test(transformFile) ? "ts" : "flow";
    if (this.#kind === kind) return;
    const first = this.#kind === undefined;
    this.#kind = kind;
    this.#fingerprint = undefined;
    if (!first && !this.#eager) return; // the installed hook reads #kind
    const lazy = first && this.#dir !== undefined && this.#hasInternals();
    if (lazy) {
      const pirates = createRequire(this.#req.resolve("@babel/register"))("pirates") as { addHook(hook: AnyFn, opts: Record<string, unknown>): AnyFn };
      pirates.addHook((code: unknown, filename: unknown) => this.#compile(String(code), String(filename)), {
        exts: [...this.defaultExtensions(), ".ts", ".tsx"],
        ignoreNodeModules: false,
        matcher: (filename: string) => !this.#compiling && !IGNORE.some((re) => re.test(filename)),
      });
      return;
    }
    this.#eager = true;
    (this.#req("@babel/register") as AnyFn)({ ...this.#options(kind), extensions: [...this.defaultExtensions(), ".ts", ".tsx"] });
  }

  #hasInternals(): boolean {
    try {
      this.#req.resolve("@babel/register/lib/worker-client.cjs");
      return true;
    } catch {
      return false;
    }
  }

  /** jscodeshift's register options (src/Worker.js), with the presets and plugins loaded. */
  #options(kind: BabelKind): Record<string, unknown> {
    const presets: unknown[] = [];
    if (this.#hasPresetEnv()) presets.push([(this.#req("@babel/preset-env") as { default: unknown }).default, { targets: { node: true } }]);
    presets.push((this.#req(kind === "ts" ? "@babel/preset-typescript" : "@babel/preset-flow") as { default: unknown }).default);
    return {
      configFile: false,
      babelrc: false,
      presets,
      plugins: PLUGINS.map((p) => (this.#req(p) as { default: unknown }).default),
      ignore: IGNORE,
    };
  }

  #hasPresetEnv(): boolean {
    if (this.#presetEnv === undefined) {
      try {
        this.#req.resolve("@babel/preset-env");
        this.#presetEnv = true;
      } catch {
        this.#presetEnv = false;
      }
    }
    return this.#presetEnv;
  }

  #version(name: string): string {
    try {
      return (this.#req(`${name}/package.json`) as { version: string }).version;
    } catch {
      return "-";
    }
  }

  /** What compiled output depends on besides the file: versions, Node (preset-env's target), env, kind. */
  #key(kind: BabelKind): string {
    if (this.#fingerprint === undefined) {
      const names = [
        "@babel/core",
        "@babel/register",
        ...(this.#hasPresetEnv() ? ["@babel/preset-env"] : []),
        kind === "ts" ? "@babel/preset-typescript" : "@babel/preset-flow",
        ...PLUGINS,
      ];
      const { env: vars, nodeVersion } = this.#process;
      const env = vars.BABEL_ENV || vars.NODE_ENV || "development";
      this.#fingerprint = JSON.stringify([kind, nodeVersion, env, names.map((n) => `${n}@${this.#version(n)}`)]);
    }
    return this.#fingerprint;
  }

  #compile(code: string, filename: string): string {
    const kind = this.#kind!;
    const entry = path.join(
      this.#dir!,
      `${createHash("sha256").update(this.#key(kind)).update("\0").update(filename).update("\0").update(code).digest("hex")}.js`,
    );
    try {
      return readFileSync(entry, "utf8");
    } catch {
      /* a miss: compile */
    }
    // Babel loads here, possibly while a module it needs itself is half loaded (a transform
    // requiring `debug`, which @babel/core requires too): it gets a module cache of its own, kept
    // for the next miss, as @babel/register keeps its internal one.
    const modules = Module as unknown as { _cache: Record<string, unknown> };
    const userCache = modules._cache;
    modules._cache = this.#babelModules;
    this.#compiling = true;
    let out: string;
    try {
      if (!this.#client) {
        const { LocalClient } = this.#req("@babel/register/lib/worker-client.cjs") as { LocalClient: new () => Client };
        this.#client = new LocalClient();
      }
      if (this.#clientKind !== kind) {
        // cache: false: register's own cache file is not read (this cache replaces it); the
        // compiled code does not depend on it.
        this.#client.setOptions({ ...this.#options(kind), cache: false });
        this.#clientKind = kind;
      }
      const result = this.#client.transform(code, filename);
      out = result === null ? code : result.code;
    } finally {
      this.#compiling = false;
      modules._cache = userCache;
    }
    this.#write(entry, out);
    return out;
  }

  #write(file: string, text: string): void {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${this.#process.pid}.${Date.now()}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, file);
      this.#prune(path.dirname(file));
    } catch {
      /* a cache is an optimisation */
    }
  }

  #prune(dir: string): void {
    const names = readdirSync(dir);
    if (names.length <= MAX_ENTRIES) return;
    const aged = names
      .map((n) => {
        try {
          return { n, t: statSync(path.join(dir, n)).mtimeMs };
        } catch {
          return { n, t: 0 };
        }
      })
      .sort((a, b) => a.t - b.t);
    for (const { n } of aged.slice(0, names.length - MAX_ENTRIES / 2)) {
      try {
        unlinkSync(path.join(dir, n));
      } catch {
        /* gone already */
      }
    }
  }
}
