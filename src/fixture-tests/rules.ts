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
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { isSeq, stringify, type Node } from "yaml";
import { InputError, type Issue } from "../errors.js";
import { ensureLanguages, loadNapi } from "../tools/ast/langs.js";
import { entries, onlyKeys, str, type CheckCtx } from "../tools/scan/check.js";
import { evaluateMatch } from "../tools/scan/fix.js";
import { loadRuleSet, napiConfigOf, readProjectConfig, yamlDocuments } from "../tools/scan/rules.js";
import type { ProjectConfig, ScanRule } from "../tools/scan/types.js";
import { messageOf } from "../util/thrown.js";
import { displayPath } from "../util/inside.js";
import { writeFileAtomicText } from "../workspace/output-file.js";

/**
 * A test whose id names no rule is skipped, as `ast-grep test` skips it ("Configuration not
 * found! <id>", no failure): a collection's tests outlive rules that are filtered, disabled or
 * removed.
 */
const NOT_FOUND = "no rule with this id in the sgconfig's ruleDirs";

type Verdict = "Validated" | "Reported" | "Wrong" | "Missing" | "Noisy" | "Error" | "Updated";

interface LabelSnapshot {
  source: string;
  message?: string;
  style: "primary" | "secondary";
  start: number;
  end: number;
}

interface Snapshot {
  fixed?: string;
  labels: LabelSnapshot[];
}

interface RuleCase {
  kind: "valid" | "invalid";
  code: string;
  verdict: Verdict;
  actual?: Snapshot;
  expected?: Snapshot;
  error?: string;
}

interface RuleTestResult {
  id: string;
  file: string;
  /** Set when the rule was not run (a language tollgate lacks). */
  skipped?: string;
  cases: RuleCase[];
}

