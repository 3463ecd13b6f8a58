/**
 * One traversal of a syntax tree for many matchers (ast_edit's ops, ast_scan's rules): every
 * matcher's matches and the tree's ERROR nodes come from a single `findAll` with an `any` of
 * all of them, instead of one walk per matcher (a walk of a large tree costs about as much as
 * the match itself). A node found by the combined rule is then checked against each matcher
 * (`matches`), and its captures are read from the matcher's own match (`find` on the node
 * returns the node itself first), so constraints, utils and transforms behave as in a lone
 * `findAll` with that matcher.
 */
import type { Napi } from "./langs.js";
import type { PatternRequirement } from "./pattern.js";
import type { RawMatch } from "./rewrite.js";
import { Intervals } from "./intervals.js";

export type SgNode = ReturnType<ReturnType<Napi["parse"]>["root"]>;

/** A napi rule object (`NapiConfig`: rule, constraints, utils, transform). */
export type RuleConfig = {
  rule: Record<string, unknown>;
  constraints?: Record<string, unknown>;
  utils?: Record<string, unknown>;
  transform?: Record<string, unknown>;
} & Record<string, unknown>;

export interface EngineOp {
  /** The pattern (ast_edit, ast_grep); ignored when `config` is given. */
  pat: string;
  /** A napi rule object used as the matcher instead of `pat` (ast_scan's rules). */
  config?: RuleConfig | undefined;
  /** Captures to extract: name → multi. */
  captures: Record<string, boolean>;
  /** Every capture the matcher declares (for the syntax-error check); default: `captures`. */
  all?: Record<string, boolean>;
}

/** The napi matcher of an op. */
export function opConfig(op: Pick<EngineOp, "pat" | "config">, sel: string | undefined): RuleConfig {
  if (op.config) return op.config;
  return { rule: { pattern: sel ? { context: op.pat, selector: sel } : op.pat } };
}

export interface Found {
  node: SgNode;
  match: RawMatch;
  /** The prefix of the capture names in the node's env (an op's renamed metavariables), if any. */
  prefix?: string;
}

/**
 * The rules that find a parse's syntax errors: ERROR nodes, and the zero-width tokens that
 * tree-sitter invents to carry on (MISSING; napi has no other way to tell them).
 */
const SYNTAX_ERRORS = [{ kind: "ERROR" }, { regex: "^$" }];

/** What a walk finds: the matches, the ERROR nodes' ranges, and each MISSING token's place and parent's range. */
export interface Walked {
  found: Found[];
  errors: Array<[number, number]>;
  missing: Missing[];
  /** The ERROR nodes by "start:end" (file offsets; nested ones can share one), for `bracketsOf` where a match holds one. */
  errorNodes?: Map<string, SgNode[]>;
  /**
   * The ranges of the siblings right before and after each ERROR node that hold no match found:
   * where recovery stopped skipping, it glued the text on either side into whatever parsed (a
   * template opened by a stray backtick, a call made of the parentheses after the error), so a
   * match there may be lost. One holding a found match was parsed as that construct. Found when
   * asked, and not for an error whose parent lies where `settled` says the matches are known
   * (its siblings lie there too).
   */
  glued?: (settled: Settled) => Array<[number, number]>;
}

/** Whether a range (file offsets) lies where the matches are already known. */
export type Settled = (start: number, end: number) => boolean;

const PAIRS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * The range of an ERROR node's parent when that parent is closed by real brackets of one pair
 * (its first and last children), else null: recovery then stayed inside those brackets.
 */
function bracketsOf(error: SgNode, offset: number): [number, number] | null {
  const parent = error.parent();
  if (!parent || parent.kind() === "ERROR") return null;
  const kids = parent.children();
  const first = kids[0];
  const last = kids[kids.length - 1];
  if (!first || !last || kids.length < 2) return null;
  if (PAIRS[first.text()] === undefined || PAIRS[first.text()] !== last.text()) return null;
  const [start, end] = spanOf(parent);
  return [start + offset, end + offset];
}

/** An invented token: its offset and the [start, end) of the node holding it. */
type Missing = [at: number, start: number, end: number];

