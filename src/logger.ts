/** Run log: never stdout (stdout is for machine output). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The CLI's run log: every line through `write`; debug lines are dropped. */
export function createLogger(write: (line: string) => void): Logger {
  return {
    debug: () => {},
    info: (m) => write(m),
    warn: (m) => write(`warning: ${m}`),
    error: (m) => write(`error: ${m}`),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
