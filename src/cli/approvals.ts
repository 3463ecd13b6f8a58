import { InputError } from "../errors.js";
import { readConfigFile } from "../config/read.js";
import { locate, parseYaml } from "../config/yaml.js";

/**
 * `--approvals FILE`: a YAML list of fingerprints, or of `{ fingerprint, by }` objects.
 * Returns fingerprint → who approved.
 */
export async function loadApprovalsFile(file: string): Promise<Map<string, string>> {
  const text = await readConfigFile(file, file, "approvals");
  const { located, issues } = parseYaml(file, text);
  if (!located) throw new InputError(issues);
  const list = located.value ?? [];
  if (!Array.isArray(list)) throw new InputError([{ file, line: 1, col: 1, message: "Approvals must be a YAML list" }]);
  const out = new Map<string, string>();
  list.forEach((item: unknown, i) => {
    if (typeof item === "string") out.set(item, "approvals file");
    else if (item && typeof item === "object" && typeof (item as { fingerprint?: unknown }).fingerprint === "string") {
      const by = (item as { by?: unknown }).by;
      out.set((item as { fingerprint: string }).fingerprint, typeof by === "string" ? by : "approvals file");
    } else {
      throw new InputError([{ file, ...locate(located, [i]), path: `[${i}]`, message: "Expected a fingerprint string or { fingerprint, by }" }]);
    }
  });
  return out;
}
