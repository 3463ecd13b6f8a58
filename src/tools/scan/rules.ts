/**
 * Reads ast-grep rule sets: an sgconfig.yml (ruleDirs, utilDirs, languageGlobs, testConfigs),
 * rule files (multi-document YAML) and inline rule objects. Every problem is an Issue with
 * file:line:col; `loadRuleSet` throws InputError with all of them (exit 2), so `validate` and
 * `run` refuse the same rule sets before anything runs.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { isMap, isSeq, LineCounter, parseAllDocuments, stringify, type Node } from "yaml";
import { InputError, type Issue } from "../../errors.js";
import { NotRegularFileError, readRegularFileSync } from "../../util/regular.js";
import { yamlErrorText } from "../../util/yaml-error.js";
import { patternRootIsError } from "../ast/fixed-string.js";
import { LANGS, loadNapi, ensureLanguages, type LangInfo } from "../ast/langs.js";
import {
  checkFix,
  checkRule,
  checkTransform,
  entries,
  expandAliases,
  ignoredKeys,
  issue,
  onlyKeys,
  plain,
  posOf,
  str,
  strList,
  type CheckCtx,
} from "./check.js";
import { hasPotentialKinds, MISSING_KINDS } from "./kinds.js";
import { checkRuleVars } from "./vars.js";
import {
  transformSource,
  type GlobalUtil,
  type ProjectConfig,
  type Rewriter,
  type RuleObject,
  type ScanRule,
  type Severity,
  type SkippedRule,
  type Transformation,
} from "./types.js";
import { messageOf } from "../../util/thrown.js";
import { displayPath } from "../../util/inside.js";

const TOP_KEYS = [
  "id",
  "language",
  "rule",
  "constraints",
  "utils",
  "transform",
  "rewriters",
  "fix",
  "files",
  "ignores",
  "severity",
  "message",
  "note",
  "labels",
  "url",
  "metadata",
];
const SEVERITIES: readonly Severity[] = ["error", "warning", "info", "hint", "off"];
const SGCONFIG_KEYS = ["ruleDirs", "utilDirs", "testConfigs", "languageGlobs"];
const UNSUPPORTED_SGCONFIG: Record<string, string> = {
  customLanguages:
    "customLanguages is not supported by tollgate (it needs tree-sitter parsers compiled for the ast-grep CLI); remove it or run those rules with ast-grep",
  languageInjections: "languageInjections is not supported by tollgate (napi parses each file in one language); remove it or run those rules with ast-grep",
};

/** ast-grep's language names (and the aliases it accepts) → tollgate's language, if it has it. */
function langOfRule(name: string): LangInfo | undefined {
  const n = name.trim().toLowerCase();
  return LANGS.find((l) => l.id.toLowerCase() === n || l.aliases.includes(n) || l.name.toLowerCase() === n);
}

export interface RuleSet {
  rules: ScanRule[];
  skipped: SkippedRule[];
  /** Unknown keys the rules hold where ast-grep ignores them (check.ts ignoredKeys). */
  warnings: Issue[];
  config?: ProjectConfig;
}

interface RuleSources {
  /** Directory `rules` globs and `config` are relative to (the recipe's). */
  baseDir: string;
  /** How file names are shown in messages (relative to this). */
  displayBase: string;
  config?: string;
  rules?: Array<string | Record<string, unknown>>;
  /** Where inline rule objects come from, for messages. */
  inlineOrigin?: { file: string; line: number; col: number };
}

function readText(file: string, shown: string, issues: Issue[]): string | undefined {
  // Rule files are reached through a recipe: read only if regular, so a FIFO or a
  // device named as a rule file is refused instead of hanging or reading without end.
  try {
    return readRegularFileSync(file).toString("utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EISDIR") {
      issues.push({ file: shown, message: "it is a directory, not a YAML file" });
      return undefined;
    }
    if (err instanceof NotRegularFileError) {
      issues.push({ file: shown, message: `${err.kind}, not a regular file: refused` });
      return undefined;
    }
    issues.push({ file: shown, message: code === "ENOENT" ? "file not found" : `cannot read: ${messageOf(err)}` });
    return undefined;
  }
}

