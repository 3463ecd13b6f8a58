/**
 * ast-grep's fix templating (crates/core/src/replacer/template.rs and indent.rs), so a rule's
 * `fix` gives the text `ast-grep scan --update-all` gives:
 * - `$NAME` inserts a capture, `$$$NAME` a multi capture (first node's start to last node's
 *   end), a transform's name its computed text; `$$NAME` reads as `$NAME`; a name left
 *   unbound by the match (an `any` branch not taken) inserts nothing (one that no part of the
 *   rule defines is refused when the rule is read: vars.ts); a `$` not followed by a name is
 *   literal.
 * - A multi-line capture keeps its layout relative to its own first line and is moved to the
 *   indentation the metavariable has in the template; the whole replacement is then indented
 *   like the line the match starts on.
 * - Indentation is the CLI's (../ast/indent.ts), with one improvement: a blank line gets no
 *   indentation.
 */
import { indentAt, shiftLines } from "../ast/indent.js";

/**
 * formatted_slice: a transform's value as the env keeps it, a multi-line one moved out of the
 * indentation of the line where its source capture starts (`start`, an offset of `text`).
 */
export function deindentedValue(value: string, text: string, start: number): string {
  return shiftLines(value, indentAt(text, start), 0);
}

export type TemplatePart = { literal: string } | { name: string; multi: boolean; indent: number };

function isVarChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Z0-9_]/.test(c);
}

/** create_template: literals and metavariable references, each with its indentation in the template. */
export function parseFixTemplate(template: string, mvChar = "$"): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let lit = "";
  let i = 0;
  while (i < template.length) {
    if (template[i] !== mvChar) {
      lit += template[i]!;
      i++;
      continue;
    }
    let n = 1;
    while (n < 3 && template[i + n] === mvChar) n++;
    const multi = n === 3;
    // `$$A` is read like `$A` (only three marks make a multi capture).
    let j = i + n;
    while (isVarChar(template[j])) j++;
    if (j === i + n) {
      lit += template[i]!;
      i++;
      continue;
    }
    if (lit) parts.push({ literal: lit });
    lit = "";
    parts.push({ name: template.slice(i + n, j), multi, indent: indentAt(template, i) });
    i = j;
  }
  if (lit) parts.push({ literal: lit });
  return parts;
}

/** Names a template reads. */
export function templateVars(template: string): string[] {
  return [...new Set(parseFixTemplate(template).flatMap((p) => ("name" in p ? [p.name] : [])))];
}

/** What a template reads from a match. Offsets are into `text`, the file's source. */
export interface TemplateEnv {
  text: string;
  /** [start, end) of a single capture. */
  single(name: string): [number, number] | undefined;
  /** [start, end) from the first to the last node of a multi capture; undefined for none. */
  multi(name: string): [number, number] | undefined;
  /** Computed text of a transform (undefined when the name is not a transform or gave nothing). */
  transformed(name: string): string | undefined;
  isTransform(name: string): boolean;
}

/** replace_fixer: the template with its metavariables filled in (not yet indented for the match). */
function fillTemplate(parts: readonly TemplatePart[], env: TemplateEnv): string {
  let out = "";
  for (const part of parts) {
    if ("literal" in part) {
      out += part.literal;
      continue;
    }
    if (!part.multi && env.isTransform(part.name)) {
      const t = env.transformed(part.name);
      if (t !== undefined) out += shiftLines(t, 0, part.indent);
      continue;
    }
    const range = part.multi ? env.multi(part.name) : env.single(part.name);
    if (!range) continue;
    const value = env.text.slice(range[0], range[1]);
    out += value.includes("\n") ? shiftLines(value, indentAt(env.text, range[0]), part.indent) : value;
  }
  return out;
}

/** generate_replacement: the filled template indented like the match's first line. */
export function renderFix(parts: readonly TemplatePart[], env: TemplateEnv, matchStart: number): string {
  return shiftLines(fillTemplate(parts, env), 0, indentAt(env.text, matchStart));
}

/** A rule's `message` with metavariables substituted (no re-indenting). */
export function renderMessage(message: string, env: TemplateEnv): string {
  if (!message.includes("$")) return message;
  return parseFixTemplate(message)
    .map((p) => {
      if ("literal" in p) return p.literal;
      if (!p.multi && env.isTransform(p.name)) return env.transformed(p.name) ?? "";
      const r = p.multi ? env.multi(p.name) : env.single(p.name);
      return r ? env.text.slice(r[0], r[1]) : "";
    })
    .join("");
}
