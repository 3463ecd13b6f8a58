import { spawn, type ChildProcess } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createNodeWorkspaceFs, type Workspace, type WorkspaceFs } from "../../src/workspace/workspace.js";
import { sha256 } from "../../src/workspace/text.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const made: string[] = [];
export function tempDir(prefix = "tollgate-ws-"): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
export function cleanupTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export type TreeSpec = Record<string, string | Uint8Array | { content: string | Uint8Array; mode: number }>;

export function writeTree(root: string, spec: TreeSpec): void {
  for (const [rel, value] of Object.entries(spec)) {
    const abs = path.join(root, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    if (typeof value === "string" || value instanceof Uint8Array) writeFileSync(abs, value);
    else {
      writeFileSync(abs, value.content);
      chmodSync(abs, value.mode);
    }
  }
}

/**
 * Every entry under root (files: mode + sha256; dirs; symlinks), `.tollgate/` excluded except
 * for a journal left behind.
 */
export function snapshotTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const abs = path.join(dir, name);
      const rel = path.relative(root, abs).split(path.sep).join("/");
      if (rel.startsWith(".tollgate/") && rel !== ".tollgate/journal.json") continue;
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[rel] = "symlink";
      else if (st.isDirectory()) {
        if (rel !== ".tollgate") out[`${rel}/`] = "dir";
        walk(abs);
      } else out[rel] = `${(st.mode & 0o7777).toString(8)} ${sha256(readFileSync(abs))}`;
    }
  };
  walk(root);
  return out;
}

export interface FaultPlan {
  /** 1-based index of the first mutating op to fail. */
  failAt: number;
  /** How many consecutive ops fail from there (Infinity: all later ones). */
  count?: number;
  /** Which ops count (default: the mutating ones). */
  ops?: ReadonlyArray<keyof WorkspaceFs>;
  /** before: fail without doing anything; after: do the op, then report failure; partial:
   * writeNew writes half the data then fails (other ops: like before). */
  when?: "before" | "after" | "partial";
}

export const MUTATING: ReadonlyArray<keyof WorkspaceFs> = ["writeNew", "rename", "unlink", "mkdir", "rmdir"];

/** A real fs that fails chosen operations with EIO, and counts what it was asked to do. */
export function faultyFs(plan: FaultPlan | undefined, base: WorkspaceFs = createNodeWorkspaceFs()) {
  const ops = plan?.ops ?? MUTATING;
  let n = 0;
  let failed = 0;
  const log: string[] = [];
  const wrap =
    (name: keyof WorkspaceFs) =>
    async (...args: unknown[]): Promise<never> => {
      if (ops.includes(name)) {
        n++;
        log.push(`${n}:${name}:${path.basename(String(args[0]))}`);
        if (plan && n >= plan.failAt && n < plan.failAt + (plan.count ?? 1)) {
          failed++;
          const fault = Object.assign(new Error(`injected fault in ${name} #${n}`), { code: "EIO" });
          if (plan.when === "after") {
            await (base[name] as (...a: unknown[]) => Promise<unknown>)(...args);
          } else if (plan.when === "partial" && name === "writeNew") {
            const data = args[1] as string | Uint8Array | Iterable<string>;
            const bytes = typeof data === "string" || data instanceof Uint8Array ? Buffer.from(data) : Buffer.from([...data].join(""));
            await base.writeNew(String(args[0]), bytes.subarray(0, Math.floor(bytes.length / 2)));
          }
          throw fault;
        }
      }
      return (base[name] as (...a: unknown[]) => Promise<never>)(...args);
    };
  const fs: WorkspaceFs = {
    readFile: wrap("readFile"),
    stat: wrap("stat"),
    writeNew: wrap("writeNew"),
    rename: wrap("rename"),
    unlink: wrap("unlink"),
    mkdir: wrap("mkdir"),
    rmdir: wrap("rmdir"),
  };
  return {
    fs,
    get count() {
      return n;
    },
    get failed() {
      return failed;
    },
    log,
  };
}

/** Runs a TS/ESM script in a child node process (TypeScript sources loaded through jiti). */
export function spawnScript(code: string, env: Record<string, string> = {}): ChildProcess {
  const script = `import { createJiti } from "jiti";\nconst jiti = createJiti(${JSON.stringify(path.join(REPO, "package.json"))});\nconst load = (p) => jiti.import(${JSON.stringify(REPO)} + "/" + p);\n${code}`;
  return spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function collect(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

export async function waitFor(check: () => boolean, timeoutMs = 15_000, what = "condition"): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * `fn` as one action of the workspace's transaction, the way the runner resolves one: begun,
 * then ended with what `fn` threw (rolled back; the error to rethrow is the one `end` returns)
 * or with nothing (committed).
 */
export async function inAction<T>(ws: Workspace, fn: () => Promise<T>): Promise<T> {
  const tx = ws.transaction.beginAction();
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    throw (await tx.end(err)).error ?? err;
  }
  const ended = await tx.end();
  if (ended.error) throw ended.error;
  return result;
}
