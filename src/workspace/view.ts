import path from "node:path";
import { BlockedError, StaleError } from "../errors.js";
import { messageOf } from "../util/thrown.js";
import type { EditRequest, FileChange, StagingMemo, TextEdit } from "../domain/types.js";
import { memorySpill, type SpillStore } from "../spill/store.js";
import { sha256 } from "../util/hash.js";
import { applyEdits, buildChange, editBetween, stagedDiff } from "./change.js";
import { errnoOf } from "../util/errno.js";
import { createNodeWorkspaceFs, type WorkspaceFs } from "./fs.js";
import { globMatcher } from "../policy/glob.js";
import { containPath, isAlwaysProtected, isCaseInsensitiveFs, realRoot, type Contained } from "./paths.js";
import { editsReproduce } from "./rebase.js";
import { DEFAULT_MAX_FILE_BYTES, decodeText, describeProblem } from "./text.js";

export interface TreeViewOptions {
  root: string;
  fs?: WorkspaceFs;
  /** Policy `protect` globs (workspace-relative). `.git/` and `.tollgate/` are always protected. */
  protect?: string[];
  maxFileBytes?: number;
  /** Match `protect` globs without regard to case; default: detected from the filesystem. */
  caseInsensitive?: boolean;
  /** Where staged changes keep their diffs (default: in memory; the runner spills to a file). */
  spill?: SpillStore;
}

export interface ReadResult {
  rel: string;
  text: string;
  sha256: string;
}

export interface StageInput {
  path: string;
  /** New content; `null` deletes the file. */
  content: string | null;
  /** At apply time, on a file that changed since staging: its new content, or undefined (stale). */
  rebase?: (current: string) => string | undefined;
  /**
   * Sorted, non-overlapping edits of the current text that give `content`: the change may then
   * be moved over this run's earlier writes of the file (rebase.ts). Ignored when they do not
   * reproduce `content`.
   */
  edits?: readonly TextEdit[];
}

function loneSurrogateAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/**
 * The contained view of the tree: every path is resolved inside the root (escapes and
 * symlinks pointing out refused), protected paths are known, text files are read with one clear
 * message for what cannot be read, and changes are staged as edits against what is on disk now.
 * It writes nothing: writing is the transaction's (transaction.ts).
 */
export class TreeView {
  readonly root: string;
  /** The root with symlinks resolved: where files really are. */
  readonly realRoot: string;
  readonly fs: WorkspaceFs;
  readonly maxFileBytes: number;
  /** Where staged changes keep their diffs. */
  spill: SpillStore;
  readonly #isProtected: (rel: string) => boolean;
  readonly #staged = new Map<string, Contained>();

  constructor(options: TreeViewOptions) {
    this.root = path.resolve(options.root);
    this.realRoot = realRoot(this.root);
    this.fs = options.fs ?? createNodeWorkspaceFs();
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.spill = options.spill ?? memorySpill();
    const protect = options.protect ?? [];
    const nocase = options.caseInsensitive ?? isCaseInsensitiveFs(this.root);
    const matcher = protect.length > 0 ? globMatcher(protect, { nocase }) : () => false;
    this.#isProtected = (rel) => isAlwaysProtected(rel) || matcher(rel);
  }

  /** Absolute and workspace-relative form of a path; throws BlockedError when outside. */
  contain(userPath: string): Contained {
    return containPath(this.root, userPath, this.realRoot);
  }

