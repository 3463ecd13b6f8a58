/**
 * `tollgate test sgconfig.yml`: the rule tests of an sgconfig's `testConfigs`, with
 * `ast-grep test`'s verdicts (crates/cli/src/verify): a valid case is Validated when the rule
 * does not match it, else Noisy; an invalid case is Missing when the rule does not match it,
 * else its snapshot (the first match's fixed source and labels) is compared with the stored one:
 * equal → Reported, different or absent → Wrong; a fix that cannot be made → Error. `--update`
 * writes the snapshots of Wrong cases (Updated).
 *
 * napi reports no secondary labels of relational rules (ast-grep's default labels for the nodes
 * `inside`/`has`/... matched), so snapshots are compared on `fixed` and the primary labels, and
 * the snapshots tollgate writes hold primary labels and those a rule's `labels` names.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isSeq, stringify, type Node } from "yaml";
import { InputError, type Issue } from "../errors.js";
import { ensureLanguages, loadNapi } from "../tools/ast/langs.js";
import { entries, onlyKeys, str, type CheckCtx } from "../tools/scan/check.js";
import { evaluateMatch } from "../tools/scan/fix.js";
import { loadRuleSet, napiConfigOf, readProjectConfig, yamlDocuments } from "../tools/scan/rules.js";
import type { ScanRule } from "../tools/scan/types.js";

/**
 * A test whose id names no rule is skipped, as `ast-grep test` skips it ("Configuration not
 * found! <id>", no failure): a collection's tests outlive rules that are filtered, disabled or
 * removed.
 */
const NOT_FOUND = "no rule with this id in the sgconfig's ruleDirs";

export type Verdict = "Validated" | "Reported" | "Wrong" | "Missing" | "Noisy" | "Error" | "Updated";

export interface LabelSnapshot {
  source: string;
  message?: string;
  style: "primary" | "secondary";
  start: number;
  end: number;
}

export interface Snapshot {
  fixed?: string;
  labels: LabelSnapshot[];
}

export interface RuleCase {
  kind: "valid" | "invalid";
  code: string;
  verdict: Verdict;
  actual?: Snapshot;
  expected?: Snapshot;
  error?: string;
}

export interface RuleTestResult {
  id: string;
  file: string;
  /** Set when the rule was not run (a language tollgate lacks). */
  skipped?: string;
  cases: RuleCase[];
}

export interface RuleTestRun {
  results: RuleTestResult[];
  issues: Issue[];
  /** Unknown keys the rules hold where ast-grep ignores them (check.ts ignoredKeys). */
  warnings: Issue[];
  summary: { passed: number; failed: number; updated: number; skipped: number; cases: number };
  /** 0 all passed, 1 a case failed, 2 invalid config or tests. */
  exitCode: number;
}

const PASS: readonly Verdict[] = ["Validated", "Reported", "Updated"];

/** Whether a file is an sgconfig (what `tollgate test` runs as rule tests, not a recipe). */
export function isSgConfig(file: string): boolean {
  const base = path.basename(file).toLowerCase();
  return base === "sgconfig.yml" || base === "sgconfig.yaml";
}

function show(file: string, base: string): string {
  const rel = path.relative(base, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : file;
}

function yamlFiles(dir: string, skip?: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let list;
    try {
      list = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of list.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) {
        if (skip === undefined || path.resolve(abs) !== path.resolve(skip)) walk(abs);
      } else if (/\.ya?ml$/i.test(e.name)) out.push(abs);
    }
  };
  walk(dir);
  return out;
}

interface TestFile {
  id: string;
  file: string;
  valid: string[];
  invalid: string[];
}

function codeList(ctx: CheckCtx, node: Node | null | undefined, what: string): string[] {
  if (!isSeq(node)) {
    ctx.issues.push({ file: ctx.file, message: `${what} must be a list of code strings` });
    return [];
  }
  return node.items.flatMap((item) => {
    const s = str(ctx, item as Node, `${what} entry`);
    return s === undefined ? [] : [s];
  });
}

/** UTF-8 byte offset of a UTF-16 offset (ast-grep's label offsets are bytes). */
function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), "utf8");
}

type SgNode = Parameters<typeof evaluateMatch>[1];

function labelsOf(rule: ScanRule, node: SgNode, code: string): LabelSnapshot[] {
  const label = (start: number, end: number, style: "primary" | "secondary", message?: string): LabelSnapshot => ({
    source: code.slice(start, end),
    ...(message !== undefined ? { message } : {}),
    style,
    start: byteOffset(code, start),
    end: byteOffset(code, end),
  });
  if (rule.labels) {
    const out: LabelSnapshot[] = [];
    for (const [name, conf] of Object.entries(rule.labels)) {
      const one = node.getMatch(name);
      const many = one ? [one] : node.getMultipleMatches(name);
      if (many.length === 0) continue;
      out.push(label(many[0]!.range().start.index, many[many.length - 1]!.range().end.index, conf.style, conf.message));
    }
    return out;
  }
  const r = node.range();
  return [label(r.start.index, r.end.index, "primary")];
}

