// npm pack's prepack/postpack: the tarball carries npm-shrinkwrap.json (the lockfile), so
// installing it (`npm install -g` of the tarball, as pre-commit does) gets the dependency
// versions this repository is tested with instead of resolving ranges afresh. `--remove` cleans up.
import { copyFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const target = path.join(root, "npm-shrinkwrap.json");
if (process.argv.includes("--remove")) rmSync(target, { force: true });
else copyFileSync(path.join(root, "package-lock.json"), target);
