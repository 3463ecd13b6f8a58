/** Worker thread entry: runs FileProcessor on the files the pool sends, one message each. */
import { parentPort, workerData } from "node:worker_threads";
import { FileProcessor, type EngineFile, type EngineJob } from "./engine.js";
import { loadNapi } from "./langs.js";

const port = parentPort!;
const napi = await loadNapi();
const processor = new FileProcessor(napi, (workerData as { job: EngineJob }).job);
port.on("message", (msg: { id: number; file: EngineFile }) => {
  try {
    port.postMessage({ id: msg.id, result: processor.process(msg.file) });
  } catch (err) {
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
port.postMessage({ ready: true });