/**
 * YAML documents of a file (rules, utils, rule tests), each with a checking context and its
 * aliases expanded; YAML syntax errors become issues, empty documents are left out.
 */
export function yamlDocuments(file: string, text: string, issues: Issue[], warnings: Issue[] = []): Array<{ ctx: CheckCtx; root: Node }> {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: true, strict: true, prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [];
  const out: Array<{ ctx: CheckCtx; root: Node }> = [];
  for (const doc of list) {
    const ctx: CheckCtx = { file, lines, issues, warnings };
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const p = e.linePos?.[0] ?? lines.linePos(e.pos?.[0] ?? 0);
        issues.push({ file, line: p.line, col: p.col, message: yamlErrorText(e.message) });
      }
      continue;
    }
    if (doc.contents === null) continue; // an empty document (a trailing ---)
    if (!expandAliases(ctx, doc)) continue;
    out.push({ ctx, root: doc.contents });
  }
  return out;
}

function listYaml(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (/\.ya?ml$/i.test(e.name)) out.push(abs);
    }
  };
  walk(dir);
  return out;
}

/** Reads an sgconfig.yml. */
export function readProjectConfig(file: string, displayBase: string, issues: Issue[]): ProjectConfig | undefined {
  const shown = displayPath(file, displayBase);
  const text = readText(file, shown, issues);
  if (text === undefined) return undefined;
  const docs = yamlDocuments(shown, text, issues);
  if (docs.length === 0) {
    if (!issues.some((i) => i.file === shown)) issues.push({ file: shown, message: "empty sgconfig" });
    return undefined;
  }
  const { ctx, root } = docs[0]!;
  const map = entries(ctx, root, "sgconfig");
  if (!map) return undefined;
  onlyKeys(ctx, map, SGCONFIG_KEYS, "sgconfig", UNSUPPORTED_SGCONFIG);
  const dir = path.dirname(file);
  const config: ProjectConfig = { file, dir, ruleDirs: [], utilDirs: [], testConfigs: [], languageGlobs: {} };
  const dirs = (key: "ruleDirs" | "utilDirs") => {
    const e = map.get(key);
    if (!e) return;
    for (const [i, d] of (strList(ctx, e.value, key) ?? []).entries()) {
      const abs = path.resolve(dir, d);
      let ok: boolean;
      try {
        ok = statSync(abs).isDirectory();
      } catch {
        ok = false;
      }
      const at = isSeq(e.value) ? (e.value.items[i] as Node) : e.value;
      if (!ok) issue(ctx, at, `${key}: ${d} is not a directory (relative to ${displayPath(dir, displayBase) || "."})`);
      else config[key].push(abs);
    }
  };
  dirs("ruleDirs");
  dirs("utilDirs");
  const tc = map.get("testConfigs");
  if (tc) {
    if (!isSeq(tc.value)) issue(ctx, tc.value, "testConfigs must be a list of { testDir, snapshotDir }");
    else
      for (const item of tc.value.items) {
        const m = entries(ctx, item as Node, "testConfigs entry");
        if (!m) continue;
        onlyKeys(ctx, m, ["testDir", "snapshotDir"], "testConfigs entry");
        const t = m.get("testDir");
        if (!t) {
          issue(ctx, item as Node, "testConfigs entry needs testDir");
          continue;
        }
        const testDir = str(ctx, t.value, "testDir");
        const snap = m.get("snapshotDir") ? str(ctx, m.get("snapshotDir")!.value, "snapshotDir") : undefined;
        if (testDir !== undefined) config.testConfigs.push({ testDir: path.resolve(dir, testDir), ...(snap ? { snapshotDir: snap } : {}) });
      }
  }
  const lg = map.get("languageGlobs");
  if (lg) {
    const m = entries(ctx, lg.value, "languageGlobs");
    for (const [name, { key, value }] of m ?? []) {
      const lang = langOfRule(name);
      const globs = strList(ctx, value, `languageGlobs.${name}`) ?? [];
      if (!lang) issue(ctx, key, `languageGlobs: unsupported language "${name}"`);
      else config.languageGlobs[lang.id] = [...(config.languageGlobs[lang.id] ?? []), ...globs];
    }
  }
  return config;
}

