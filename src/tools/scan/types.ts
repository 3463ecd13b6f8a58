/**
 * ast-grep rule files as ast_scan holds them after checking. Rule, constraint and
 * util objects stay in ast-grep's own shape: napi evaluates them as they are.
 */

import type { TemplatePart } from "./template.js";

export type Severity = "error" | "warning" | "info" | "hint" | "off";

export type RuleObject = Record<string, unknown>;

/** A transformation in object form (the string form is converted when the rule is read). */
export type Transformation =
  | { replace: { source: string; replace: string; by: string } }
  | { substring: { source: string; startChar?: number; endChar?: number } }
  | { convert: { source: string; toCase: string; separatedBy?: string[] } }
  | { rewrite: { source: string; rewriters: string[]; joinBy?: string } };

/** A transformation's `source` as written (`$A`, `$$$A`). */
export function transformSource(t: Transformation): string {
  return (Object.values(t)[0] as { source: string }).source;
}

/** `expandStart` / `expandEnd`: a rule plus `stopBy`. */
export interface Expansion {
  rule: RuleObject;
  stopBy: "neighbor" | "end" | { rule: RuleObject };
}

export interface Fix {
  template: string;
  /** The template parsed once, when the rule is read. */
  parts: TemplatePart[];
  expandStart?: Expansion;
  expandEnd?: Expansion;
}

export interface Rewriter {
  id: string;
  rule: RuleObject;
  constraints?: Record<string, RuleObject>;
  utils?: Record<string, RuleObject>;
  transform?: Record<string, Transformation>;
  fix: Fix;
}

/** Where something was written: for messages that point at the rule file. */
interface Origin {
  file: string;
  line: number;
  col: number;
}

export interface ScanRule {
  id: string;
  /** napi language id (LangInfo.id). */
  lang: string;
  rule: RuleObject;
  constraints?: Record<string, RuleObject>;
  /** Local utils merged over the global ones of the same language. */
  utils?: Record<string, RuleObject>;
  transform?: Record<string, Transformation>;
  rewriters?: Rewriter[];
  fix?: Fix;
  files?: string[];
  ignores?: string[];
  severity: Severity;
  message: string;
  note?: string;
  url?: string;
  metadata?: Record<string, unknown>;
  labels?: Record<string, { style: "primary" | "secondary"; message?: string }>;
  origin: Origin;
}

/** A rule that was read but will not run (language tollgate lacks). */
export interface SkippedRule {
  id: string;
  language: string;
  reason: string;
  origin: Origin;
}

export interface GlobalUtil {
  id: string;
  lang: string;
  rule: RuleObject;
  utils?: Record<string, RuleObject>;
}

interface TestConfig {
  testDir: string;
  snapshotDir?: string;
}

export interface ProjectConfig {
  /** Absolute path of the sgconfig.yml. */
  file: string;
  dir: string;
  ruleDirs: string[];
  utilDirs: string[];
  testConfigs: TestConfig[];
  /** napi language id → globs. */
  languageGlobs: Record<string, string[]>;
}