export interface TraverseOptions {
  /** Kinds of string-like nodes whose inner lines a rewrite never re-indents. */
  stringKinds?: readonly string[] | undefined;
  /**
   * The text the walked root's offsets index once shifted by the walk's offset (the whole file's
   * text): node texts are then read from it, not asked of napi.
   */
  source?: string | undefined;
  /** Per op (by index), the text a match must contain (the prefilter's requirement), if known. */
  requirements?: ReadonlyArray<CompiledRequirement | null> | undefined;
  /**
   * The ops (by index) whose matches are kept, when the walked rule combines more ops than the
   * text can match (a rule shared by every file of a job, some lacking an op's fixed string).
   */
  keep?: ReadonlySet<number> | undefined;
}

/** A prefilter requirement with its runs compiled (no `g` flag: `test` keeps no state). */
export interface CompiledRequirement {
  words: readonly string[];
  runs: readonly RegExp[];
  /** PatternRequirement.file: asked of whole files only. */
  file?: string | undefined;
}

export function compileRequirement(req: PatternRequirement): CompiledRequirement {
  return { words: req.words, runs: req.runs.map((source) => new RegExp(source)), file: req.file };
}

/** Whether `text` holds every word and run of the requirement. */
export function meets(req: CompiledRequirement, text: string): boolean {
  return req.words.every((w) => text.includes(w)) && req.runs.every((r) => r.test(text));
}

/** The marker capture's name prefix (an op's letters follow); no pattern of a user's names it. */
const MARK = "TOLLGATE_OP_";

/**
 * An op's index spelled in capital letters (0 → A, 25 → Z, 26 → BA): a metavariable name with a
 * digit is no metavariable in every language (JSON's lexer splits `$A0`), letters always are.
 */
function opLetters(k: number): string {
  let out = "";
  do {
    out = String.fromCharCode(65 + (k % 26)) + out;
    k = Math.floor(k / 26);
  } while (k > 0);
  return out;
}

function captureNodes(node: SgNode, name: string, multi: boolean): SgNode[] {
  if (multi) {
    const many = node.getMultipleMatches(name);
    if (many.length > 0) return many;
    const one = node.getMatch(name);
    return one ? [one] : [];
  }
  const one = node.getMatch(name);
  if (one) return [one];
  // `$A` written in the template for a `$$$A` capture, or vice versa.
  return node.getMultipleMatches(name);
}

/**
 * A node's [start, end) in its root's text (UTF-16 offsets). napi's `replace` reports exactly
 * `range()`'s offsets in one object, without the line and column objects `range()` builds.
 */
export function spanOf(node: SgNode): [number, number] {
  const e = node.replace("");
  return [e.startPos, e.endPos];
}

function rangeOf(nodes: readonly SgNode[], offset: number): [number, number] | null {
  if (nodes.length === 0) return null;
  const start = spanOf(nodes[0]!)[0];
  const end = nodes.length === 1 ? spanOf(nodes[0]!)[1] : spanOf(nodes[nodes.length - 1]!)[1];
  return [start + offset, end + offset];
}

function sameRange(a: SgNode, b: SgNode): boolean {
  const [xs, xe] = spanOf(a);
  const [ys, ye] = spanOf(b);
  return xs === ys && xe === ye;
}

/** Ranges of every capture an op declares (the text a rewrite copies verbatim). */
function allCaptureRanges(node: SgNode, op: EngineOp, offset: number, prefix = ""): Array<[number, number]> {
  return Object.entries(op.all ?? op.captures)
    .map(([name, multi]) => rangeOf(captureNodes(node, prefix + name, multi), offset))
    .filter((c): c is [number, number] => c !== null);
}

/** Merges the ops' utils into one map, or undefined when two define the same id differently. */
function mergedUtils(configs: readonly RuleConfig[]): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const c of configs) {
    for (const [id, rule] of Object.entries(c.utils ?? {})) {
      if (id in out && JSON.stringify(out[id]) !== JSON.stringify(rule)) return undefined;
      out[id] = rule;
    }
  }
  return out;
}

/**
 * The single rule that finds, in one walk, every active op's candidates and the ERROR nodes,
 * with what is needed to tell which op a found node matched (see `combine`). Built once per
 * set of ops; the same value serves a walk in this thread (`root.findAll(rule)`) and napi's
 * `findInFiles`, which walks in its own threads and hands back the nodes.
 */
export interface Combined {
  ops: readonly EngineOp[];
  active: readonly number[];
  sel: string | undefined;
  configs: RuleConfig[];
  /** The napi rule object: an `any` of the ops' branches and `{ kind: ERROR }`. */
  rule: RuleConfig;
  plain: boolean[];
  token: boolean[];
  idOf: string[];
  prefixOf: string[];
}

