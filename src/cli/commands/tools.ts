import path from "node:path";
import type { Tool } from "../../domain/types.js";
import { EXIT } from "../../exit-codes.js";
import type { CommandSpec } from "../command.js";
import { formatOf, type Format } from "../options.js";
import { divertStdout } from "../stdout.js";
import type { ProcessHost } from "../../process-host.js";

interface ToolsArgs {
  json?: boolean;
  format?: Format;
  recipe?: string;
  cwd?: string;
}

/** Lists built-in tools (and a recipe's custom tools) with their parameter schemas. */
export const toolsCommand: CommandSpec<ToolsArgs> = {
  command: "tools [recipe]",
  usage: "tools [recipe]",
  describe: "List built-in tools (and a recipe's custom tools) with their schemas",
  positionals: { recipe: { type: "string", describe: "Also list this recipe's custom tools" } },
  shared: ["cwd", "format"],
  own: { json: { type: "boolean", group: "Output:", describe: "The same as --format json" } },
  run: async (args, invocation) => {
    const restoreStdout = divertStdout(); // custom tool factories may print: not into the JSON
    const tools = await listTools(args, invocation.process).finally(restoreStdout);
    if (args.json || formatOf(args.format, invocation.env) === "json") {
      const out = tools.map((t) => ({
        name: t.name,
        label: t.label,
        description: t.description,
        deferrable: Boolean(t.deferrable),
        hidden: Boolean(t.hidden),
        parameters: JSON.parse(JSON.stringify(t.parameters)) as unknown,
      }));
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      for (const t of tools) {
        const flags = [t.deferrable ? "deferrable" : "", t.hidden ? "hidden" : ""].filter(Boolean).join(", ");
        process.stdout.write(`${t.name}${flags ? ` (${flags})` : ""}: ${t.description.split("\n")[0]}\n`);
      }
    }
    return EXIT.ok;
  },
};

async function listTools(args: ToolsArgs, host: ProcessHost): Promise<Tool[]> {
  const cwd = path.resolve(args.cwd ?? ".");
  if (args.recipe) {
    const { prepareRun } = await import("../../runner/run.js");
    const prepared = await prepareRun({ recipePath: path.resolve(args.recipe) }, { cwd, displayBase: process.cwd(), process: host });
    prepared.session.end();
    return [...prepared.tools.values()];
  }
  const { Session } = await import("../../session/session.js");
  const { Workspace } = await import("../../workspace/workspace.js");
  const { builtinTools } = await import("../../tools/index.js");
  const { createExec } = await import("../../subprocess.js");
  const { silentLogger } = await import("../../logger.js");
  const session = new Session({ cwd, process: host });
  for (const tool of builtinTools({
    cwd,
    workspace: new Workspace({ root: cwd, process: host }),
    push: () => {},
    exec: createExec(cwd, host),
    process: host,
    scope: {},
    logger: silentLogger,
  })) {
    session.register(tool);
  }
  return [...session.tools.values()];
}
