/**
 * Opens the result cache for a run: where it lives, the MAC key its entries are signed with (kept
 * outside the cache), and the build its answers belong to.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, realpathSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordDir } from "../workspace/journal-record.js";
import { engineBuildId, engineVersions } from "./build.js";
import { sha256 } from "../util/hash.js";
import { canonical } from "./digest.js";
import { ResultCache } from "./index.js";
import { ResultStore } from "./store.js";
import { messageOf } from "../util/thrown.js";

/** The environment variable that holds the MAC key in CI (a repository secret); else a key file in the state directory. */
const CACHE_KEY_ENV = "TOLLGATE_CACHE_KEY";
const KEY_FILE = "cache.key";

interface OpenOptions {
  /** Workspace root. */
  root: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `--cache-location`; default: defaultLocation(root, env). */
  location?: string;
  maxBytes?: number;
  warn: (line: string) => void;
  /** The directory of tollgate's code the build id is taken over (default: this module's build). */
  codeDir?: string;
}

/** `node_modules/.cache/tollgate/` where the workspace has node_modules/, else `$XDG_CACHE_HOME/tollgate/<hash of the root>/`. */
export function defaultLocation(root: string, env: OpenOptions["env"]): string {
  const modules = path.join(root, "node_modules");
  if (existsSync(modules) && statSync(modules).isDirectory()) return path.join(modules, ".cache", "tollgate");
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), ".cache");
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // hashed as given
  }
  return path.join(base, "tollgate", sha256(real).slice(0, 16));
}

/**
 * The key from `TOLLGATE_CACHE_KEY`, else `$XDG_STATE_HOME/tollgate/cache.key` (beside the
 * journals' records), created on first use: linked into place, so concurrent first runs agree
 * on one key.
 */
export function cacheKey(env: OpenOptions["env"]): Buffer {
  const given = env[CACHE_KEY_ENV];
  if (given !== undefined && given !== "") return Buffer.from(given, "utf8");
  const dir = path.dirname(recordDir(env));
  const file = path.join(dir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomBytes(8).toString("hex")}.tmp`;
    writeFileSync(tmp, randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
  const key = readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`${file} is not a cache key (delete it to make a new one)`);
  return Buffer.from(key, "hex");
}

function ownCodeDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.basename(here) === "bundle" ? here : path.dirname(here);
}

/** The build answers are keyed by: tollgate's engine code, napi and the languages, and the engine's switches. */
function buildOf(codeDir: string, env: OpenOptions["env"]): string {
  return sha256(
    canonical({
      engine: engineBuildId(codeDir),
      versions: engineVersions(codeDir),
      parse: env.TOLLGATE_PARSE ?? "",
      native: env.TOLLGATE_NATIVE ?? "",
    }),
  );
}

/** The run's cache, or undefined (with a warning) when it cannot be used at all: the run then goes on without it. */
export function openResultCache(options: OpenOptions): ResultCache | undefined {
  let key: Buffer;
  try {
    key = cacheKey(options.env);
  } catch (err) {
    options.warn(`result cache: no cache key (${messageOf(err)}); running without the cache`);
    return undefined;
  }
  const codeDir = options.codeDir ?? ownCodeDir();
  const store = new ResultStore({
    location: options.location ?? defaultLocation(options.root, options.env),
    key,
    build: buildOf(codeDir, options.env),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    warn: options.warn,
  });
  return new ResultCache(store);
}