/**
 * The combined rule of the active ops, or null when two ops define the same util id
 * differently (then each op needs a walk of its own: `traverse` does that).
 */
export function combine(ops: readonly EngineOp[], active: readonly number[], sel: string | undefined): Combined | null {
  const configs = active.map((i) => opConfig(ops[i]!, sel));
  const utils = mergedUtils(configs);
  if (utils === undefined) return null;
  // Ops whose captures can be read off the combined match: plain rules (no constraints or
  // transform) are tried by `any` in order, so the first of them that matches owns the env.
  const plain = configs.map((c) => Object.keys(c).every((k) => k === "rule"));
  // Which op a node found by the combined rule matched first: each op's branch also captures
  // the node under a marker name, so the node's env says which op matched first without asking
  // napi again (`matches` compiles its rule on every call, ~0.1 ms). A pattern is used as
  // written: renaming its metavariables changes the lengths tree-sitter weighs when it recovers
  // from an error in the pattern (`if (!s) $B $$$A` parses otherwise with longer names). The
  // marker is `$$X`, which matches unnamed nodes too (a rule object's `regex` on a keyword); an
  // op that is a bare token (`}`) gets a plain branch after the others.
  const token = active.map((i) => !ops[i]!.config && !/[A-Za-z0-9_$]/.test(ops[i]!.pat));
  const idOf = configs.map((_, k) => `${MARK}${opLetters(k)}`);
  const prefixOf = configs.map(() => "");
  const branches = configs.map((c, k) => ({ all: [c.rule, { pattern: `$$${idOf[k]}` }] }));
  const fallback = configs.filter((_, k) => token[k]).map((c) => c.rule);
  const rule = { rule: { any: [...branches, ...fallback, ...SYNTAX_ERRORS] }, ...(Object.keys(utils).length > 0 ? { utils } : {}) };
  return { ops, active, sel, configs, rule, plain, token, idOf, prefixOf };
}

/**
 * Matches of every op in `root` (offsets shifted by `offset`, the root's position in the file)
 * and the ERROR nodes' ranges. Matches resting on a syntax error are flagged `bad` (see
 * flagErrors); nothing is dropped here.
 */
export function traverse(
  root: SgNode,
  ops: readonly EngineOp[],
  active: readonly number[],
  sel: string | undefined,
  offset: number,
  options: TraverseOptions = {},
): Walked {
  if (active.length === 0) return { found: [], errors: [], missing: [] };
  const c = combine(ops, active, sel);
  if (c === null) {
    // Conflicting util ids: one walk per op (rare; each op keeps its own utils).
    const found: Found[] = [];
    for (const i of active) {
      const config = opConfig(ops[i]!, sel);
      for (const node of root.findAll(config as never)) found.push(foundOf(node, ops, i, offset, options));
    }
    const { errors, missing, errorNodes } = syntaxErrors(root.findAll({ rule: { any: SYNTAX_ERRORS } }), offset);
    flagErrors(found, errors, missing, errorNodes, ops, offset);
    return { found, errors, missing, errorNodes, glued: (settled) => matchless(gluedNear(errorNodes, offset, settled), found, active) };
  }
  let nodes: SgNode[];
  try {
    nodes = root.findAll(c.rule as never);
  } catch {
    // A language where a lone metavariable is no pattern: no markers; each node the plain
    // `any` finds is asked op by op.
    const plainAny = { ...c.rule, rule: { any: [...c.configs.map((x) => x.rule), ...SYNTAX_ERRORS] } };
    return collect(root.findAll(plainAny as never), c, offset, options, true);
  }
  return collect(nodes, c, offset, options);
}

/**
 * Kinds of nodes that are empty in clean code (HTML's `<script src=…></script>` has an empty
 * `raw_text`), not invented tokens.
 */
const EMPTY_KINDS = new Set(["raw_text"]);

/** A zero-width leaf below the root: a token tree-sitter invented (MISSING). */
function isMissing(node: SgNode): boolean {
  const [start, end] = spanOf(node);
  return isMissingAt(node, String(node.kind()), start, end);
}