function primary(labels: readonly LabelSnapshot[]): string[] {
  return labels
    .filter((l) => l.style === "primary")
    .map((l) => JSON.stringify([l.source, l.start, l.end, l.message ?? null]))
    .sort();
}

function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  return (a.fixed ?? null) === (b.fixed ?? null) && JSON.stringify(primary(a.labels)) === JSON.stringify(primary(b.labels));
}

function readSnapshots(files: string[], displayBase: string, issues: Issue[]): Map<string, { file: string; snapshots: Map<string, Snapshot> }> {
  const out = new Map<string, { file: string; snapshots: Map<string, Snapshot> }>();
  for (const file of files) {
    const shown = show(file, displayBase);
    for (const { ctx, root } of yamlDocuments(shown, readFileSync(file, "utf8"), issues)) {
      const map = entries(ctx, root, "snapshot file");
      if (!map) continue;
      onlyKeys(ctx, map, ["id", "snapshots"], "snapshot file");
      const id = map.get("id") ? str(ctx, map.get("id")!.value, "id") : undefined;
      if (!id) continue;
      const snaps = new Map<string, Snapshot>();
      const raw = (map.get("snapshots")?.value as { toJSON?: () => unknown } | undefined)?.toJSON?.() as Record<string, Snapshot> | null | undefined;
      for (const [code, snap] of Object.entries(raw ?? {}))
        snaps.set(code, { ...(snap?.fixed !== undefined ? { fixed: snap.fixed } : {}), labels: Array.isArray(snap?.labels) ? snap.labels : [] });
      const prev = out.get(id);
      if (prev) for (const [k, v] of snaps) prev.snapshots.set(k, v);
      else out.set(id, { file, snapshots: snaps });
    }
  }
  return out;
}

export interface RuleTestOptions {
  config: string;
  update?: boolean;
  /** Rule ids (regex) to test, like `ast-grep test --filter`. */
  filter?: string;
  displayBase: string;
  onResult?: (r: RuleTestResult) => void;
}

export async function runRuleTests(options: RuleTestOptions): Promise<RuleTestRun> {
  const issues: Issue[] = [];
  const warnings: Issue[] = [];
  const configFile = path.resolve(options.config);
  const config = readProjectConfig(configFile, options.displayBase, issues);
  const done = (results: RuleTestResult[]): RuleTestRun => {
    const all = results.flatMap((r) => r.cases);
    const failedRules = results.filter((r) => r.cases.some((c) => !PASS.includes(c.verdict))).length;
    const summary = {
      passed: results.filter((r) => !r.skipped && r.cases.every((c) => PASS.includes(c.verdict))).length,
      failed: failedRules,
      updated: all.filter((c) => c.verdict === "Updated").length,
      skipped: results.filter((r) => r.skipped).length,
      cases: all.length,
    };
    return { results, issues, warnings, summary, exitCode: issues.length > 0 ? 2 : failedRules > 0 ? 1 : 0 };
  };
  if (!config) return done([]);
  if (config.testConfigs.length === 0) {
    issues.push({ file: show(configFile, options.displayBase), message: "sgconfig has no testConfigs: nothing to test" });
    return done([]);
  }
  let rules: ScanRule[];
  let skipped: Map<string, string>;
  try {
    const set = await loadRuleSet({ baseDir: path.dirname(configFile), displayBase: options.displayBase, config: configFile });
    rules = set.rules;
    warnings.push(...set.warnings);
    skipped = new Map(set.skipped.map((s) => [s.id, s.reason]));
  } catch (err) {
    if (err instanceof InputError) issues.push(...err.issues);
    else throw err;
    return done([]);
  }
  const byId = new Map(rules.map((r) => [r.id, r]));
  const filter = options.filter !== undefined ? new RegExp(options.filter, "u") : undefined;
  const tests: TestFile[] = [];
  const snapshotDirs: string[] = [];
  const snapshotFiles: string[] = [];
  for (const tc of config.testConfigs) {
    const snapDir = path.resolve(tc.testDir, tc.snapshotDir ?? "__snapshots__");
    snapshotDirs.push(snapDir);
    snapshotFiles.push(...yamlFiles(snapDir));
    for (const file of yamlFiles(tc.testDir, snapDir)) {
      const shown = show(file, options.displayBase);
      for (const { ctx, root } of yamlDocuments(shown, readFileSync(file, "utf8"), issues)) {
        const map = entries(ctx, root, "rule test");
        if (!map) continue;
        onlyKeys(ctx, map, ["id", "valid", "invalid"], "rule test");
        const id = map.get("id") ? str(ctx, map.get("id")!.value, "id") : undefined;
        if (!id) {
          if (!map.has("id")) ctx.issues.push({ file: shown, message: "rule test needs an id" });
          continue;
        }
        const valid = map.get("valid") ? codeList(ctx, map.get("valid")!.value, "valid") : [];
        const invalid = map.get("invalid") ? codeList(ctx, map.get("invalid")!.value, "invalid") : [];
        tests.push({ id, file: shown, valid, invalid });
      }
    }
  }
  if (issues.length > 0) return done([]);
  const snapshots = readSnapshots(snapshotFiles, options.displayBase, issues);
  if (issues.length > 0) return done([]);
  const napi = await loadNapi();
  ensureLanguages(napi, [...new Set(rules.map((r) => r.lang))]);
  const results: RuleTestResult[] = [];
  const updates = new Map<string, Map<string, Snapshot>>();
  for (const t of tests) {
    if (filter && !filter.test(t.id)) continue;
    const rule = byId.get(t.id);
    if (!rule) {
      const r: RuleTestResult = { id: t.id, file: t.file, skipped: skipped.get(t.id) ?? NOT_FOUND, cases: [] };
      results.push(r);
      options.onResult?.(r);
      continue;
    }
    const matcher = napiConfigOf(rule) as never;
    const cases: RuleCase[] = [];
    for (const code of t.valid) {
      const found = napi
        .parse(rule.lang as never, code)
        .root()
        .find(matcher);
      cases.push({ kind: "valid", code, verdict: found ? "Noisy" : "Validated" });
    }
    const stored = snapshots.get(t.id)?.snapshots;
    for (const code of t.invalid) {
      const node = napi
        .parse(rule.lang as never, code)
        .root()
        .find(matcher);
      if (!node) {
        cases.push({ kind: "invalid", code, verdict: "Missing" });
        continue;
      }
      let actual: Snapshot;
      try {
        const labels = labelsOf(rule, node, code);
        actual = { labels };
        if (rule.fix) {
          const ev = evaluateMatch(rule, node, code);
          actual = { fixed: code.slice(0, ev.fix!.start) + ev.fix!.text + code.slice(ev.fix!.end), labels };
        }
      } catch (err) {
        cases.push({ kind: "invalid", code, verdict: "Error", error: (err as Error).message });
        continue;
      }
      const expected = stored?.get(code);
      if (expected && sameSnapshot(actual, expected)) {
        cases.push({ kind: "invalid", code, verdict: "Reported", actual, expected });
        continue;
      }
      if (options.update) {
        const m = updates.get(t.id) ?? new Map<string, Snapshot>();
        m.set(code, actual);
        updates.set(t.id, m);
        cases.push({ kind: "invalid", code, verdict: "Updated", actual, ...(expected ? { expected } : {}) });
      } else cases.push({ kind: "invalid", code, verdict: "Wrong", actual, ...(expected ? { expected } : {}) });
    }
    const r: RuleTestResult = { id: t.id, file: t.file, cases };
    results.push(r);
    options.onResult?.(r);
  }
  for (const [id, changed] of updates) writeSnapshot(id, changed, snapshots.get(id), snapshotDirs[0]!);
  return done(results);
}

