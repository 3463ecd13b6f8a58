// Writes schema/*.schema.json from the built TypeBox definitions (run after `npm run build`).
import { mkdirSync, writeFileSync } from "node:fs";
import { SCHEMAS, schemaText } from "../dist/schema/emit.js";

const dir = new URL("../schema/", import.meta.url);
mkdirSync(dir, { recursive: true });
for (const which of SCHEMAS) {
  writeFileSync(new URL(`${which}.schema.json`, dir), schemaText(which));
  process.stderr.write(`schema/${which}.schema.json\n`);
}