/** isMissing with the node's kind and span already read (each napi call costs). */
function isMissingAt(node: SgNode, kind: string, start: number, end: number): boolean {
  return start === end && node.isLeaf() && !EMPTY_KINDS.has(kind) && node.parent() !== null;
}

/** A neighbour of an ERROR node: its range, and whether it is a string-like literal. */
type Glued = [start: number, end: number, literal: boolean];

/** Kinds of string-like literals in every grammar (string, template_string, string_literal, …). */
const LITERAL = /string|template/;

/** The ranges of the ERROR nodes' neighbouring siblings (see Walked.glued), for errors whose parent is not settled. */
function gluedNear(errorNodes: ReadonlyMap<string, readonly SgNode[]>, offset: number, settled: Settled): Glued[] {
  const glued: Glued[] = [];
  for (const same of errorNodes.values()) {
    for (const error of same) {
      const parent = error.parent();
      if (parent) {
        const [ps, pe] = spanOf(parent);
        if (settled(ps + offset, pe + offset)) continue;
      }
      for (const n of [error.prev(), error.next()]) {
        if (!n) continue;
        const [start, end] = spanOf(n);
        if (end > start) glued.push([start + offset, end + offset, LITERAL.test(String(n.kind()))]);
      }
    }
  }
  return glued;
}

function addError(errorNodes: Map<string, SgNode[]>, key: string, node: SgNode): void {
  const same = errorNodes.get(key);
  if (same) same.push(node);
  else errorNodes.set(key, [node]);
}

/** An invented token at `start` (its root's offset) as a Missing in file offsets. */
function missingOf(node: SgNode, start: number, offset: number): Missing {
  const at = start + offset;
  const parent = node.parent();
  if (!parent) return [at, at, at];
  const [ps, pe] = spanOf(parent);
  return [at, ps + offset, pe + offset];
}

/** The ERROR ranges and MISSING tokens among nodes found by SYNTAX_ERRORS. */
function syntaxErrors(nodes: readonly SgNode[], offset: number): Pick<Walked, "errors" | "missing"> & { errorNodes: Map<string, SgNode[]> } {
  const errors: Array<[number, number]> = [];
  const missing: Missing[] = [];
  const errorNodes = new Map<string, SgNode[]>();
  for (const n of nodes) {
    const kind = String(n.kind());
    const [start, end] = spanOf(n);
    if (kind === "ERROR") {
      errors.push([start + offset, end + offset]);
      addError(errorNodes, `${start + offset}:${end + offset}`, n);
    } else if (isMissingAt(n, kind, start, end)) missing.push(missingOf(n, start, offset));
  }
  return { errors, missing, errorNodes };
}

/** Kinds of a template's code parts (`${ … }`, Python's f-string `{ … }`): code, not literal text. */
const SUBSTITUTIONS = new Set(["template_substitution", "interpolation"]);

/**
 * The [start, end) pieces of a string or template literal that are its text: the literal minus
 * its substitutions. A line starting in a substitution is code (the innermost construct decides;
 * a template inside a substitution is found on its own).
 */
function literalText(literal: SgNode, offset: number): Array<[number, number]> {
  const [start, end] = spanOf(literal);
  const out: Array<[number, number]> = [];
  let at = start;
  for (const child of literal.children()) {
    if (!SUBSTITUTIONS.has(String(child.kind()))) continue;
    const [cs, ce] = spanOf(child);
    out.push([at + offset, cs + offset]);
    at = ce;
  }
  out.push([at + offset, end + offset]);
  return out;
}

/**
 * A found node as a match of op `index` (its captures read under `prefix`); `span`: the node's
 * span in its root, when already read.
 */
function foundOf(
  node: SgNode,
  ops: readonly EngineOp[],
  index: number,
  offset: number,
  options: TraverseOptions,
  prefix = "",
  span: [number, number] = spanOf(node),
): Found {
  const op = ops[index]!;
  const captures: Record<string, [number, number] | null> = {};
  let literals: Array<[number, number]> | undefined;
  for (const [name, multi] of Object.entries(op.captures)) {
    const nodes = captureNodes(node, prefix + name, multi);
    const range = rangeOf(nodes, offset);
    captures[name] = range;
    // No line break in the capture's text: none in a literal of it.
    if (range && options.source !== undefined && !hasLineBreak(options.source, range)) continue;
    if (range && options.stringKinds && options.stringKinds.length > 0) {
      for (const n of nodes) {
        if (!n.text().includes("\n")) continue;
        const rule = { rule: { any: options.stringKinds.map((kind) => ({ kind })) } };
        for (const s of n.findAll(rule)) {
          const sr = s.range();
          if (sr.start.line !== sr.end.line) (literals ??= []).push(...literalText(s, offset));
        }
      }
    }
  }
  return {
    node,
    match: { op: index, start: span[0] + offset, end: span[1] + offset, captures, ...(literals ? { literals } : {}) },
    ...(prefix ? { prefix } : {}),
  };
}