interface RuleTestRun {
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
    const shown = displayPath(file, displayBase);
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

interface RuleTestOptions {
  config: string;
  update?: boolean;
  /** Rule ids (regex) to test, like `ast-grep test --filter`. */
  filter?: string;
  displayBase: string;
  onResult?: (r: RuleTestResult) => void;
}

function ruleTestRun(results: RuleTestResult[], issues: Issue[], warnings: Issue[]): RuleTestRun {
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
}

/** The sgconfig's test files (outside the snapshot directories), and the snapshot files. */
function readTestFiles(config: ProjectConfig, displayBase: string, issues: Issue[]): { tests: TestFile[]; snapshotDirs: string[]; snapshotFiles: string[] } {
  const tests: TestFile[] = [];
  const snapshotDirs: string[] = [];
  const snapshotFiles: string[] = [];
  for (const tc of config.testConfigs) {
    const snapDir = path.resolve(tc.testDir, tc.snapshotDir ?? "__snapshots__");
    snapshotDirs.push(snapDir);
    snapshotFiles.push(...yamlFiles(snapDir));
    for (const file of yamlFiles(tc.testDir, snapDir)) {
      const shown = displayPath(file, displayBase);
      for (const { ctx, root } of yamlDocuments(shown, readFileSync(file, "utf8"), issues)) {
        const test = readTest(ctx, root, shown);
        if (test) tests.push(test);
      }
    }
  }
  return { tests, snapshotDirs, snapshotFiles };
}

/** One rule test document: `{ id, valid, invalid }`. */
function readTest(ctx: CheckCtx, root: Node | null, shown: string): TestFile | undefined {
  const map = entries(ctx, root, "rule test");
  if (!map) return undefined;
  onlyKeys(ctx, map, ["id", "valid", "invalid"], "rule test");
  const id = map.get("id") ? str(ctx, map.get("id")!.value, "id") : undefined;
  if (!id) {
    if (!map.has("id")) ctx.issues.push({ file: shown, message: "rule test needs an id" });
    return undefined;
  }
  const valid = map.get("valid") ? codeList(ctx, map.get("valid")!.value, "valid") : [];
  const invalid = map.get("invalid") ? codeList(ctx, map.get("invalid")!.value, "invalid") : [];
  return { id, file: shown, valid, invalid };
}

type Napi = Awaited<ReturnType<typeof loadNapi>>;

/** The snapshot of an invalid case's first match: the fixed source (when the rule fixes) and the labels. */
function snapshotOf(rule: ScanRule, node: SgNode, code: string): Snapshot {
  const labels = labelsOf(rule, node, code);
  if (!rule.fix) return { labels };
  const ev = evaluateMatch(rule, node, code);
  return { fixed: code.slice(0, ev.fix!.start) + ev.fix!.text + code.slice(ev.fix!.end), labels };
}

/**
 * An invalid case's verdict: Missing, Error, Reported (the stored snapshot), or else Wrong —
 * Updated with `update`, its snapshot then put in `updated`.
 */
function invalidCase(napi: Napi, rule: ScanRule, code: string, expected: Snapshot | undefined, updated: Map<string, Snapshot> | undefined): RuleCase {
  const node = napi
    .parse(rule.lang as never, code)
    .root()
    .find(napiConfigOf(rule) as never);
  if (!node) return { kind: "invalid", code, verdict: "Missing" };
  let actual: Snapshot;
  try {
    actual = snapshotOf(rule, node, code);
  } catch (err) {
    return { kind: "invalid", code, verdict: "Error", error: messageOf(err) };
  }
  if (expected && sameSnapshot(actual, expected)) return { kind: "invalid", code, verdict: "Reported", actual, expected };
  updated?.set(code, actual);
  return { kind: "invalid", code, verdict: updated ? "Updated" : "Wrong", actual, ...(expected ? { expected } : {}) };
}

/** One rule's cases, valid ones first; `updated` collects the snapshots to write (`--update`). */
function ruleCases(napi: Napi, rule: ScanRule, t: TestFile, stored: Map<string, Snapshot> | undefined, updated: Map<string, Snapshot> | undefined): RuleCase[] {
  const matcher = napiConfigOf(rule) as never;
  const cases: RuleCase[] = [];
  for (const code of t.valid) {
    const found = napi
      .parse(rule.lang as never, code)
      .root()
      .find(matcher);
    cases.push({ kind: "valid", code, verdict: found ? "Noisy" : "Validated" });
  }
  for (const code of t.invalid) cases.push(invalidCase(napi, rule, code, stored?.get(code), updated));
  return cases;
}

/** The sgconfig's rules (skipped ones by id, with the reason); undefined when they do not load. */
async function loadTestedRules(
  configFile: string,
  displayBase: string,
  issues: Issue[],
  warnings: Issue[],
): Promise<{ rules: ScanRule[]; skipped: Map<string, string> } | undefined> {
  try {
    const set = await loadRuleSet({ baseDir: path.dirname(configFile), displayBase, config: configFile });
    warnings.push(...set.warnings);
    return { rules: set.rules, skipped: new Map(set.skipped.map((s) => [s.id, s.reason])) };
  } catch (err) {
    if (err instanceof InputError) issues.push(...err.issues);
    else throw err;
    return undefined;
  }
}

export async function runRuleTests(options: RuleTestOptions): Promise<RuleTestRun> {
  const issues: Issue[] = [];
  const warnings: Issue[] = [];
  const done = (results: RuleTestResult[]): RuleTestRun => ruleTestRun(results, issues, warnings);
  const configFile = path.resolve(options.config);
  const config = readProjectConfig(configFile, options.displayBase, issues);
  if (!config) return done([]);
  if (config.testConfigs.length === 0) {
    issues.push({ file: displayPath(configFile, options.displayBase), message: "sgconfig has no testConfigs: nothing to test" });
    return done([]);
  }
  const loaded = await loadTestedRules(configFile, options.displayBase, issues, warnings);
  if (!loaded) return done([]);
  const { tests, snapshotDirs, snapshotFiles } = readTestFiles(config, options.displayBase, issues);
  if (issues.length > 0) return done([]);
  const snapshots = readSnapshots(snapshotFiles, options.displayBase, issues);
  if (issues.length > 0) return done([]);
  const napi = await loadNapi();
  ensureLanguages(napi, [...new Set(loaded.rules.map((r) => r.lang))]);
  const byId = new Map(loaded.rules.map((r) => [r.id, r]));
  const filter = options.filter !== undefined ? new RegExp(options.filter, "u") : undefined;
  const results: RuleTestResult[] = [];
  const updates = new Map<string, Map<string, Snapshot>>();
  for (const t of tests) {
    if (filter && !filter.test(t.id)) continue;
    const rule = byId.get(t.id);
    let r: RuleTestResult;
    if (!rule) r = { id: t.id, file: t.file, skipped: loaded.skipped.get(t.id) ?? NOT_FOUND, cases: [] };
    else {
      const updated = options.update ? (updates.get(t.id) ?? new Map<string, Snapshot>()) : undefined;
      r = { id: t.id, file: t.file, cases: ruleCases(napi, rule, t, snapshots.get(t.id)?.snapshots, updated) };
      if (updated && updated.size > 0) updates.set(t.id, updated);
    }
    results.push(r);
    options.onResult?.(r);
  }
  for (const [id, changed] of updates) await writeSnapshot(id, changed, snapshots.get(id), snapshotDirs[0]!);
  return done(results);
}

/**
 * Writes `<snapshotDir>/<id>-snapshot.yml` (ast-grep's layout), keeping other cases' snapshots;
 * atomically, so an interrupted `--update` leaves the previous snapshot file whole.
 */
async function writeSnapshot(
  id: string,
  changed: Map<string, Snapshot>,
  existing: { file: string; snapshots: Map<string, Snapshot> } | undefined,
  dir: string,
): Promise<void> {
  const all = new Map(existing?.snapshots ?? []);
  for (const [k, v] of changed) all.set(k, v);
  const sorted = Object.fromEntries([...all.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const file = existing?.file ?? path.join(dir, `${id}-snapshot.yml`);
  await writeFileAtomicText(file, stringify({ id, snapshots: sorted }, { lineWidth: 0 }), "the snapshot");
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