function checkRuleMap(ctx: CheckCtx, node: Node | null | undefined, what: string): Record<string, RuleObject> | undefined {
  const map = entries(ctx, node, what);
  if (!map) return undefined;
  const out: Record<string, RuleObject> = {};
  for (const [name, { key, value }] of map) {
    if (what === "utils") checkUtilId(ctx, key, name);
    const r = checkRule(ctx, value, `${what}.${name}`);
    if (r) out[name] = r;
  }
  return out;
}

/**
 * ast-grep refuses a utility id that is empty or holds `(`, `)`, `,` or `=` (reserved for
 * parameterized utilities: crates/config/src/rule/parameterized_util.rs); napi says only that
 * "`utils` is not configured correctly", so the id is checked here with the CLI's words.
 */
function checkUtilId(ctx: CheckCtx, at: Node, id: string): void {
  if (id === "" || /[(),=]/.test(id)) issue(ctx, at, `Utility id \`${id}\` contains reserved characters.`);
}

function checkRewriters(ctx: CheckCtx, node: Node | null | undefined): Rewriter[] | undefined {
  if (!isSeq(node)) {
    issue(ctx, node, "rewriters must be a list of { id, rule, fix, ... }");
    return undefined;
  }
  const out: Rewriter[] = [];
  const ids = new Set<string>();
  for (const item of node.items) {
    const m = entries(ctx, item as Node, "rewriter");
    if (!m) continue;
    ignoredKeys(ctx, m, ["id", "rule", "constraints", "utils", "transform", "fix"], "rewriter");
    const id = m.get("id") ? str(ctx, m.get("id")!.value, "rewriter id") : undefined;
    if (!m.has("id")) issue(ctx, item as Node, "rewriter needs id");
    if (id && ids.has(id)) issue(ctx, m.get("id")!.value, `duplicate rewriter id "${id}"`);
    if (id) ids.add(id);
    if (!m.has("rule")) issue(ctx, item as Node, "rewriter needs rule");
    if (!m.has("fix")) issue(ctx, item as Node, "Rewriter must have exactly one fixer (fix)");
    const rule = m.get("rule") ? checkRule(ctx, m.get("rule")!.value, "rewriter rule") : undefined;
    const fix = m.get("fix") ? checkFix(ctx, m.get("fix")!.value) : undefined;
    const constraints = m.get("constraints") ? checkRuleMap(ctx, m.get("constraints")!.value, "constraints") : undefined;
    const utils = m.get("utils") ? checkRuleMap(ctx, m.get("utils")!.value, "utils") : undefined;
    const transform = m.get("transform") ? checkTransform(ctx, m.get("transform")!.value) : undefined;
    if (id && rule && fix)
      out.push({ id, rule, fix, ...(constraints ? { constraints } : {}), ...(utils ? { utils } : {}), ...(transform ? { transform } : {}) });
  }
  return out;
}

interface RawRule {
  rule: ScanRule | undefined;
  skipped?: SkippedRule;
  ctx: CheckCtx;
  nodes: Map<string, { key: Node; value: Node | null | undefined }>;
  root: Node | null;
}

function globList(ctx: CheckCtx, node: Node | null | undefined, what: string): string[] | undefined {
  if (isSeq(node)) {
    const out: string[] = [];
    for (const item of node.items) {
      if (isMap(item)) {
        const m = entries(ctx, item, `${what} entry`)!;
        onlyKeys(ctx, m, ["glob", "caseInsensitive"], `${what} entry`);
        const g = m.get("glob") ? str(ctx, m.get("glob")!.value, `${what} glob`) : undefined;
        if (g) out.push(g);
        else if (!m.has("glob")) issue(ctx, item, `${what} entry needs glob`);
      } else {
        const g = str(ctx, item as Node, `${what} entry`);
        if (g !== undefined) out.push(g);
      }
    }
    return out;
  }
  return strList(ctx, node, what);
}

