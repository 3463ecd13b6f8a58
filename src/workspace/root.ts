import { statSync } from "node:fs";
import { InputError } from "../errors.js";
import { errnoOf, ioReason } from "../util/errno.js";

/**
 * The workspace root must be an existing directory (exit 2 otherwise, and nothing is created):
 * a mistyped `--cwd` must not become a new directory holding a fresh `.tollgate/`.
 */
export function checkWorkspaceDir(root: string, given: string | undefined): void {
  const name = given ?? root;
  let st;
  try {
    st = statSync(root);
  } catch (err) {
    const code = errnoOf(err);
    if (code === "ENOENT") throw new InputError(`--cwd ${name}: no such directory`);
    if (code === "ENOTDIR") throw new InputError(`--cwd ${name}: not a directory (a parent of it is a file)`);
    throw new InputError(`--cwd ${name}: cannot use it as the workspace (${ioReason(err)})`);
  }
  if (!st.isDirectory()) throw new InputError(`--cwd ${name}: not a directory`);
}