/**
 * Records an ERROR node's range or an invented token; says which the node is (an invented token
 * matches no op). The kind is read first: most nodes a walk hands back in a file with errors are
 * ERROR nodes.
 */
function noteSyntax(
  node: SgNode,
  [start, end]: [number, number],
  offset: number,
  into: Pick<Walked, "errors" | "missing"> & { errorNodes: Map<string, SgNode[]> },
): "error" | "missing" | "node" {
  const kind = String(node.kind());
  if (kind === "ERROR") {
    into.errors.push([start + offset, end + offset]);
    addError(into.errorNodes, `${start + offset}:${end + offset}`, node);
    return "error";
  }
  if (!isMissingAt(node, kind, start, end)) return "node";
  into.missing.push(missingOf(node, start, offset));
  return "missing";
}

/** Whether the text holds a line break in [start, end). */
function hasLineBreak(text: string, [start, end]: [number, number]): boolean {
  const nl = text.indexOf("\n", start);
  return nl !== -1 && nl < end;
}

/**
 * The matches and ERROR ranges of the nodes a walk with `c.rule` found (in document order).
 * `asking`: the nodes come from the plain `any` (no markers), so each is asked op by op.
 */
export function collect(nodes: Iterable<SgNode>, c: Combined, offset: number, options: TraverseOptions = {}, asking = false): Walked {
  const { ops, active, configs, plain, token, idOf, prefixOf } = c;
  const found: Found[] = [];
  const syntax: Pick<Walked, "errors" | "missing"> & { errorNodes: Map<string, SgNode[]> } = {
    errors: [],
    missing: [],
    errorNodes: new Map(),
  };
  const { errors, missing, errorNodes } = syntax;
  const keep = options.keep;
  const push = (node: SgNode, index: number, prefix = "", span?: [number, number]) => {
    if (!keep || keep.has(index)) found.push(foundOf(node, ops, index, offset, options, prefix, span));
  };
  const reqs = options.requirements;
  /** Whether op k may also match a node already matched by an earlier op (cheap text test first). */
  const alsoMatches = (node: SgNode, k: number, text: () => string): boolean => {
    const req = reqs?.[active[k]!];
    if (req && !meets(req, text())) return false;
    return node.matches(configs[k] as never);
  };
  const visit = (node: SgNode) => {
    const span = spanOf(node);
    const what = noteSyntax(node, span, offset, syntax);
    if (what === "missing") return;
    // An ERROR node is asked like any other: a pattern whose parse keeps nothing but one
    // metavariable (`$A`, CSS's `91.6667$A`) matches it, as in the CLI, and no pattern text tells which do.
    const isError = what === "error";
    let first = -1;
    for (let k = 0; k < configs.length; k++) {
      if (node.getMatch(idOf[k]!)) {
        first = k;
        break;
      }
    }
    if (first === -1) {
      if (isError) return;
      // Matched by a bare-token op's plain branch.
      for (let k = 0; k < configs.length; k++) if (token[k] && node.matches(configs[k] as never)) push(node, active[k]!);
      return;
    }
    // A rule with constraints or transforms matched by its rule alone: check it in full, and
    // take the node from its own match so its env has the transforms (`find` returns the
    // node itself first; a different node is a descendant, not this match).
    if (plain[first]) push(node, active[first]!, prefixOf[first], span);
    else {
      const self = node.find(configs[first] as never);
      if (self && sameRange(self, node)) push(self, active[first]!);
      else first = -1;
    }
    if (configs.length === 1) return;
    let text: string | undefined;
    const source = options.source;
    const once = () => (text ??= source !== undefined ? source.slice(span[0] + offset, span[1] + offset) : node.text());
    for (let k = first + 1; k < configs.length; k++) {
      if (first === -1 && k === 0) continue;
      if (!alsoMatches(node, k, once)) continue;
      const self = node.find(configs[k] as never);
      if (self) push(self, active[k]!);
    }
  };
  const visitAsking = (node: SgNode) => {
    const what = noteSyntax(node, spanOf(node), offset, syntax);
    if (what === "missing") return;
    const isError = what === "error";
    for (let k = 0; k < configs.length; k++) {
      if (!node.matches(configs[k] as never)) continue;
      const self = configs.length === 1 && plain[k] && !isError ? node : node.find(configs[k] as never);
      if (self) push(self, active[k]!);
    }
  };
  for (const node of nodes) (asking ? visitAsking : visit)(node);
  flagErrors(found, errors, missing, errorNodes, ops, offset);
  const searched = keep ? active.filter((i) => keep.has(i)) : active;
  return { found, errors, missing, errorNodes, glued: (settled) => matchless(gluedNear(errorNodes, offset, settled), found, searched) };
}

