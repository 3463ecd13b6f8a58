/** Messages between the `jscodeshift` tool's pool and its worker threads. */

interface LoadRequest {
  type: "load";
  id: number;
  /** Cache key: the same module file in the same state loads once per thread. */
  key: string;
  file: string;
}

interface RunRequest {
  type: "run";
  id: number;
  key: string;
  file: string;
  /** `fileInfo.path`: relative to the workspace root. */
  rel: string;
  source: string;
  options: Record<string, unknown>;
}

export type ToWorker = LoadRequest | RunRequest;

export interface LoadReply {
  type: "loaded";
  id: number;
  ok: boolean;
  isFunction?: boolean;
  /** The transform's exported `parser` (a name, or "(parser object)"). */
  parser?: string;
  error?: string;
  /** @babel/core's DEFAULT_EXTENSIONS, as loaded by the thread (the CLI's default --extensions). */
  babelExtensions: string[];
}

type FileStatus = "changed" | "unchanged" | "skip" | "error";

export interface RunReply {
  type: "done";
  id: number;
  status: FileStatus;
  output?: string;
  /** First line of what the transform threw. */
  error?: string;
  reports: string[];
  stats: Record<string, number>;
}
