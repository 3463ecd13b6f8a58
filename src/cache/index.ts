/**
 * The result cache (`--cache`) as the structural tools see it: per job, a file's answer by its
 * language and content. jscodeshift and custom tools are not cached (a transform's result depends
 * on code the cache cannot key exactly).
 */
import { sha256 } from "../util/hash.js";
import { engineCodec, scanCodec, type EngineAnswer, type ScanAnswer } from "./answers.js";
import type { JobView, ResultStore } from "./store.js";

export type { EngineAnswer, ScanAnswer } from "./answers.js";

/** The engine's answers for one job, keyed by language and file bytes (tools/ast/engine.ts FileProcessor). */
interface EngineFileCache {
  /** The sha256 of a file's bytes, computed once for the lookup, the put and the engine's result. */
  sha256(bytes: Buffer): string;
  get(lang: string, bytes: Buffer, text: string): EngineAnswer | undefined;
  put(lang: string, bytes: Buffer, text: string, answer: EngineAnswer): void;
}

/** ast_scan's answers for the rules that apply to a file, keyed by language and the file's sha256. */
interface ScanFileCache {
  get(lang: string, content: { sha256: string; text: string }): ScanAnswer | undefined;
  put(lang: string, content: { sha256: string; text: string }, answer: ScanAnswer): void;
}

export class ResultCache {
  constructor(readonly store: ResultStore) {}

  /**
   * A view for an engine job: everything in it that can change a file's answer (the ops with
   * their patterns, rule objects and captures, `sel`, the prefilter). Undefined when the job
   * cannot be keyed.
   */
  engine(job: { ops: unknown; sel?: string | undefined; prefilter?: unknown }): EngineFileCache | undefined {
    const view = this.store.view("engine", { ops: job.ops, sel: job.sel ?? null, prefilter: job.prefilter ?? null }, engineCodec);
    if (!view) return undefined;
    // A file's sha256 by its bytes: the lookup, the put after a miss and the engine's result share one.
    const shas = new WeakMap<Buffer, string>();
    const shaOf = (bytes: Buffer) => {
      let sha = shas.get(bytes);
      if (sha === undefined) shas.set(bytes, (sha = sha256(bytes)));
      return sha;
    };
    return {
      sha256: shaOf,
      get: (lang, bytes, text) => view.get(lang, { sha256: shaOf(bytes), text }),
      put: (lang, bytes, text, { matches, issues, hadErrors }) =>
        view.put(lang, { sha256: shaOf(bytes), text }, { matches, issues, ...(hadErrors ? { hadErrors } : {}) }),
    };
  }

  /**
   * A view for ast_scan's rules that are matched on napi nodes: `rules` are the rules that apply
   * to a file (which depends on its path through `files`/`ignores`), whole but for where they were
   * read from.
   */
  scan(rules: readonly object[]): ScanFileCache | undefined {
    const view: JobView<ScanAnswer> | undefined = this.store.view(
      "scan",
      rules.map((r) => {
        const { origin: _origin, ...rule } = r as { origin?: unknown };
        return rule;
      }),
      scanCodec,
    );
    return view && { get: (lang, content) => view.get(lang, content), put: (lang, content, answer) => view.put(lang, content, answer) };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
