/**
 * How many worker processes a jscodeshift step starts, and with which Node flags: decided from
 * the machine and the user's settings that the caller passes in (the CLI reads them from the
 * process and the OS); nothing here reads a global.
 */

/** What the machine offers, as the OS reports it. */
interface Machine {
  /** os.availableParallelism() */
  cpus: number;
  /** os.totalmem(), bytes */
  totalMemory: number;
  /** os.freemem(), bytes */
  freeMemory: number;
}

/** The user's choices that bear on the workers. */
interface WorkerChoices {
  /** TOLLGATE_JSCODESHIFT_WORKERS: a number of workers, taken as is. */
  workers?: string | undefined;
  /** tollgate's own Node flags (process.execArgv): the workers get them too. */
  execArgv?: readonly string[];
  /** NODE_OPTIONS: flags there count as chosen. */
  nodeOptions?: string | undefined;
}

/** What a step's workers are. */
export interface WorkerSettings {
  /** Workers a step starts at most. */
  max: number;
  /** The user set `max`: taken as is, even for a step over few files. */
  explicit: boolean;
  /** Node flags of every worker. */
  execArgv: readonly string[];
}

const MiB = 1024 * 1024;

/**
 * Memory one worker is budgeted: recast, the transform, Babel when a module must be compiled,
 * and the AST of the file in flight, with headroom for a large file.
 */
const WORKER_MEMORY_BYTES = 192 * MiB;

/**
 * Files a worker must have to be worth starting (a worker costs about as much CPU as ten files of
 * typical React code): a step over a few files runs in the one worker its transform was checked in.
 */
const FILES_PER_WORKER = 10;

/** Settings of a caller that says nothing about the machine: one worker, no extra flags. */
export const ONE_WORKER: WorkerSettings = { max: 1, explicit: false, execArgv: workerExecArgv([], "", true) };

/**
 * Workers the machine holds: one per CPU (the main process only feeds them), as many as half the
 * free memory, and at most a quarter of all memory, hold at WORKER_MEMORY_BYTES each; at least one.
 */
export function machineWorkers(machine: Machine): number {
  const memory = Math.min(machine.freeMemory / 2, machine.totalMemory / 4);
  return Math.max(1, Math.min(Math.floor(machine.cpus), Math.floor(memory / WORKER_MEMORY_BYTES)));
}

/** The workers' settings: the user's number, else what the machine holds; their flags (workerExecArgv). */
export function workerSettings(machine: Machine, choices: WorkerChoices = {}): WorkerSettings {
  const chosen = choices.workers?.trim();
  const explicit = chosen !== undefined && chosen !== "" && Number.isFinite(Number(chosen));
  const max = explicit ? Math.max(1, Math.floor(Number(chosen))) : machineWorkers(machine);
  return { max, explicit, execArgv: workerExecArgv(choices.execArgv ?? [], choices.nodeOptions ?? "", max >= machine.cpus) };
}

/** Workers for a step over `files` files: `max`, fewer for few files (an explicit number is taken as is, up to the files). */
export function workersFor(files: number, settings: Pick<WorkerSettings, "max" | "explicit">): number {
  const wanted = settings.explicit ? files : Math.floor(files / FILES_PER_WORKER);
  return Math.max(1, Math.min(settings.max, wanted));
}

/**
 * A worker's Node flags: tollgate's own (as fork's default), plus two the user did not choose
 * (in flags or NODE_OPTIONS):
 * - a young generation of 8 MiB semi-spaces instead of V8's 16: a worker's garbage is one file's
 *   AST at a time, so a smaller young generation lowers the process tree's peak at no cost in time;
 * - `--single-threaded` (no GC helper or background compiler threads) when the workers fill
 *   every CPU (`fillsCpus`): those threads then only take CPU from the other worker; where CPUs
 *   are left over, the helper threads use them and the flag is not added.
 */
export function workerExecArgv(execArgv: readonly string[], nodeOptions: string, fillsCpus: boolean): string[] {
  const chosen = (flag: RegExp) => [...execArgv, nodeOptions].some((a) => flag.test(a));
  const out = [...execArgv];
  if (!chosen(/--max[-_]semi[-_]space[-_]size/)) out.push("--max-semi-space-size=8");
  if (fillsCpus && !chosen(/--(?:no[-_])?single[-_]threaded/)) out.push("--single-threaded");
  return out;
}
