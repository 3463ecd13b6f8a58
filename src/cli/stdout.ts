/**
 * stdout carries only machine output (`--format json` prints the report, `tools --json`
 * the tool list). While user code runs — custom tool factories and steps — whatever it prints
 * with `console.log` or `process.stdout.write` is diverted to stderr, where logs belong, so the
 * JSON stays parseable. Returns the function that restores stdout; calling it twice is harmless.
 */
export function divertStdout(): () => void {
  const stdout = process.stdout;
  const hadOwn = Object.prototype.hasOwnProperty.call(stdout, "write");
  // Kept as it is, to be put back as it was (not bound: restoring must leave the stream unchanged).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const original = stdout.write;
  stdout.write = (chunk: unknown, ...rest: unknown[]) => (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest);
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    if (hadOwn) stdout.write = original;
    else delete (stdout as { write?: unknown }).write;
  };
}
