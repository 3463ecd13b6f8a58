#!/usr/bin/env node
// The README's parameter table of each built-in tool, generated from the tools' TypeBox schemas.
// Each table sits between `<!-- tool-params:NAME -->` and `<!-- /tool-params:NAME -->`.
//   node scripts/tool-tables.mjs          rewrite the tables in README.md (needs the build: npm run build)
//   node scripts/tool-tables.mjs --check  exit 1 when a table differs from the schemas
// test/docs/tool-tables.test.ts renders the tables from the sources and fails when README.md drifts.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A JSON Schema's type, in the words a recipe author writes. */
export function typeText(schema) {
  if (schema.anyOf) {
    if (schema.anyOf.every((s) => "const" in s)) return schema.anyOf.map((s) => `\`${JSON.stringify(s.const)}\``).join(" | ");
    return schema.anyOf.map(typeText).join(" | ");
  }
  if (schema.type === "array") return `${typeText(schema.items ?? {})}[]`;
  if (schema.type === "object") {
    if (schema.properties && Object.keys(schema.properties).length > 0) {
      const required = new Set(schema.required ?? []);
      return `{ ${Object.entries(schema.properties)
        .map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${typeText(v)}`)
        .join(", ")} }`;
    }
    const values = Object.values(schema.patternProperties ?? {})[0];
    return values && values.type ? `{ [name]: ${typeText(values)} }` : "object";
  }
  return schema.type ?? "any";
}

function cell(text) {
  return String(text).replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The markdown table of one tool's parameters: name, type, required, default, description. */
export function toolTable(tool) {
  const props = tool.parameters.properties ?? {};
  const required = new Set(tool.parameters.required ?? []);
  const rows = Object.entries(props).map(([name, schema]) => {
    const def = "default" in schema ? `\`${JSON.stringify(schema.default)}\`` : "";
    return `| \`${name}\` | ${cell(typeText(schema))} | ${required.has(name) ? "yes" : ""} | ${def} | ${cell(schema.description ?? "")} |`;
  });
  return ["| parameter | type | required | default | description |", "|---|---|---|---|---|", ...rows].join("\n");
}

/** `text` with every marked table replaced by the one generated for its tool; throws on a tool without markers. */
export function withToolTables(text, tools) {
  let out = text;
  for (const tool of tools) {
    const open = `<!-- tool-params:${tool.name} -->`;
    const close = `<!-- /tool-params:${tool.name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`README.md has no ${open} … ${close} markers`);
    out = `${out.slice(0, start + open.length)}\n${toolTable(tool)}\n${out.slice(end)}`;
  }
  return out;
}

/** The tools as `tollgate tools --json` lists them (name, parameters as JSON Schema). */
export function toolsFromJson(json) {
  return JSON.parse(json).map((t) => ({ name: t.name, parameters: t.parameters }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const readme = path.join(root, "README.md");
  const json = execFileSync(process.execPath, [path.join(root, "bin/tollgate.js"), "tools", "--json"], { encoding: "utf8" });
  const before = readFileSync(readme, "utf8");
  const after = withToolTables(before, toolsFromJson(json));
  if (process.argv.includes("--check")) {
    if (after !== before) {
      process.stderr.write("README.md: a tool's parameter table differs from its schema; run: node scripts/tool-tables.mjs\n");
      process.exit(1);
    }
  } else if (after !== before) {
    writeFileSync(readme, after);
    process.stderr.write("README.md: tool parameter tables updated\n");
  }
}
