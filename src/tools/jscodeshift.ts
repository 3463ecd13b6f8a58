import path from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { StaleError, ToolError } from "../errors.js";
import { discoverFiles } from "../discovery/index.js";
import type { AgentToolResult, EditRequest, FileChange, Tool } from "../domain/types.js";
import { textResult } from "../domain/types.js";
import { createFileAction } from "../workspace/action.js";
import { editBetween } from "../workspace/change.js";
import type { ToolHost } from "./host.js";
import { resolveTransform } from "./jscodeshift/resolve.js";
import { displayPath } from "../util/inside.js";
import { plural } from "../util/plural.js";
import { messageOf } from "../util/thrown.js";

export const JSCODESHIFT_PARSERS = ["babel", "babylon", "flow", "ts", "tsx"] as const;

export const jscodeshiftParameters = Type.Object(
  {
    transform: Type.String({
      description:
        "Transform module: a path relative to the recipe, or a package specifier resolved from the workspace (react-codemod/transforms/rename-unsafe-lifecycles.js)",
    }),
    parser: Type.Optional(
      Type.Union(
        JSCODESHIFT_PARSERS.map((p) => Type.Literal(p)),
        { description: "Parser (default babel); a parser the transform exports wins" },
      ),
    ),
    options: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "Options handed to the transform (as jscodeshift's --flags), over the CLI's defaults" }),
    ),
    path: Type.Optional(Type.String({ description: "File, directory, or glob pattern to transform (default: cwd)" })),
    glob: Type.Optional(Type.String({ description: "Optional glob filter relative to path" })),
    extensions: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String())], {
        description: "File extensions to transform (comma-separated or a list); default as the jscodeshift CLI's",
      }),
    ),
    allowErrors: Type.Optional(Type.Boolean({ description: "true: files whose transform threw (or timed out) are listed, but the step is not an error" })),
    fileTimeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Milliseconds the transform may take over one file (default 30000); a file that takes longer fails with that reason and its worker is replaced",
      }),
    ),
  },
  { additionalProperties: false },
);

export type JscodeshiftParams = Static<typeof jscodeshiftParameters>;

export interface JscodeshiftDetails {
  jscodeshift: { version: string };
  transform: string;
  /** The module file, relative to the workspace root when inside it. */
  transformFile: string;
  parser: string;
  /** The transform's own exported parser, which wins over `parser`. */
  transformParser?: string;
  extensions: string[];
  workers: number;
  filesSearched: number;
  filesChanged: number;
  filesUnchanged: number;
  filesSkipped: number;
  changed: string[];
  /** Files whose transform returned nothing (the first 1000). */
  skipped: string[];
  errors: Array<{ path: string; error: string }>;
  reports: Array<{ path: string; message: string }>;
  stats: Record<string, number>;
  /** Files that could not be read as text (binary, non-UTF-8, too large). */
  unreadable?: Array<{ path: string; reason: string }>;
}

const PREVIEW_REMINDER = "Preview only: no file has been modified yet. Resolving this pending action with apply writes these changes.";

function extensionList(value: JscodeshiftParams["extensions"], fallback: () => string[]): string[] {
  if (value === undefined) return fallback();
  const raw = Array.isArray(value) ? value : value.split(",");
  const list = raw.map((e) => e.trim().replace(/^\./, "")).filter((e) => e !== "");
  if (list.length === 0) throw new ToolError("`extensions` must name at least one extension");
  return list;
}

/**
 * Runs a jscodeshift transform over the files: every changed file goes into one
 * pending action; files whose transform threw are listed and make the step an error unless
 * `allowErrors`. The transform runs in worker processes (./jscodeshift/pool.ts) whose working
 * directory is the workspace root; they are the only place jscodeshift and Babel are loaded.
 */
