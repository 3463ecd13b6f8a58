// The command line `main` was given, for messages that echo it back (the next-step hint).
let current: readonly string[] = [];

export function setArgv(argv: readonly string[]): void {
  current = [...argv];
}

export function getArgv(): readonly string[] {
  return current;
}
