import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO_ROOT } from "./testdir.js";

/** The @ast-grep/cli dev dependency's binary (from its optional platform package), the oracle. */
export function astGrepCli(): string {
  const require = createRequire(path.join(REPO_ROOT, "package.json"));
  const exe = process.platform === "win32" ? "ast-grep.exe" : "ast-grep";
  const { platform, arch } = process;
  const pkgs = [
    ...(platform === "linux" ? [`@ast-grep/cli-linux-${arch}-gnu`, `@ast-grep/cli-linux-${arch}-musl`] : []),
    ...(platform === "darwin" ? [`@ast-grep/cli-darwin-${arch}`] : []),
    ...(platform === "win32" ? [`@ast-grep/cli-win32-${arch}-msvc`] : []),
    "@ast-grep/cli",
  ];
  for (const pkg of pkgs) {
    try {
      const file = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), exe);
      if (existsSync(file)) return file;
    } catch {}
  }
  throw new Error("the ast-grep CLI binary is missing: npm ci installs @ast-grep/cli and its platform package");
}