  /**
   * contain() for staging, remembered per path for the view's life: staging writes nothing, and
   * every write contains its path afresh (assertWritable), so a symlink swapped since staging
   * is still caught where it matters.
   */
  #containStaged(userPath: string): Contained {
    let c = this.#staged.get(userPath);
    if (c === undefined) this.#staged.set(userPath, (c = this.contain(userPath)));
    return c;
  }

  isProtected(rel: string): boolean {
    return this.#isProtected(rel);
  }

  /** Reads a text file; throws for missing, binary, non-UTF-8 and oversize files. */
  async read(userPath: string): Promise<ReadResult> {
    const { real, rel } = this.contain(userPath);
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.readFile(real);
    } catch (err) {
      // One clear message instead of the raw errno text with an absolute path.
      const code = errnoOf(err);
      if (code === "EISDIR") throw new Error(`Not a file: ${rel} is a directory`, { cause: err });
      if (code === "ENOTDIR") throw new Error(`Not a file path: ${rel} (a parent of it is a file)`, { cause: err });
      if (code === "ENOTREG") throw new Error(`Not a regular file: ${rel} (${messageOf(err)}); only regular files are read`, { cause: err });
      throw err;
    }
    const decoded = decodeText(bytes, this.maxFileBytes);
    if ("problem" in decoded) throw new Error(`Cannot read ${rel}: ${describeProblem(decoded.problem, this.maxFileBytes)}`);
    return { rel, text: decoded.text, sha256: sha256(bytes) };
  }

  /** Like read, but `null` when the file does not exist. */
  async readIfExists(userPath: string): Promise<ReadResult | null> {
    try {
      return await this.read(userPath);
    } catch (err) {
      if (errnoOf(err) === "ENOENT") return null;
      throw err;
    }
  }

  /**
   * Turns intended contents into FileChanges against what is on disk now (whole contents become
   * the one edit between the texts). Changes that change nothing are dropped. Protected or
   * escaping paths throw BlockedError at staging time.
   */
  async stage(inputs: StageInput[]): Promise<FileChange[]> {
    const changes: FileChange[] = [];
    const seen = new Set<string>();
    for (const input of inputs) {
      const { rel, realRel } = this.contain(input.path);
      if (seen.has(realRel)) throw new Error(`File staged twice in one action: ${rel}`);
      seen.add(realRel);
      if (input.content !== null && typeof input.content !== "string") {
        throw new Error(`Content of ${rel} must be a string (or null to delete)`);
      }
      // UTF-8 cannot hold a lone surrogate: written, it would silently become U+FFFD.
      const at = input.content === null ? -1 : loneSurrogateAt(input.content);
      if (at >= 0 && input.content !== null) {
        throw new Error(
          `Content of ${rel} is not valid Unicode: a lone surrogate (U+${input.content.charCodeAt(at).toString(16).toUpperCase()}) at offset ${at}; refusing to write it as U+FFFD`,
        );
      }
      const current = await this.readIfExists(rel);
      const before = current?.text ?? null;
      const after = input.content;
      if (before === after) continue;
      const given = input.edits && editsReproduce({ before, after, edits: input.edits }) ? input.edits : undefined;
      const edits = after === null ? [] : before === null ? [{ start: 0, end: 0, text: after }] : (given ?? editBetween(before, after));
      const rebase = input.rebase;
      changes.push(
        buildChange(this.spill, {
          path: rel,
          before,
          beforeSha256: current?.sha256 ?? null,
          after,
          edits,
          ...(given ? { movable: true } : {}),
          ...(rebase
            ? {
                rebase: (text: string) => {
                  const next = rebase(text);
                  return next === undefined ? undefined : editBetween(text, next);
                },
              }
            : {}),
        }),
      );
    }
    return changes;
  }

  /**
   * The narrow staging API (ast_edit, ast_scan, jscodeshift, custom producers): a file change is
   * its path, the sha256 it has now and the edits against that text (`edits: null` deletes).
   * The file is read unless the producer hands its text (which must be the one the hash is of);
   * one that no longer has `beforeSha256` is refused (StaleError). Changes that change nothing
   * are dropped; the diff is computed here, once, and spilled (or taken from `memo`, which
   * keeps what staging derived from the same path, text and edits in an earlier run).
   */
  async stageEdits(requests: readonly EditRequest[], memo?: StagingMemo): Promise<FileChange[]> {
    const changes: FileChange[] = [];
    const seen = new Set<string>();
    for (const req of requests) {
      const { rel, realRel } = this.#containStaged(req.path);
      if (seen.has(realRel)) throw new Error(`File staged twice in one action: ${rel}`);
      seen.add(realRel);
      let before: string | null;
      if (req.text !== undefined && req.beforeSha256 !== null) before = req.text;
      else {
        const current = await this.readIfExists(rel);
        if ((current?.sha256 ?? null) !== req.beforeSha256) {
          throw new StaleError(`Stale: ${rel} changed while it was being staged; nothing was staged`, [rel]);
        }
        before = current?.text ?? null;
      }
      // Only edits of an existing file are kept: their after text is never null.
      const prior = before;
      const memoable = memo !== undefined && prior !== null && req.edits !== null && req.edits.length > 0;
      const keyed = { ...req, path: rel };
      const kept = memoable ? memo.get(keyed, prior) : undefined;
      // A kept diff stands for the after text, which is then not made ("" keeps the kind: modified).
      const after = kept ? "" : req.edits === null ? null : applyEdits(before ?? "", req.edits);
      if (after === undefined) throw new Error(`Edits of ${rel} overlap or lie outside the file`);
      if (!kept && after === before) continue;
      const input = {
        path: rel,
        before,
        beforeSha256: req.beforeSha256,
        after,
        edits: req.edits ?? [],
        applied: true,
        movable: true,
        ...(req.rebase ? { rebase: req.rebase } : {}),
      };
      const derived = kept ?? stagedDiff(input);
      if (memoable && !kept) memo.put(keyed, prior, derived);
      changes.push(buildChange(this.spill, input, derived));
    }
    return changes;
  }

  /**
   * Paths of `changes` that must not be written: throws BlockedError naming them. Returns where
   * each one is (`contain`), in order, for a caller about to write them.
   */
  assertWritable(changes: readonly Pick<FileChange, "path">[]): Contained[] {
    return this.#writable(changes, (p) => this.contain(p));
  }

  /**
   * assertWritable for a decision that writes nothing (whether an action is blocked before the
   * policy is asked): paths are contained as staging contained them; the write checks afresh.
   */
  assertStagedWritable(changes: readonly Pick<FileChange, "path">[]): void {
    this.#writable(changes, (p) => this.#containStaged(p));
  }

  #writable(changes: readonly Pick<FileChange, "path">[], contain: (userPath: string) => Contained): Contained[] {
    const blocked: string[] = [];
    const contained = changes.map((change) => {
      const c = contain(change.path);
      if (this.#isProtected(c.rel) || this.#isProtected(c.realRel)) blocked.push(c.rel);
      return c;
    });
    if (blocked.length > 0) throw new BlockedError(`Refusing to write protected path(s): ${blocked.join(", ")}`, blocked);
    return contained;
  }
}
