/** `n` and the word for that many: `plural(1, "file")` is `1 file`, `plural(2, "fix", "fixes")` is `2 fixes`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
