// ESLint flat config. TypeScript: typescript-eslint's strict type-checked rules, with the few
// relaxations below, each for a stated reason. Scripts and benchmarks: ESLint's recommended rules.
// `npm run lint` runs it with zero warnings allowed, then Prettier's check.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const nodeGlobals = Object.fromEntries(
  [
    "process",
    "console",
    "URL",
    "Buffer",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "setImmediate",
    "structuredClone",
    "performance",
    "AbortController",
    "TextDecoder",
    "TextEncoder",
    "fetch",
  ].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  {
    ignores: ["dist/**", "node_modules/**", "coverage/**", "bench/.corpus/**", "**/fixtures/**", "recipes/__tests__/**", "examples/sample/**"],
  },
  js.configs.recommended,
  {
    rules: {
      // tollgate escapes terminal control sequences: regexes that name them are its subject.
      "no-control-regex": "off",
      // An empty catch says the failure is expected and ignored (probing for a binary, a best-effort cleanup).
      "no-empty": ["error", { allowEmptyCatch: true }],
    },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: nodeGlobals },
  },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ["*.ts"] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // tsconfig's noUncheckedIndexedAccess types every indexed read as possibly undefined; a `!`
      // after an index the code has just bounds-checked is the idiom that option asks for.
      "@typescript-eslint/no-non-null-assertion": "off",
      // Numbers and booleans read well in messages; objects, undefined and null still may not be
      // interpolated by accident.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      // `() => void f()` style shorthands in callbacks are clear; a void value used elsewhere is not.
      "@typescript-eslint/no-confusing-void-expression": ["error", { ignoreArrowShorthand: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // An async function that does not await still turns a throw into a rejection, which is what
      // a Promise-returning contract (a tool's execute, an action's apply, pi.ui) needs.
      "@typescript-eslint/require-await": "off",
      // Values handed back by custom tools, transforms, napi and parsed files reach the code typed
      // as they should be, not as they are: the checks at those boundaries are deliberate, and this
      // rule, which trusts the static types, would have them removed.
      "@typescript-eslint/no-unnecessary-condition": "off",
      // Likewise a coercion such as Boolean(stream.isTTY): Node types isTTY as boolean, and it is
      // undefined on a stream that is not a terminal.
      "@typescript-eslint/no-unnecessary-type-conversion": "off",
      // Forwarding a rejection or error of unknown type as it came is not inventing a non-Error.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
    },
  },
  {
    // The example custom tools import "tollgate", which resolves to the build (dist/); lint runs
    // before the build, so these files get the syntactic rules only.
    files: ["recipes/**/*.ts"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // Tests read JSON reports, parsed CLI output and SARIF logs as untyped data and assert on them
    // with expect(): the assertion is the check, so typing each read would only add casts.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/restrict-plus-operands": "off",
      // Tests save a stream's write to restore it, throw non-Errors on purpose to check how they are
      // reported, and type the error they provoked in its catch callback.
      "@typescript-eslint/unbound-method": "off",
      "@typescript-eslint/only-throw-error": "off",
      "@typescript-eslint/use-unknown-in-catch-callback-variable": "off",
    },
  },
);
