// Bundles the CLI and the jscodeshift worker into dist/bundle/ after tsc.
//
// - dist/bundle/cli.cjs: the whole CLI in one CommonJS file. bin/tollgate.js compiles it with
//   node:vm and a V8 code cache, which Node 20 offers for scripts but not for ES modules: start-up
//   then neither resolves, reads and links a module graph (one file, not ~460 modules or ~100
//   chunks) nor compiles what a command ran last time. Modules imported dynamically stay lazy
//   (esbuild initialises them on first import). A dynamic `import()` that stays (a user's module,
//   an external package) cannot run inside a vm script in Node 20 (its default loader is lost with
//   a code cache), so each becomes a call of `__tgImport`, the launcher's own `import()`.
// - dist/bundle/jscodeshift-worker.js: the worker in one ES module (it imports transforms).
// Native packages, jiti and jscodeshift stay external; the library entry (dist/index.js) is tsc's.
import { parse } from "acorn";
import { build } from "esbuild";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist", "bundle");

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
    b.onResolve({ filter: /^string-width$/ }, (args) =>
      args.namespace === "lazy-string-width" ? undefined : { path: "string-width", namespace: "lazy-string-width" },
    );
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

/**
 * yargs looks for "the app's" package.json (its version, a `yargs` key of parser settings) from
 * the directory above the node_modules it is installed in; bundled there is none, so it searched
 * from the working directory up to / on every start (a readdir per level and an AssertionError
 * built and caught) and would have applied a `yargs` key of the user's package.json to
 * tollgate's own options. Bundled, the app is tollgate: the directory two levels above the bundle.
 */
const yargsAppRoot = {
  name: "yargs-app-root",
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, async (args) => {
      const { readFile } = await import("node:fs/promises");
      const text = await readFile(args.path, "utf8");
      const from = "const mainFilename = __dirname.substring(0, __dirname.lastIndexOf('node_modules'));";
      if (!text.includes(from)) throw new Error(`bundle: yargs' ${path.relative(root, args.path)} no longer computes mainFilename as expected`);
      return {
        contents: text.replace(from, 'const mainFilename = fileURLToPath(new URL("../../", import.meta.url));'),
        loader: "js",
        resolveDir: path.dirname(args.path),
      };
    });
  },
};

/**
 * yargs renders the whole help text of a command as soon as its handler has started (cliui
 * laying out every option: a few milliseconds of every run), keeping it for a `showHelp()` made
 * after the handler's state is gone. tollgate never shows help then: its `fail` handler throws
 * (usage errors say "Run tollgate --help"), and `--help` is answered before any handler runs.
 * The bundle leaves that help text unrendered.
 */
