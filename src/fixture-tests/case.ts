import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import type { Issue } from "../errors.js";
import { parseYaml, schemaIssues } from "../config/yaml.js";

/** `case.yaml`: optional per-case settings. Every key is optional. */
const CaseFileSchema = Type.Object(
  {
    description: Type.Optional(Type.String({ description: "What the case checks (shown on failure)" })),
    vars: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: "Recipe variable overrides, like --var name=value",
      }),
    ),
    files: Type.Optional(Type.Array(Type.String(), { description: "Restrict every tool to these files, like run's positional files" })),
    idempotent: Type.Optional(Type.Boolean({ description: "Default true: a second run on the result must stage no change" })),
    git: Type.Optional(Type.Boolean({ description: "Default true: the input is committed in a fresh git repository" })),
    exitCode: Type.Optional(Type.Integer({ minimum: 0, description: "The run's expected exit code (default 0)" })),
  },
  { additionalProperties: false },
);
type CaseFile = Static<typeof CaseFileSchema>;

const CASE_FILE = "case.yaml";
const POLICY_FILE = "policy.yaml";
const SNAPSHOT_FILE = "expected-report.json";

/** One fixture case: `__tests__/[<recipe>/]<case>/{input,expected}/` plus optional files. */
export interface TestCase {
  /** The case folder's name. */
  name: string;
  dir: string;
  inputDir: string;
  expectedDir: string;
  hasExpected: boolean;
  /** policy.yaml when present; otherwise the case runs with auto-apply. */
  policyPath?: string;
  snapshotPath: string;
  hasSnapshot: boolean;
  description?: string;
  vars: Record<string, string | number | boolean>;
  files?: string[];
  idempotent: boolean;
  git: boolean;
  exitCode: number;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads one case folder. Returns issues (exit 2) for a fixture that cannot be run: no
 * `input/` folder, an invalid `case.yaml`.
 */
export async function loadCase(dir: string, display: (p: string) => string): Promise<{ testCase?: TestCase; issues: Issue[] }> {
  const inputDir = path.join(dir, "input");
  const issues: Issue[] = [];
  if (!isDir(inputDir)) {
    issues.push({ file: display(dir), message: `missing input/ folder (a case is <case>/input/ plus <case>/expected/)` });
  }
  let settings: CaseFile = {};
  const caseFile = path.join(dir, CASE_FILE);
  if (existsSync(caseFile)) {
    const shown = display(caseFile);
    const { located, issues: yamlIssues } = parseYaml(shown, await readFile(caseFile, "utf8"));
    if (!located) issues.push(...yamlIssues);
    else if (located.value === null || located.value === undefined) settings = {};
    else if (typeof located.value !== "object" || Array.isArray(located.value)) {
      issues.push({ file: shown, line: 1, col: 1, message: "case.yaml must be a mapping (description, vars, files, idempotent, git, exitCode)" });
    } else {
      const shape = schemaIssues(located, CaseFileSchema, located.value);
      if (shape.length > 0) issues.push(...shape);
      else settings = located.value;
    }
  }
  if (issues.length > 0) return { issues };
  const policyPath = path.join(dir, POLICY_FILE);
  const snapshotPath = path.join(dir, SNAPSHOT_FILE);
  const expectedDir = path.join(dir, "expected");
  return {
    issues,
    testCase: {
      name: path.basename(dir),
      dir,
      inputDir,
      expectedDir,
      hasExpected: isDir(expectedDir),
      ...(existsSync(policyPath) ? { policyPath } : {}),
      snapshotPath,
      hasSnapshot: existsSync(snapshotPath),
      ...(settings.description !== undefined ? { description: settings.description } : {}),
      vars: settings.vars ?? {},
      ...(settings.files ? { files: settings.files } : {}),
      idempotent: settings.idempotent ?? true,
      git: settings.git ?? true,
      exitCode: settings.exitCode ?? 0,
    },
  };
}
