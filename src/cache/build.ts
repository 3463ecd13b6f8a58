/**
 * What identifies the engine an answer came from: a hash of tollgate's own code (not its version,
 * which does not change between builds), napi's version and every language package's.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { sha256 } from "../util/hash.js";
import { toPosix } from "../util/inside.js";

const CODE = /\.(?:[cm]?js|ts)$/;

/**
 * The build id of the code in `dir` (the bundle, tsc's output or the sources): a hash over every
 * code file below it, dot-directories (V8's code cache) left out. Any rebuild that changes the
 * code changes it.
 */
export function engineBuildId(dir: string): string {
  const files = (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ name: string; parentPath: string; isFile(): boolean }>)
    .filter((d) => d.isFile() && CODE.test(d.name) && !d.name.endsWith(".d.ts"))
    .map((d) => path.join(d.parentPath, d.name))
    .filter(
      (f) =>
        !toPosix(path.relative(dir, f))
          .split("/")
          .some((seg) => seg.startsWith(".")),
    )
    .sort();
  const parts = files.map((f) => `${toPosix(path.relative(dir, f))}\0${sha256(readFileSync(f))}`);
  return sha256(parts.join("\n"));
}

/** `@ast-grep/napi`'s version and every installed `@ast-grep/lang-*` package's, as name@version. */
export function engineVersions(fromDir: string): string[] {
  const req = createRequire(path.join(fromDir, "noop.js"));
  let napiPkg: string;
  try {
    napiPkg = req.resolve("@ast-grep/napi/package.json");
  } catch {
    return ["@ast-grep/napi@missing"];
  }
  const scope = path.dirname(path.dirname(napiPkg));
  const out: string[] = [];
  for (const name of readdirSync(scope).sort()) {
    if (name !== "napi" && !name.startsWith("lang-")) continue;
    try {
      const pkg = JSON.parse(readFileSync(path.join(scope, name, "package.json"), "utf8")) as { version?: string };
      out.push(`@ast-grep/${name}@${pkg.version ?? "?"}`);
    } catch {
      out.push(`@ast-grep/${name}@unreadable`);
    }
  }
  return out;
}