export function createJscodeshiftTool(host: ToolHost): Tool<typeof jscodeshiftParameters, JscodeshiftDetails> {
  return {
    name: "jscodeshift",
    label: "Jscodeshift",
    description:
      "Run a jscodeshift transform module (react-codemod, your own) over files, exactly as jscodeshift's worker calls it. Preview only: stages one pending action with every changed file.",
    parameters: jscodeshiftParameters,
    deferrable: true,
    runs: { kind: "modules", noun: "transform modules" },
    async check(params) {
      const { checkTransform } = await import("./jscodeshift/check.js");
      const root = host.workspace.root;
      // Babel's DEFAULT_EXTENSIONS as 7.x has them: the count only decides how many workers to start early.
      const countFiles = async () => {
        const exts = new Set(extensionList(params.extensions, () => ["cjs", "es", "es6", "js", "jsx", "mjs", "ts", "tsx"]).map((e) => `.${e}`));
        const found = await discoverFiles({
          root,
          path: params.path,
          glob: params.glob,
          scope: host.scope,
          accept: (rel) => exts.has(path.posix.extname(rel)),
        });
        return found.files.length;
      };
      return checkTransform(params.transform, host.recipeDir ?? root, root, params.fileTimeout, countFiles);
    },
    async execute(_id, params, onUpdate, _ctx, signal): Promise<AgentToolResult<JscodeshiftDetails>> {
      if (typeof params.transform !== "string" || params.transform.trim() === "") throw new ToolError("`transform` must be a non-empty string");
      const root = host.workspace.root;
      if (params.fileTimeout !== undefined && (!Number.isInteger(params.fileTimeout) || params.fileTimeout < 1))
        throw new ToolError("`fileTimeout` must be a positive whole number of milliseconds");
      const pool = await import("./jscodeshift/pool.js");
      const fileTimeoutMs = params.fileTimeout ?? pool.DEFAULT_FILE_TIMEOUT_MS;
      const mod = (() => {
        try {
          return resolveTransform(params.transform, host.recipeDir ?? root, root);
        } catch (err) {
          throw new ToolError(messageOf(err));
        }
      })();
      const shared = pool.sharedPool();
      try {
        return await step();
      } finally {
        // Workers end with their step (a failed load included): see ./jscodeshift/pool.ts.
        await shared.close();
      }

      async function step(): Promise<AgentToolResult<JscodeshiftDetails>> {
        const loadedInfo = await shared.load(mod, root, fileTimeoutMs);
        if (!loadedInfo.ok) throw new ToolError(`Failed to load jscodeshift transform ${params.transform}: ${loadedInfo.error}`);
        if (!loadedInfo.isFunction)
          throw new ToolError(`jscodeshift transform ${params.transform} does not export a function (module.exports = fn or export default fn)`);
        const extensions = extensionList(params.extensions, () => pool.defaultExtensions(loadedInfo.babelExtensions));
        const extSet = new Set(extensions.map((e) => `.${e}`));
        const parser = params.parser ?? "babel";
        const options: Record<string, unknown> = {
          ...pool.cliDefaults(loadedInfo.babelExtensions),
          transform: params.transform,
          ...(params.extensions !== undefined ? { extensions: extensions.join(",") } : {}),
          parser,
          ...(params.options ?? {}),
        };

        const discovery = await discoverFiles({
          root,
          path: params.path,
          glob: params.glob,
          scope: host.scope,
          accept: (rel) => extSet.has(path.posix.extname(rel)),
        });
        const files = discovery.files;
        const workers = pool.workersFor(files.length);

        // A changed file is staged as soon as its result arrives (while the workers run the
        // others): its edit against the text the transform saw and that text's sha256 (staging
        // checks it: a file changed meanwhile is an error, not a change staged against the wrong
        // text); texts are held only while their file is in flight. The changes are assembled in
        // file order afterwards, so the order results arrive in changes nothing.
        const inFlight = new Map<string, { text: string; sha256: string }>();
        const staging = new Map<number, Promise<{ changes: FileChange[] } | { stale: true } | { error: unknown }>>();
        const stage = (request: EditRequest) =>
          host.workspace.stageEdits([request]).then(
            (changes) => ({ changes }),
            (error: unknown) => (error instanceof StaleError ? { stale: true as const } : { error }),
          );
        const outcomes: Array<import("./jscodeshift/pool.js").FileOutcome | undefined> = new Array<import("./jscodeshift/pool.js").FileOutcome | undefined>(
          files.length,
        );
        let done = 0;
        let lastUpdate = 0;
        try {
          await shared.run(
            mod,
            files.map((f) => ({
              rel: f.rel,
              read: async () => {
                const r = await host.workspace.read(f.rel);
                inFlight.set(f.rel, { text: r.text, sha256: r.sha256 });
                return r.text;
              },
            })),
            options,
            { cwd: root, workers, fileTimeoutMs, ...(signal ? { signal } : {}) },
            (index, outcome) => {
              const rel = files[index]!.rel;
              const seen = inFlight.get(rel);
              inFlight.delete(rel);
              if (outcome.type === "done" && outcome.status === "changed" && seen) {
                staging.set(index, stage({ path: rel, beforeSha256: seen.sha256, edits: editBetween(seen.text, outcome.output!) }));
                delete outcome.output;
              }
              outcomes[index] = outcome;
              done++;
              const now = Date.now();
              if (onUpdate && (now - lastUpdate > 100 || done === files.length)) {
                lastUpdate = now;
                onUpdate(textResult(`jscodeshift ${params.transform}: ${done}/${files.length} files`));
              }
            },
          );
        } catch (err) {
          throw new ToolError(messageOf(err) === "Aborted" ? "Aborted" : `jscodeshift failed: ${messageOf(err)}`);
        }

        const changes: FileChange[] = [];
        const errors: JscodeshiftDetails["errors"] = [];
        const reports: JscodeshiftDetails["reports"] = [];
        const unreadable: NonNullable<JscodeshiftDetails["unreadable"]> = [];
        const stats: Record<string, number> = {};
        let unchanged = 0;
        let skipped = 0;
        const skippedFiles: string[] = [];
        const changed: number[] = [];
        files.forEach((f, i) => {
          const o = outcomes[i];
          if (!o) return;
          if (o.type === "unreadable") {
            unreadable.push({ path: f.rel, reason: o.error });
            return;
          }
          for (const message of o.reports) reports.push({ path: f.rel, message });
          for (const [name, n] of Object.entries(o.stats)) stats[name] = (stats[name] ?? 0) + n;
          if (o.status === "changed") changed.push(i);
          else if (o.status === "unchanged") unchanged++;
          else if (o.status === "skip") {
            skipped++;
            if (skippedFiles.length < 1000) skippedFiles.push(f.rel);
          } else errors.push({ path: f.rel, error: o.error ?? "unknown error" });
        });
        for (const i of changed) {
          const staged = await staging.get(i)!;
          if ("error" in staged) throw staged.error;
          if ("stale" in staged) errors.push({ path: files[i]!.rel, error: "The file changed while the transform ran; run the step again" });
          else changes.push(...staged.changes);
        }
        staging.clear();
        const { jscodeshiftVersion } = pool;
        const details: JscodeshiftDetails = {
          jscodeshift: { version: jscodeshiftVersion() },
          transform: params.transform,
          transformFile: displayPath(mod.file, root),
          parser,
          ...(loadedInfo.parser !== undefined ? { transformParser: loadedInfo.parser } : {}),
          extensions,
          workers,
          filesSearched: files.length,
          filesChanged: changes.length,
          filesUnchanged: unchanged,
          filesSkipped: skipped,
          changed: changes.map((c) => c.path),
          skipped: skippedFiles,
          errors,
          reports,
          stats,
          ...(unreadable.length > 0 ? { unreadable } : {}),
        };

        const label = `Jscodeshift: ${params.transform}: ${plural(changes.length, "file")}`;
        const lines: string[] = [];
        const counts = `${plural(files.length, "file")}: ${changes.length} changed, ${details.filesUnchanged} unchanged, ${skipped} skipped, ${errors.length} failed`;
        lines.push(changes.length > 0 ? `${label} (${counts})` : `No changes: jscodeshift ${params.transform} (${counts})`);
        if (loadedInfo.parser !== undefined) lines.push(`Parser: ${loadedInfo.parser} (exported by the transform)`);
        for (const c of changes) lines.push(`- ${c.path}`);
        if (errors.length > 0) {
          lines.push("", `Errors (${plural(errors.length, "file")}; the transform threw or did not finish in time):`);
          for (const e of errors) lines.push(`- ${e.path}: ${e.error}`);
        }
        if (unreadable.length > 0) {
          lines.push("", `Not transformed (${plural(unreadable.length, "file")} not readable as text):`);
          for (const u of unreadable) lines.push(`- ${u.path}: ${u.reason}`);
        }
        if (reports.length > 0) {
          lines.push("", "Reports:");
          for (const r of reports) lines.push(`${r.path}: ${r.message}`);
        }
        const statNames = Object.keys(stats).sort();
        if (statNames.length > 0) {
          lines.push("", "Stats:");
          for (const name of statNames) lines.push(`${name}: ${stats[name]}`);
        }
        if (changes.length > 0) {
          host.push(
            createFileAction(host.workspace, {
              label,
              sourceToolName: "jscodeshift",
              changes,
              details: { ...details },
              appliedText: (written) => `Applied jscodeshift ${params.transform} to ${plural(written.length, "file")}.`,
            }),
          );
          lines.push("", PREVIEW_REMINDER);
        }
        const result = textResult(lines.join("\n"), details);
        if (errors.length > 0 && !params.allowErrors) {
          const staged =
            changes.length > 0
              ? ` The ${plural(changes.length, "changed file")} ${changes.length === 1 ? "is" : "are"} staged and resolved by the policy.`
              : "";
          return {
            ...result,
            content: [
              {
                type: "text",
                text: `jscodeshift ${params.transform}: the transform failed on ${plural(errors.length, "file")} (allowErrors: true accepts this).${staged}\n\n${lines.join("\n")}`,
              },
            ],
            isError: true,
          } as AgentToolResult<JscodeshiftDetails>;
        }
        return result;
      }
    },
  };
}