type Entries = Map<string, { key: Node; value: Node | null | undefined }>;

function readSeverity(ctx: CheckCtx, map: Entries): Severity {
  const node = map.get("severity")?.value;
  if (!node) return "hint";
  const s = str(ctx, node, "severity");
  if (s !== undefined && !SEVERITIES.includes(s as Severity)) {
    issue(ctx, node, `severity must be one of ${SEVERITIES.join(", ")}, got "${s}"`);
    return "hint";
  }
  return s ? (s as Severity) : "hint";
}

/** `labels`: name → { style: primary | secondary, message }. */
function readLabels(ctx: CheckCtx, node: Node | null | undefined): NonNullable<ScanRule["labels"]> {
  const labels: NonNullable<ScanRule["labels"]> = {};
  for (const [name, { value }] of entries(ctx, node, "labels") ?? []) {
    const lm = entries(ctx, value, `labels.${name}`);
    if (!lm) continue;
    ignoredKeys(ctx, lm, ["style", "message"], `labels.${name}`);
    const style = lm.get("style") ? str(ctx, lm.get("style")!.value, "style") : undefined;
    if (style !== "primary" && style !== "secondary") issue(ctx, lm.get("style")?.value ?? value, `labels.${name}.style must be primary or secondary`);
    const msg = lm.get("message") ? str(ctx, lm.get("message")!.value, "message") : undefined;
    labels[name] = { style: style === "primary" ? "primary" : "secondary", ...(msg !== undefined ? { message: msg } : {}) };
  }
  return labels;
}

/** Cross references: a rewrite transform (the rule's or a rewriter's) names rewriters of this rule. */
function checkRewriterRefs(ctx: CheckCtx, at: Node | null, transform: Record<string, Transformation> | undefined, rewriters: Rewriter[] | undefined): void {
  const rewriterIds = new Set((rewriters ?? []).map((r) => r.id));
  for (const t of [transform, ...(rewriters ?? []).map((r) => r.transform)]) {
    for (const [name, tr] of Object.entries(t ?? {})) {
      if (!("rewrite" in tr)) continue;
      for (const rid of tr.rewrite.rewriters)
        if (!rewriterIds.has(rid)) issue(ctx, at, `transform.${name}: rewriter "${rid}" is not defined in this rule's rewriters`);
    }
  }
}

