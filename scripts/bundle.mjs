// Bundles the CLI (and the jscodeshift worker) into dist/bundle/ after tsc: the CLI then loads a handful
// of files instead of ~460 modules (TypeBox alone is ~250), which is most of its start-up time
// (SPEC 9). Native packages and jiti stay external; the library entry (dist/index.js) is tsc's.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * yargs measures its help text with string-width (three copies: yargs', cliui's, wrap-ansi's),
 * whose module body builds an Intl.Segmenter and a `\p{RGI_Emoji}` regex: ~60 ms of every
 * start-up, for text that is ASCII. Every `string-width` import gets this module instead: ASCII
 * (after ANSI escapes) is measured by its length, which is string-width's own fast path; any
 * other text loads the real string-width on first use (a bundled require() initialises lazily).
 */
const lazyStringWidth = {
  name: "lazy-string-width",
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) => (args.namespace === "lazy-string-width" ? undefined : { path: "string-width", namespace: "lazy-string-width" }));
    b.onLoad({ filter: /.*/, namespace: "lazy-string-width" }, () => ({
      resolveDir: root,
      contents: [
        "import stripAnsi from 'strip-ansi';",
        "let real;",
        "export default function stringWidth(input, options = {}) {",
        "  if (typeof input !== 'string' || input.length === 0) return 0;",
        "  const plain = options.countAnsiEscapeCodes ? input : stripAnsi(input);",
        "  if (/^[\\u0020-\\u007E]*$/.test(plain)) return plain.length;",
        "  real ??= require('string-width').default;",
        "  return real(input, options);",
        "}",
      ].join("\n"),
    }));
  },
};
const outdir = path.join(root, "dist", "bundle");
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: "dist/cli/main.js", "jscodeshift-worker": "dist/tools/jscodeshift/jscodeshift-worker.js" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  chunkNames: "chunk-[hash]",
  // jscodeshift loads Babel and transforms through Node's own require (register hook).
  external: ["@ast-grep/*", "jiti", "jscodeshift"],
  // CommonJS dependencies call require() for Node built-ins and read __filename (write-file-atomic
  // hashes it into temp names); ESM output has neither, so each chunk defines them.
  banner: {
    js: [
      'import { createRequire as __tgRequire } from "node:module";',
      'import { fileURLToPath as __tgPath } from "node:url";',
      "const require = __tgRequire(import.meta.url);",
      "const __tgFilename = __tgPath(import.meta.url);",
      'const __tgDirname = __tgPath(new URL(".", import.meta.url));',
    ].join(" "),
  },
  define: { __filename: "__tgFilename", __dirname: "__tgDirname" },
  plugins: [lazyStringWidth],
  logLevel: "warning",
});
