// Entry point. `--version` is answered before anything heavy loads (SPEC 9); every command
// module is imported lazily so `--help` stays fast too.
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import("./app.js");
  process.exitCode = await main(argv);
}