/** Checks one rule document. */
function readRule(ctx: CheckCtx, root: Node | null): RawRule {
  const map = entries(ctx, root, "rule file document");
  const empty = new Map<string, { key: Node; value: Node | null | undefined }>();
  if (!map) return { rule: undefined, ctx, nodes: empty, root };
  const before = ctx.issues.length;
  onlyKeys(ctx, map, TOP_KEYS, "rule");
  const origin = { file: ctx.file, ...posOf(ctx, root) };
  const id = map.get("id") ? str(ctx, map.get("id")!.value, "id") : undefined;
  if (!map.has("id")) issue(ctx, root, "rule needs an id");
  const language = map.get("language") ? str(ctx, map.get("language")!.value, "language") : undefined;
  if (!map.has("language")) issue(ctx, root, "rule needs a language");
  if (!map.has("rule")) issue(ctx, root, "rule needs a `rule` object");
  const rule = map.get("rule") ? checkRule(ctx, map.get("rule")!.value, "rule") : undefined;
  const constraints = map.get("constraints") ? checkRuleMap(ctx, map.get("constraints")!.value, "constraints") : undefined;
  const utils = map.get("utils") ? checkRuleMap(ctx, map.get("utils")!.value, "utils") : undefined;
  const transform = map.get("transform") ? checkTransform(ctx, map.get("transform")!.value) : undefined;
  const rewriters = map.get("rewriters") ? checkRewriters(ctx, map.get("rewriters")!.value) : undefined;
  const fix = map.get("fix") ? checkFix(ctx, map.get("fix")!.value) : undefined;
  const files = map.get("files") ? globList(ctx, map.get("files")!.value, "files") : undefined;
  const ignores = map.get("ignores") ? globList(ctx, map.get("ignores")!.value, "ignores") : undefined;
  const severity = readSeverity(ctx, map);
  const text = (key: string) => (map.get(key) ? str(ctx, map.get(key)!.value, key) : undefined);
  const message = text("message") ?? "";
  const note = text("note");
  const url = text("url");
  const metadata =
    map.get("metadata") && entries(ctx, map.get("metadata")!.value, "metadata") ? (plain(map.get("metadata")!.value) as Record<string, unknown>) : undefined;
  const labels = map.get("labels") ? readLabels(ctx, map.get("labels")!.value) : undefined;
  checkRewriterRefs(ctx, map.get("transform")?.value ?? root, transform, rewriters);
  const nodes = map;
  if (ctx.issues.length === before && rule) checkRuleVars(ctx, root, { rule, constraints, utils, transform, rewriters, labels });
  if (ctx.issues.length > before || !id || !language || !rule) return { rule: undefined, ctx, nodes, root };
  const lang = langOfRule(language);
  if (!lang) return { rule: undefined, skipped: { id, language, reason: `language ${language} is not supported by tollgate`, origin }, ctx, nodes, root };
  const out: ScanRule = {
    id,
    lang: lang.id,
    rule,
    severity,
    message,
    origin,
    ...(constraints && Object.keys(constraints).length ? { constraints } : {}),
    ...(utils && Object.keys(utils).length ? { utils } : {}),
    ...(transform && Object.keys(transform).length ? { transform } : {}),
    ...(rewriters ? { rewriters } : {}),
    ...(fix ? { fix } : {}),
    ...(files ? { files } : {}),
    ...(ignores ? { ignores } : {}),
    ...(note !== undefined ? { note } : {}),
    ...(url !== undefined ? { url } : {}),
    ...(metadata ? { metadata } : {}),
    ...(labels ? { labels } : {}),
  };
  return { rule: out, ctx, nodes, root };
}

function readUtils(dirs: string[], displayBase: string, issues: Issue[], warnings: Issue[]): GlobalUtil[] {
  const out: GlobalUtil[] = [];
  for (const dir of dirs) {
    for (const file of listYaml(dir)) {
      const shown = displayPath(file, displayBase);
      const text = readText(file, shown, issues);
      if (text === undefined) continue;
      for (const { ctx, root } of yamlDocuments(shown, text, issues, warnings)) {
        const map = entries(ctx, root, "utility rule");
        if (!map) continue;
        ignoredKeys(ctx, map, ["id", "language", "rule", "utils"], "utility rule");
        const id = map.get("id") ? str(ctx, map.get("id")!.value, "id") : undefined;
        const language = map.get("language") ? str(ctx, map.get("language")!.value, "language") : undefined;
        if (!id) issue(ctx, root, "utility rule needs an id");
        else checkUtilId(ctx, map.get("id")!.value as Node, id);
        if (!language) issue(ctx, root, "utility rule needs a language");
        const rule = map.get("rule") ? checkRule(ctx, map.get("rule")!.value, "rule") : undefined;
        if (!map.has("rule")) issue(ctx, root, "utility rule needs a `rule` object");
        const utils = map.get("utils") ? checkRuleMap(ctx, map.get("utils")!.value, "utils") : undefined;
        const lang = language ? langOfRule(language) : undefined;
        if (id && rule && lang) out.push({ id, lang: lang.id, rule, ...(utils ? { utils } : {}) });
      }
    }
  }
  return out;
}

/** napi's judgement of a rule (patterns parse, utils exist, a kind-fixing key is present). */
/**
 * napi's message with its chain of causes (" |->" lines) on one line, the last cause naming the
 * culprit (\`Rule \`b\` has a cyclic dependency…\`); a regex error's caret line is dropped.
 */
