/**
 * Whole-file matching in napi's own threads: `findInFiles` reads, parses and walks the files it
 * is given with a combined rule (traverse.ts `combine`) on Rust threads, and hands this thread
 * only the nodes found, file by file. A file without a node never costs this thread anything,
 * and its tree is freed where it was built. This is the ast-grep CLI's own loop: the CLI's
 * whole-file answer, at its speed, without a tree walk on the JavaScript thread.
 *
 * Contract of `find`: the nodes `c.rule` finds in a whole parse of the file, in document order,
 * or null when they cannot be vouched for (the caller then parses the text itself):
 * - napi reads the file again; every node found is checked against the text the caller read
 *   (same text at the same offsets), so a file that changed in between is parsed from the
 *   caller's text instead of being matched on other contents;
 * - a rule napi refuses for a language (JSON has no lone-metavariable pattern) answers null,
 *   for that file and every later one of the same rule and language;
 * - a batch whose callback reports an error, or names a file it was not given, answers null
 *   for every file of it that got no nodes (a file without a callback has no node only when
 *   the batch is known to be whole).
 */
import { statSync } from "node:fs";
import type { Napi } from "./langs.js";
import { spanOf, type Combined, type SgNode } from "./traverse.js";

interface Pending {
  abs: string;
  text: string;
  resolve: (nodes: SgNode[] | null) => void;
}

/** Files per findInFiles call at most (results stream back file by file in any case). */
const MAX_BATCH = 64;

export class NativeFinder {
  readonly #queues = new Map<Combined, Map<string, Pending[]>>();
  readonly #refused = new WeakMap<Combined, Set<string>>();
  #inFlight = 0;

  /** `calls`: findInFiles calls under way at once (each walks its files on its own threads). */
  constructor(
    readonly napi: Napi,
    readonly calls: number,
  ) {}

  find(abs: string, lang: string, text: string, c: Combined): Promise<SgNode[] | null> {
    if (this.#refused.get(c)?.has(lang)) return Promise.resolve(null);
    // napi reads what the path names: only a regular file (not a FIFO that would block it).
    if (statSync(abs, { throwIfNoEntry: false })?.isFile() !== true) return Promise.resolve(null);
    return new Promise((resolve) => {
      let byLang = this.#queues.get(c);
      if (!byLang) this.#queues.set(c, (byLang = new Map<string, Pending[]>()));
      let queue = byLang.get(lang);
      if (!queue) byLang.set(lang, (queue = []));
      queue.push({ abs, text, resolve });
      // Flushed on the next turn, so the files that lanes hand over together share a call.
      if (this.#inFlight < this.calls) queueMicrotask(() => this.#pump());
    });
  }

  #pump(): void {
    for (const [c, byLang] of this.#queues) {
      for (const [lang, queue] of byLang) {
        while (queue.length > 0 && this.#inFlight < this.calls) {
          const size = Math.min(MAX_BATCH, Math.max(1, Math.ceil(queue.length / (this.calls - this.#inFlight))));
          this.#call(c, lang, queue.splice(0, size));
        }
        if (queue.length === 0) byLang.delete(lang);
      }
      if (byLang.size === 0) this.#queues.delete(c);
    }
  }

  #call(c: Combined, lang: string, batch: Pending[]): void {
    const waiting = new Map(batch.map((p) => [p.abs, p]));
    let expected: number | undefined;
    let delivered = 0;
    let unsure = false;
    let done = false;
    this.#inFlight++;
    const finish = () => {
      if (done) return;
      done = true;
      for (const p of waiting.values()) p.resolve(unsure ? null : []);
      waiting.clear();
      this.#inFlight--;
      this.#pump();
    };
    const onFile = (err: unknown, nodes: SgNode[] | undefined) => {
      delivered++;
      if (err || !nodes || nodes.length === 0) unsure = true;
      else {
        const abs = nodes[0]!.getRoot().filename();
        const p = waiting.get(abs);
        if (!p) unsure = true;
        else {
          waiting.delete(abs);
          p.resolve(sameText(nodes, p.text) ? nodes : null);
        }
      }
      if (expected !== undefined && delivered >= expected) finish();
    };
    let started: Promise<number>;
    try {
      started = this.napi.findInFiles(lang, { paths: batch.map((p) => p.abs), matcher: c.rule as never }, onFile);
    } catch {
      this.#refuse(c, lang);
      unsure = true;
      finish();
      return;
    }
    started.then(
      (n) => {
        expected = n;
        if (delivered >= n) finish();
      },
      () => {
        unsure = true;
        finish();
      },
    );
  }

  #refuse(c: Combined, lang: string): void {
    let langs = this.#refused.get(c);
    if (!langs) this.#refused.set(c, (langs = new Set()));
    langs.add(lang);
  }
}

/** Whether every node lies in `text` and every node but an ERROR or empty one spells the text there. */
function sameText(nodes: readonly SgNode[], text: string): boolean {
  for (const node of nodes) {
    const [start, end] = spanOf(node);
    if (end > text.length) return false;
    if (start === end || node.kind() === "ERROR") continue;
    if (node.text() !== text.slice(start, end)) return false;
  }
  return true;
}