/** Writes `<snapshotDir>/<id>-snapshot.yml` (ast-grep's layout), keeping other cases' snapshots. */
function writeSnapshot(
  id: string,
  changed: Map<string, Snapshot>,
  existing: { file: string; snapshots: Map<string, Snapshot> } | undefined,
  dir: string,
): void {
  const all = new Map(existing?.snapshots ?? []);
  for (const [k, v] of changed) all.set(k, v);
  const sorted = Object.fromEntries([...all.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const file = existing?.file ?? path.join(dir, `${id}-snapshot.yml`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, stringify({ id, snapshots: sorted }, { lineWidth: 0 }));
}

/** ast-grep test's per-rule line: `PASS id  ..W.` (one mark per case: valid cases first). */
export function ruleLine(r: RuleTestResult): string {
  if (r.skipped) return `SKIP ${r.id}  (${r.skipped})`;
  const pass = r.cases.every((c) => PASS.includes(c.verdict));
  const marks = r.cases.map((c) => ({ Validated: ".", Reported: ".", Updated: "U", Wrong: "W", Missing: "M", Noisy: "N", Error: "E" })[c.verdict]).join("");
  return `${r.cases.length === 0 ? "SKIP" : pass ? "PASS" : "FAIL"} ${r.id}  ${marks}`;
}

/** Details of the failing cases, as ast-grep test prints them. */
export function ruleDetails(r: RuleTestResult): string[] {
  const out: string[] = [];
  const code = (s: string) => s.split("\n").map((l) => `  ${l}`);
  for (const c of r.cases) {
    if (c.verdict === "Noisy") out.push(`[Noisy] Expect ${r.id} to report no issue, but some issues found in:`, ...code(c.code));
    if (c.verdict === "Missing") out.push(`[Missing] Expect rule ${r.id} to report issues, but none found in:`, ...code(c.code));
    if (c.verdict === "Error") out.push(`[Error] Fail to apply fix to ${r.id}: ${c.error ?? ""}`, ...code(c.code));
    if (c.verdict === "Wrong") {
      out.push(`[Wrong] ${r.id} snapshot ${c.expected ? "differs" : "is missing (run with --update to write it)"}:`, ...code(c.code));
      if (c.expected && c.actual && (c.expected.fixed ?? null) !== (c.actual.fixed ?? null)) {
        out.push("  expected fixed:", ...code(c.expected.fixed ?? "(none)"), "  actual fixed:", ...code(c.actual.fixed ?? "(none)"));
      }
    }
  }
  return out;
}
