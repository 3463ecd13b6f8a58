/**
 * The oracle's side: the @ast-grep/cli dev dependency run on the temp copies. Matching runs
 * `run -p` once per pattern; rewrites run `run -p -r -U` on a copy, and `run --json` gives the
 * matches with their captures and replacements. Offsets are converted from the CLI's UTF-8 bytes to string indices.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { astGrepCli } from "../helpers/ast-grep-cli.js";

const SG = astGrepCli();

export interface CliMatch {
  file: string;
  ruleId?: string;
  text: string;
  /** String indices in the file's text. */
  start: number;
  end: number;
  /** 1-based line and column, as tollgate reports them. */
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  /** Captures: name → [start, end) string indices (a `$$$` list from its first node to its last). */
  captures: Map<string, [number, number]>;
  replacement?: string;
  /** [start, end) string indices the replacement takes the place of. */
  replaced?: [number, number];
}

function sg(args: string[], cwd: string): string {
  const r = spawnSync(SG, args, { cwd, encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1) throw new Error(`ast-grep ${args.slice(0, 3).join(" ")} …: exit ${r.status}: ${r.stderr.slice(0, 2000)}`);
  return r.stdout;
}

/** Maps UTF-8 byte offsets of a text to string indices. */
export function byteMapper(text: string): (byte: number) => number {
  const buf = Buffer.from(text, "utf8");
  if (buf.length === text.length) return (b) => b;
  const table = new Int32Array(buf.length + 1);
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    const len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let k = 0; k < len; k++) table[b + k] = i;
    b += len;
    if (cp >= 0x10000) i++;
  }
  table[buf.length] = text.length;
  return (x) => table[x]!;
}

interface RawRange {
  byteOffset: { start: number; end: number };
  start: { line: number; column: number };
  end: { line: number; column: number };
}
interface RawMatch {
  file: string;
  ruleId?: string;
  text: string;
  range: RawRange;
  replacement?: string;
  replacementOffsets?: { start: number; end: number };
  metaVariables?: { single: Record<string, { range: RawRange }>; multi: Record<string, Array<{ range: RawRange }>> };
}

