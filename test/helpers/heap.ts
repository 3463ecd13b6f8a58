import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { CLI, testdir } from "./testdir.js";

/**
 * The real CLI as a child process under a V8 heap limit, with its peak RSS (MiB) as recorded
 * by the child itself when it exits (`process.resourceUsage().maxRSS`, loaded with --import).
 */
export async function cliUnderHeap(heapMb: number, args: readonly string[], cwd: string) {
  const aux = await testdir({});
  const rssFile = path.join(aux, "rss");
  const hook = path.join(aux, "hook.mjs");
  await writeFile(
    hook,
    `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const r = await execa(process.execPath, [`--max-old-space-size=${heapMb}`, "--import", hook, CLI, ...args], {
    cwd,
    reject: false,
    env: { CI: "true", NO_COLOR: "1", GITHUB_ACTIONS: "" },
    timeout: 240_000,
  });
  const peakMiB = Number(await readFile(rssFile, "utf8").catch(() => "NaN")) / 1024;
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- execa's result is a record of fields; the tests read only those
  return { ...r, peakMiB };
}