function napiRuleError(err: unknown): string {
  const parts = String((err as Error)?.message ?? err)
    .split("\n")
    .map((l) =>
      l
        .replace(/^\s*\|->\s*/, "")
        .trim()
        .replace(/\.$/, ""),
    )
    .filter((l) => l !== "" && !/^\^+$/.test(l));
  return `${parts.reduce((out, p) => (out === "" ? p : out.endsWith(":") ? `${out} ${p}` : `${out}: ${p}`), "")}.`;
}

async function napiCheck(rules: RawRule[], issues: Issue[]): Promise<void> {
  if (rules.length === 0) return;
  const napi = await loadNapi();
  ensureLanguages(napi, [...new Set(rules.map((r) => r.rule!.lang))]);
  const roots = new Map<string, ReturnType<ReturnType<typeof napi.parse>["root"]>>();
  const rootOf = (lang: string) => {
    let r = roots.get(lang);
    if (!r) roots.set(lang, (r = napi.parse(lang, "").root()));
    return r;
  };
  const tryConfig = (raw: RawRule, config: Record<string, unknown>, node: Node | null | undefined, what: string) => {
    try {
      rootOf(raw.rule!.lang).find(config as never);
    } catch (err) {
      issue(raw.ctx, node ?? raw.root, `${what}: ${napiRuleError(err)}`);
    }
  };
  for (const raw of rules) {
    const r = raw.rule!;
    const before = issues.length;
    // A rule without node kinds is refused as the CLI refuses it (patterns parsed for an ERROR root).
    if (!hasPotentialKinds(r.rule, r.utils, (p) => patternRootIsError(napi, r.lang, p))) {
      issue(raw.ctx, raw.nodes.get("rule")?.value ?? raw.root, MISSING_KINDS);
      raw.rule = undefined;
      continue;
    }
    tryConfig(raw, napiConfigOf(r), raw.nodes.get("rule")?.value, `rule ${r.id}`);
    for (const rw of r.rewriters ?? []) {
      tryConfig(
        raw,
        { rule: rw.rule, ...(rw.constraints ? { constraints: rw.constraints } : {}), utils: { ...r.utils, ...rw.utils } },
        raw.nodes.get("rewriters")?.value,
        `rewriter ${rw.id}`,
      );
    }
    for (const [which, e] of [
      ["expandStart", r.fix?.expandStart],
      ["expandEnd", r.fix?.expandEnd],
    ] as const) {
      if (!e) continue;
      tryConfig(raw, { rule: e.rule, ...(r.utils ? { utils: r.utils } : {}) }, raw.nodes.get("fix")?.value, `fix.${which}`);
      if (typeof e.stopBy === "object")
        tryConfig(raw, { rule: e.stopBy.rule, ...(r.utils ? { utils: r.utils } : {}) }, raw.nodes.get("fix")?.value, `fix.${which}.stopBy`);
    }
    if (issues.length > before) raw.rule = undefined;
  }
}

/**
 * What napi is given for a rule: the rule object, constraints, utils, and the transforms napi
 * can evaluate itself (replace, substring, convert; not rewrite and what depends on one).
 */
export function napiConfigOf(r: Pick<ScanRule, "rule" | "constraints" | "utils" | "transform">): Record<string, unknown> {
  const transform = napiTransforms(r.transform);
  return {
    rule: r.rule,
    ...(r.constraints ? { constraints: r.constraints } : {}),
    ...(r.utils ? { utils: r.utils } : {}),
    ...(transform ? { transform } : {}),
  };
}

/** Transforms napi evaluates: those not depending (transitively) on a rewrite. */
function napiTransforms(transform: ScanRule["transform"]): Record<string, unknown> | undefined {
  if (!transform) return undefined;
  const local = localTransformNames(transform);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(transform)) if (!local.has(k)) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** Transforms tollgate evaluates: rewrites, and transforms whose source is one of them. */
