/** Worker thread entry: runs FileProcessor on the files the pool sends, one message each. */
import { parentPort, workerData } from "node:worker_threads";
import { FileProcessor, type EngineFile, type EngineJob } from "./engine.js";
import { loadNapi } from "./langs.js";

const port = parentPort!;
const napi = await loadNapi();
const processor = new FileProcessor(napi, (workerData as { job: EngineJob }).job);

// One file per turn of the event loop. A port delivers every queued message in one go, and the
// pool keeps a few queued, so handling them as they come would never let the loop turn: the
// finalizers that free dead syntax trees (reclaim.ts) would wait for the end of the run.
const queue: Array<{ id: number; file: EngineFile }> = [];
let scheduled = false;
const schedule = () => {
  if (scheduled || queue.length === 0) return;
  scheduled = true;
  setImmediate(next);
};
const next = () => {
  scheduled = false;
  const msg = queue.shift()!;
  try {
    port.postMessage({ id: msg.id, result: processor.process(msg.file) });
  } catch (err) {
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
  schedule();
};
port.on("message", (msg: { id: number; file: EngineFile }) => {
  queue.push(msg);
  schedule();
});
port.postMessage({ ready: true });
