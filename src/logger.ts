/** Run log: never stdout (stdout is for machine output). */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(write: (line: string) => void, verbose = false): Logger {
  return {
    debug: (m) => {
      if (verbose) write(`debug: ${m}`);
    },
    info: (m) => write(m),
    warn: (m) => write(`warning: ${m}`),
    error: (m) => write(`error: ${m}`),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
