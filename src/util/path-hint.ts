/** Why `Path not found: x` happens: paths are looked up in the workspace root, not the recipe's folder. */
export function pathHint(root: string): string {
  return `paths are relative to the workspace root ${root} (--cwd; default: the working directory), not to the recipe's folder`;
}