export function localTransformNames(transform: NonNullable<ScanRule["transform"]>): Set<string> {
  const local = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [k, v] of Object.entries(transform)) {
      if (local.has(k)) continue;
      const kind = Object.keys(v)[0];
      const src = transformSource(v).replace(/^\$+/, "");
      if (kind === "rewrite" || local.has(src)) {
        local.add(k);
        grew = true;
      }
    }
  }
  return local;
}

/**
 * Loads every rule of a scan: sgconfig's ruleDirs, `rules` files/globs/inline objects. Throws
 * InputError listing every problem. Duplicate ids are errors (ids name pending actions).
 */
export async function loadRuleSet(src: RuleSources): Promise<RuleSet> {
  const issues: Issue[] = [];
  const warnings: Issue[] = [];
  let config: ProjectConfig | undefined;
  const files: string[] = [];
  if (src.config !== undefined) {
    config = readProjectConfig(path.resolve(src.baseDir, src.config), src.displayBase, issues);
    for (const d of config?.ruleDirs ?? []) files.push(...listYaml(d));
  }
  const raws: RawRule[] = [];
  for (const [i, entry] of (src.rules ?? []).entries()) {
    if (typeof entry === "string") {
      const matched = await expandRuleGlob(src.baseDir, entry);
      if (matched.length === 0) issues.push({ ...(src.inlineOrigin ?? {}), message: `rules[${i}]: no rule file matches ${entry}` });
      files.push(...matched);
    } else {
      // An inline rule object: re-read as YAML so it is checked the same way.
      const shown = `${src.inlineOrigin?.file ?? "recipe"} rules[${i}]`;
      for (const { ctx, root } of yamlDocuments(shown, stringify(entry), issues, warnings)) raws.push(readRule(ctx, root));
    }
  }
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file)) continue;
    seen.add(file);
    const shown = displayPath(file, src.displayBase);
    const text = readText(file, shown, issues);
    if (text === undefined) continue;
    for (const { ctx, root } of yamlDocuments(shown, text, issues, warnings)) raws.push(readRule(ctx, root));
  }
  const utils = readUtils(config?.utilDirs ?? [], src.displayBase, issues, warnings);
  for (const raw of raws) {
    if (!raw.rule) continue;
    const globals: Record<string, RuleObject> = {};
    for (const u of utils) if (u.lang === raw.rule.lang) Object.assign(globals, u.utils, { [u.id]: u.rule });
    if (Object.keys(globals).length > 0) raw.rule.utils = { ...globals, ...raw.rule.utils };
  }
  const ok = raws.filter((r) => r.rule);
  await napiCheck(ok, issues);
  const ids = new Map<string, string>();
  for (const raw of raws) {
    const id = raw.rule?.id ?? raw.skipped?.id;
    if (!id) continue;
    const where = `${raw.ctx.file}:${posOf(raw.ctx, raw.root).line}`;
    if (ids.has(id)) issue(raw.ctx, raw.nodes.get("id")?.value ?? raw.root, `duplicate rule id "${id}" (also ${ids.get(id)})`);
    else ids.set(id, where);
  }
  if (issues.length > 0) throw new InputError(issues);
  if (raws.length === 0) throw new InputError([{ ...(src.inlineOrigin ?? {}), message: "ast_scan: no rules found (config's ruleDirs and rules are empty)" }]);
  return {
    rules: raws.flatMap((r) => (r.rule ? [r.rule] : [])),
    skipped: raws.flatMap((r) => (r.skipped ? [r.skipped] : [])),
    warnings,
    ...(config ? { config } : {}),
  };
}

async function expandRuleGlob(baseDir: string, entry: string): Promise<string[]> {
  if (!/[*?[\]{}]/.test(entry)) {
    const abs = path.resolve(baseDir, entry);
    try {
      if (statSync(abs).isDirectory()) return listYaml(abs);
    } catch {
      // not there: read it anyway so the message says "file not found"
    }
    return [abs];
  }
  const { glob } = await import("tinyglobby");
  return (await glob(entry, { cwd: baseDir, absolute: true, onlyFiles: true })).sort();
}
