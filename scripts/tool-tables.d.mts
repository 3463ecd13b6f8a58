/** A tool as `tollgate tools --json` lists it: its name and its parameters' JSON Schema. */
export interface ToolSchema {
  name: string;
  parameters: unknown;
}
export function typeText(schema: unknown): string;
export function toolTable(tool: ToolSchema): string;
export function withToolTables(text: string, tools: ToolSchema[]): string;
export function toolsFromJson(json: string): ToolSchema[];