/**
 * The neighbours where some op found no match, and every literal one: a neighbour holding a
 * match of an op was parsed as that op's construct, which says nothing of another op's match
 * that recovery may have lost there; a literal beside an error may be code that recovery quoted
 * (a stray backtick), whatever pattern matched it as a literal.
 */
function matchless(ranges: readonly Glued[], found: readonly Found[], ops: readonly number[]): Array<[number, number]> {
  if (ranges.length === 0) return [];
  const holds = (s: number, e: number, op: number) => found.some(({ match }) => match.op === op && s <= match.start && match.end <= e);
  return ranges.filter(([s, e, literal]) => literal || ops.some((op) => !holds(s, e, op))).map(([s, e]): [number, number] => [s, e]);
}

/**
 * Flags the matches that rest on a syntax error: tree-sitter wraps what it cannot parse in ERROR
 * nodes and invents zero-width MISSING tokens (an absent `)`) to carry on. A match holding an
 * ERROR node is flagged unless the error sits in a capture within a bracketed construct that
 * lies in that capture too (`foo(a @ b)` for `$V`): elsewhere recovery may have joined
 * statements, and the node need not be one of the file as written. A match inside an ERROR node
 * is a subtree parsed cleanly and is kept. A MISSING token inside a capture is kept too (the
 * capture's text is copied verbatim and a zero-width token changes no text); elsewhere in the
 * match it is flagged.
 */
function flagErrors(
  found: readonly Found[],
  errors: ReadonlyArray<[number, number]>,
  missing: readonly Missing[],
  errorNodes: ReadonlyMap<string, readonly SgNode[]>,
  ops: readonly EngineOp[],
  offset: number,
): void {
  if (errors.length === 0 && missing.length === 0) return;
  // An ERROR node's bracketed parent, read only for the errors some match holds.
  const brackets = new Map<string, [number, number] | null>();
  const bracketsAt = (key: string): [number, number] | null => {
    if (!brackets.has(key)) {
      // Of ERROR nodes sharing a range, the innermost one with a bracketed parent decides.
      let b: [number, number] | null = null;
      for (const error of errorNodes.get(key) ?? []) b = bracketsOf(error, offset) ?? b;
      brackets.set(key, b);
    }
    return brackets.get(key)!;
  };
  const index = new Intervals(errors);
  const invented = new Intervals(missing.map(([at]): [number, number] => [at, at]));
  for (const { node, match, prefix } of found) {
    let caps: Array<[number, number]> | undefined;
    const captures = () => (caps ??= allCaptureRanges(node, ops[match.op]!, offset, prefix));
    let holds = false;
    for (const [es, ee] of index.inside(match.start, match.end)) {
      if (es === match.start && ee === match.end) continue;
      const b = bracketsAt(`${es}:${ee}`);
      if (b && captures().some(([cs, ce]) => cs <= b[0] && b[1] <= ce)) continue;
      holds = true;
      break;
    }
    if (holds) {
      match.bad = true;
      continue;
    }
    // Near an invented token, the node's own zero-width leaves tell (one at its end may be a
    // sibling's: `f(x)` with a MISSING `!` after it).
    if (invented.inside(match.start, match.end).next().done) continue;
    const own = node
      .findAll({ rule: { regex: "^$" } })
      .filter(isMissing)
      .map((n) => spanOf(n)[0] + offset);
    if (own.length === 0) continue;
    if (own.some((at) => !captures().some(([cs, ce]) => cs < at && at < ce))) match.bad = true;
  }
}
