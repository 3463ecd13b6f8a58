import { readFileSync } from "node:fs";

/**
 * tollgate's version, from its package.json. A leaf module: the report builder, the CLI and the
 * library read it without importing the runner. The file sits one level up from tsc's output
 * (dist/version.js) and two from the bundle's chunks (dist/bundle/*.js): the first package.json
 * named "tollgate" wins.
 */
export const VERSION: string = readVersion();

function readVersion(): string {
  for (const rel of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "tollgate" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not there: try the next level
    }
  }
  return "0.0.0";
}
