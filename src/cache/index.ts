/**
 * The result cache (`--cache`) as the structural tools see it: per job, a file's answer by its
 * language and content. jscodeshift and custom tools are not cached (a transform's result depends
 * on code the cache cannot key exactly).
 */
import { sha256 } from "../util/hash.js";
import type { EditRequest, StagedDiff, StagingMemo } from "../domain/types.js";
import { editCodec, engineCodec, scanCodec, stagedCodec, type EditAnswer, type EngineAnswer, type ScanAnswer } from "./answers.js";
import type { JobView, ResultStore } from "./store.js";

export type { EditAnswer, EngineAnswer, ScanAnswer } from "./answers.js";

/** The engine's answers for one job, keyed by language and the sha256 of a file's bytes (tools/ast/engine.ts FileProcessor). */
interface EngineFileCache {
  get(lang: string, sha256: string, text: string): EngineAnswer | undefined;
  put(lang: string, sha256: string, text: string, answer: EngineAnswer): void;
}

/** A tool's answers for one file, keyed by language and the file's sha256 (checked against its text). */
export interface FileCache<T> {
  get(lang: string, content: { sha256: string; text: string }): T | undefined;
  put(lang: string, content: { sha256: string; text: string }, answer: T): void;
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
    return {
      get: (lang, sha, text) => view.get(lang, { sha256: sha, text }),
      put: (lang, sha, text, { matches, issues, hadErrors }) => view.put(lang, { sha256: sha, text }, { matches, issues, ...(hadErrors ? { hadErrors } : {}) }),
    };
  }

  /**
   * A view for ast_scan's rules that are matched on napi nodes: `rules` are the rules that apply
   * to a file (which depends on its path through `files`/`ignores`), whole but for where they were
   * read from.
   */
  scan(rules: readonly object[]): FileCache<ScanAnswer> | undefined {
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

  /**
   * A view for what ast_edit plans from a file's matches: keyed by everything the plan depends
   * on, the patterns (which fix the engine's job), the `out` templates and `sel`.
   */
  edit(params: { pats: readonly string[]; outs: readonly string[]; sel: string | undefined }): FileCache<EditAnswer> | undefined {
    return this.store.view("edit", { pats: params.pats, outs: params.outs, sel: params.sel ?? null }, editCodec);
  }

  /**
   * What staging derived from a file's edits (its diff), by path, edits and the file's sha256:
   * one view for every step, since that is all it depends on.
   */
  staging(): StagingMemo | undefined {
    const view = this.store.view("staging", null, stagedCodec);
    if (!view) return undefined;
    const ranges = (req: EditRequest) => (req.edits ?? []).map((e): [number, number] => [e.start, e.end]);
    const partOf = (req: EditRequest) => sha256(`${req.path}\0${JSON.stringify((req.edits ?? []).map((e) => [e.start, e.end, e.text]))}`);
    const sameRanges = (a: Array<[number, number]>, b: Array<[number, number]>) =>
      a.length === b.length && a.every((r, i) => r[0] === b[i]![0] && r[1] === b[i]![1]);
    return {
      get(req, before) {
        if (req.beforeSha256 === null) return undefined;
        const got = view.get(partOf(req), { sha256: req.beforeSha256, text: before });
        if (!got || !sameRanges(got.edits, ranges(req))) return undefined;
        return { afterSha256: got.afterSha256, additions: got.additions, deletions: got.deletions, diff: got.diff };
      },
      put(req, before, staged: StagedDiff) {
        if (req.beforeSha256 === null || staged.afterSha256 === null) return;
        view.put(partOf(req), { sha256: req.beforeSha256, text: before }, { edits: ranges(req), ...staged, afterSha256: staged.afterSha256 });
      },
    };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