const yargsNoHelpCache = {
  name: "yargs-no-help-cache",
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]build[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const { readFile } = await import("node:fs/promises");
      const text = await readFile(args.path, "utf8");
      const from = "yargs.getInternalMethods().getUsageInstance().cacheHelpMessage();";
      if (text.split(from).length !== 2) throw new Error(`bundle: yargs' ${path.relative(root, args.path)} no longer caches its help message as expected`);
      return { contents: text.replace(from, "/* help text not rendered: scripts/bundle.mjs */"), loader: "js", resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * Node built-ins that the start of every run would load for nothing: child_process (git and
 * exec, which most runs never call), assert (two functions yargs keeps for its own checks, which
 * pass) and fs/promises (it loads fs watchers and readline) cost a few milliseconds each to
 * initialise. An ES `import` of one, in tollgate's code or yargs'
 * shim, gets a module of forwarding functions that require the real module on first call. Only
 * functions are forwarded: an import of anything else (a class) fails the build. Other packages
 * (execa imports ChildProcess, a class) and `require()` calls are left as they are.
 */
const LAZY_BUILTINS = ["child_process", "assert", "fs/promises"];
/**
 * Checks that pass return without the module (yargs makes them on every start); one that fails,
 * or a call short of arguments, is the real function's to judge and report.
 */
const PASSING = {
  assert: {
    strictEqual: "if (args.length >= 2 && Object.is(args[0], args[1])) return;",
    notStrictEqual: "if (args.length >= 2 && !Object.is(args[0], args[1])) return;",
  },
};
const promisifyCustom = Symbol.for("nodejs.util.promisify.custom");
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(b) {
    const filter = new RegExp(`^(?:node:)?(?:${LAZY_BUILTINS.join("|")})$`);
    b.onResolve({ filter }, (args) =>
      args.kind === "import-statement" && (!/[\\/]node_modules[\\/]/.test(args.importer) || /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]/.test(args.importer))
        ? { path: args.path.replace(/^node:/, ""), namespace: "lazy-builtin" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, async (args) => {
      const { createRequire } = await import("node:module");
      const real = createRequire(import.meta.url)(args.path);
      const names = Object.keys(real).filter((k) => typeof real[k] === "function" && /^[a-z_]/.test(k) && /^[A-Za-z_$][\w$]*$/.test(k));
      const contents = [
        `let real;`,
        `const get = () => (real ??= require("node:${args.path}"));`,
        ...names.map((k) => `export function ${k}(...args) { ${PASSING[args.path]?.[k] ?? ""}return get().${k}(...args); }`),
        // util.promisify(execFile) resolves { stdout, stderr } through the real function's own promisified form.
        ...names
          .filter((k) => real[k][promisifyCustom] !== undefined)
          .map(
            (k) =>
              `Object.defineProperty(${k}, Symbol.for("nodejs.util.promisify.custom"), { get: () => get().${k}[Symbol.for("nodejs.util.promisify.custom")] });`,
          ),
      ].join("\n");
      return { contents, loader: "js", resolveDir: root };
    });
  },
};

/**
 * `await import("node:os")` of a built-in would go through Node's ES loader (started on first use:
 * a few milliseconds) and build the module's ES facade, which reads every export (node:fs's lazy
 * ReadStream getter loads fs streams). In the bundle it is a require() of the built-in instead,
 * seen as an ES namespace (`default` the module, its properties the named exports), as it would be.
 */
const requiredBuiltins = {
  name: "required-builtins",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => (args.kind === "dynamic-import" ? { path: args.path, namespace: "required-builtin" } : undefined));
    b.onLoad({ filter: /.*/, namespace: "required-builtin" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: "js",
      resolveDir: root,
    }));
  },
};

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20.19",
  // jscodeshift loads Babel and transforms through Node's own require (register hook).
  external: ["@ast-grep/*", "jiti", "jscodeshift"],
  plugins: [lazyStringWidth, yargsAppRoot, yargsNoHelpCache, lazyBuiltins],
  logLevel: "warning",
  write: false,
};

/** `import(` of every dynamic import expression in `code` rewritten to `__tgImport(`. */
function routeDynamicImports(code) {
  const starts = [];
  const stack = [parse(code, { ecmaVersion: "latest", sourceType: "script", allowHashBang: true })];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node.type === "ImportExpression") starts.push(node.start);
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const v of value) v && typeof v.type === "string" && stack.push(v);
      else if (value && typeof value.type === "string") stack.push(value);
    }
  }
  let out = "";
  let at = 0;
  for (const start of starts.sort((a, b) => a - b)) {
    if (code.slice(start, start + 6) !== "import") throw new Error(`bundle: no import keyword at offset ${start}`);
    out += `${code.slice(at, start)}__tgImport`;
    at = start + 6;
  }
  return out + code.slice(at);
}

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

const cli = await build({
  ...common,
  entryPoints: ["dist/cli/main.js"],
  plugins: [...common.plugins, requiredBuiltins],
  outfile: path.join(outdir, "cli.cjs"),
  format: "cjs",
  // Less source to read on every start (names kept: messages and stack traces still read).
  minifyWhitespace: true,
  minifySyntax: true,
  // Every module's import.meta.url is the bundle's own (as it was each chunk's): paths beside it
  // (../../package.json, ./jscodeshift-worker.js) resolve as they did in dist/.
  banner: { js: 'var __tgImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__tgImportMetaUrl" },
});
for (const f of cli.outputFiles) {
  // esbuild escapes every non-ASCII character (its default charset): the launcher reads the bundle as latin1.
  if (/[^\x00-\x7f]/.test(f.text)) throw new Error(`bundle: ${path.relative(root, f.path)} is not ASCII`);
  writeFileSync(f.path, routeDynamicImports(f.text));
}

const worker = await build({
  ...common,
  entryPoints: { "jscodeshift-worker": "dist/tools/jscodeshift/jscodeshift-worker.js" },
  outdir,
  format: "esm",
  // CommonJS dependencies call require() for Node built-ins and read __filename; ESM output has neither.
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
});
for (const f of worker.outputFiles) writeFileSync(f.path, f.text);
