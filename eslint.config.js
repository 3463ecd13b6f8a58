// ESLint flat config. TypeScript: typescript-eslint's strict type-checked rules, with the few
// relaxations below, each for a stated reason. Scripts and benchmarks: ESLint's recommended rules.
// `npm run lint` runs it with zero warnings allowed, then Prettier's check.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const nodeGlobals = Object.fromEntries(
  ["process", "console", "URL", "Buffer", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "structuredClone", "performance", "AbortController", "TextDecoder", "TextEncoder", "fetch"].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  {
    ignores: ["dist/**", "node_modules/**", "coverage/**", "bench/.corpus/**", "**/fixtures/**", "recipes/__tests__/**", "examples/sample/**"],
  },
  js.configs.recommended,
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
    },
  },
);
