import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/testdir.js";

// The library's API: exactly these names, each described in docs/internals.md. A name added to
// src/index.ts without a line here and in the docs fails, and so does one dropped.
const VALUES = ["InputError", "RunError", "TollgateError", "defineTool", "executeRun", "prepareRun", "runRecipe"];
const TYPES = [
  "AgentToolResult",
  "ApprovalAnswer",
  "Approvals",
  "Approver",
  "CustomTool",
  "CustomToolAPI",
  "CustomToolContext",
  "CustomToolFactory",
  "CustomToolFiles",
  "CustomToolPendingAction",
  "CustomToolUI",
  "ImageContent",
  "Logger",
  "Outcome",
  "OutcomeRecord",
  "PlanGate",
  "PreparedRun",
  "ProcessHost",
  "Report",
  "RunControls",
  "RunEvent",
  "RunInput",
  "RunResult",
  "RunWorld",
  "StageResult",
  "StagedAction",
  "StagedFile",
  "StepRecord",
  "TextContent",
];

const DIST = path.join(REPO_ROOT, "dist", "index.js");
const DECLARATIONS = path.join(REPO_ROOT, "dist", "index.d.ts");

/** Every name the built declarations export, types and values. */
function declaredExports(file: string): string[] {
  const program = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const moduleSymbol = checker.getSymbolAtLocation(source)!;
  return checker.getExportsOfModule(moduleSymbol).map((s) => s.name);
}

describe("the package's entry (dist/index.js, from `npm run build`)", () => {
  it("exports exactly the documented values", async () => {
    const entry = (await import(pathToFileURL(DIST).href)) as Record<string, unknown>;
    expect(Object.keys(entry).sort()).toEqual([...VALUES].sort());
    for (const name of ["runRecipe", "prepareRun", "executeRun", "defineTool"]) expect(typeof entry[name]).toBe("function");
    const { InputError, TollgateError } = entry as { InputError: new (m: string) => Error & { exitCode: number }; TollgateError: abstract new () => Error };
    const err = new InputError("bad");
    expect(err).toBeInstanceOf(TollgateError);
    expect(err.exitCode).toBe(2);
  });

  it("declares exactly the documented values and types", () => {
    expect(declaredExports(DECLARATIONS).sort()).toEqual([...VALUES, ...TYPES].sort());
  });
});

describe("docs/internals.md", () => {
  const docs = readFileSync(path.join(REPO_ROOT, "docs", "internals.md"), "utf8");
  const library = docs.slice(docs.indexOf("## Library"), docs.indexOf("\n## ", docs.indexOf("## Library") + 1));

  it.each([...VALUES, ...TYPES])("the Library section describes %s", (name) => {
    expect(library).toMatch(new RegExp("`" + name + "(\\(|`)"));
  });

  it("lists what src/index.ts exports (the source the build is made from)", () => {
    const index = readFileSync(path.join(REPO_ROOT, "src", "index.ts"), "utf8");
    const exported = new Set(
      [...index.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
        m[1]!
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    );
    expect([...exported].sort()).toEqual([...VALUES, ...TYPES].sort());
  });
});