function convert(raw: RawMatch, texts: (file: string) => string, mappers: Map<string, (b: number) => number>): CliMatch {
  const file = raw.file.replace(/^\.\//, "");
  let map = mappers.get(file);
  if (!map) mappers.set(file, (map = byteMapper(texts(file))));
  const captures = new Map<string, [number, number]>();
  for (const [name, v] of Object.entries(raw.metaVariables?.single ?? {})) captures.set(name, [map(v.range.byteOffset.start), map(v.range.byteOffset.end)]);
  for (const [name, list] of Object.entries(raw.metaVariables?.multi ?? {})) {
    if (list.length > 0) captures.set(name, [map(list[0]!.range.byteOffset.start), map(list[list.length - 1]!.range.byteOffset.end)]);
  }
  return {
    file,
    ...(raw.ruleId !== undefined ? { ruleId: raw.ruleId } : {}),
    text: raw.text,
    start: map(raw.range.byteOffset.start),
    end: map(raw.range.byteOffset.end),
    line: raw.range.start.line + 1,
    col: raw.range.start.column + 1,
    endLine: raw.range.end.line + 1,
    endCol: raw.range.end.column + 1,
    captures,
    ...(raw.replacement !== undefined ? { replacement: raw.replacement } : {}),
    ...(raw.replacementOffsets ? { replaced: [map(raw.replacementOffsets.start), map(raw.replacementOffsets.end)] as [number, number] } : {}),
  };
}

function parseStream(out: string, dir: string): CliMatch[] {
  const mappers = new Map<string, (b: number) => number>();
  const texts = (file: string) => readFileSync(path.join(dir, file), "utf8");
  return out
    .split("\n")
    .filter(Boolean)
    .map((l) => convert(JSON.parse(l) as RawMatch, texts, mappers));
}

/**
 * Every pattern's matches in `dir` (rule id `p<index>`), each from its own `run -p` call: what
 * `ast_grep` claims to equal, including `run`'s skipping of files that lack the pattern's fixed
 * string (which `scan` does not do).
 */
export function runPatterns(dir: string, cliLang: string, patterns: readonly string[]): CliMatch[] {
  return patterns.flatMap((p, i) =>
    parseStream(sg(["run", `--pattern=${p}`, "-l", cliLang, "--json=stream", "."], dir), dir).map((m) => ({ ...m, ruleId: `p${i}` })),
  );
}

/** The ERROR nodes of the CLI's own parse of every file in `dir`: file → [start, end) string indices. */
export function cliErrors(dir: string, cliLang: string): Map<string, Array<[number, number]>> {
  const rule = JSON.stringify({ id: "error", language: cliLang, severity: "hint", rule: { kind: "ERROR" } });
  const out = new Map<string, Array<[number, number]>>();
  for (const m of parseStream(sg(["scan", "--inline-rules", rule, "--json=stream", "."], dir), dir)) {
    const list = out.get(m.file) ?? [];
    list.push([m.start, m.end]);
    out.set(m.file, list);
  }
  return out;
}

/** The matches of one pattern in one file, with their replacements by `out`. */
export function runPattern(dir: string, file: string, cliLang: string, pattern: string, out: string): CliMatch[] {
  return parseStream(sg(["run", `--pattern=${pattern}`, `--rewrite=${out}`, "-l", cliLang, "--json=stream", file], dir), dir);
}

/** Rewrites `file` in place with `ast-grep run -U`. */
export function rewriteFile(dir: string, file: string, cliLang: string, pattern: string, out: string): void {
  sg(["run", `--pattern=${pattern}`, `--rewrite=${out}`, "-l", cliLang, "-U", file], dir);
}

/**
 * The CLI's parse of a pattern (`--debug-query=pattern`): its root kind, and the text of each
 * ERROR node (its leaves joined, metavariables as `$A`).
 */
export function cliPatternTree(cliLang: string, pattern: string): { root: string; errors: string[] } {
  const r = spawnSync(SG, ["run", `--pattern=${pattern}`, "-l", cliLang, "--debug-query=pattern", "/dev/null"], { encoding: "utf8" });
  const lines = `${r.stderr}\n${r.stdout}`.split("\n");
  const at = lines.indexOf("Debug Pattern:");
  const tree = lines.slice(at + 1).filter((l) => l.trim() !== "");
  const depth = (l: string) => l.length - l.trimStart().length;
  const errors: string[] = [];
  tree.forEach((l, i) => {
    if (l.trim() !== "ERROR") return;
    let text = "";
    for (let j = i + 1; j < tree.length && depth(tree[j]!) > depth(l); j++) {
      const [kind, ...rest] = tree[j]!.trim().split(" ");
      const next = tree[j + 1];
      const leaf = next === undefined || depth(next) <= depth(tree[j]!);
      if (leaf) text += kind === "MetaVar" ? rest.join(" ") : rest.length > 0 ? rest.join(" ") : kind!;
    }
    errors.push(text.replace(/\s+/g, ""));
  });
  return { root: at === -1 ? "" : (tree[0]?.trim().split(" ")[0] ?? ""), errors };
}

/**
 * The CLI's findings of rule documents (each with its `id`) over `dir`, from `scan --inline-rules`
 * in batches that fit one argument, and the ids of the rules the CLI refuses (a batch it refuses
 * is split until the refused rules stand alone), with the CLI's reasons.
 */
export function scanRules(dir: string, docs: ReadonlyArray<{ id: string; yaml: string }>): { matches: CliMatch[]; refused: Map<string, string> } {
  const matches: CliMatch[] = [];
  const refused = new Map<string, string>();
  const scan = (batch: ReadonlyArray<{ id: string; yaml: string }>) => {
    if (batch.length === 0) return;
    const args = ["scan", "--inline-rules", batch.map((d) => d.yaml).join("\n---\n"), "--json=stream", "."];
    const r = spawnSync(SG, args, { cwd: dir, encoding: "utf8", maxBuffer: 1 << 30 });
    if (r.error) throw r.error;
    if (r.status === 0 || r.status === 1) for (const m of parseStream(r.stdout, dir)) matches.push(m);
    else if (batch.length === 1) refused.set(batch[0]!.id, r.stderr.trim());
    else {
      const half = Math.ceil(batch.length / 2);
      scan(batch.slice(0, half));
      scan(batch.slice(half));
    }
  };
  let batch: Array<{ id: string; yaml: string }> = [];
  let size = 0;
  for (const d of docs) {
    if (size + d.yaml.length > 100_000) {
      scan(batch);
      batch = [];
      size = 0;
    }
    batch.push(d);
    size += d.yaml.length + 5;
  }
  scan(batch);
  return { matches, refused };
}

/** The CLI run with `args` in `dir`: its exit status and output (exit statuses are the caller's to judge). */
export function runCli(args: string[], dir: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(SG, args, { cwd: dir, encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The matches of a contextual pattern (`--selector`) over `dir`, or null when the CLI refuses it. */
export function runContextual(dir: string, cliLang: string, pattern: string, sel: string): CliMatch[] | null {
  const r = runCli(["run", `--pattern=${pattern}`, `--selector=${sel}`, "-l", cliLang, "--json=stream", "."], dir);
  if (r.status !== 0 && r.status !== 1) return null;
  return parseStream(r.stdout, dir);
}
